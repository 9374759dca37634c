package importer

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/goose"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/sqlitefile"
	"github.com/tape-dev/tape/testkit/poll"
)

// writeGooseDB writes the golden Goose database into dir (WAL, as Goose
// keeps it) and returns a connection that writes it.
func writeGooseDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	script, err := os.ReadFile("../testdata/import/goose/goose.sql")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", sqlitefile.URI(filepath.Join(dir, "sessions.db"))+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatal(err)
	}
	return db
}

// oneMoreGooseReply is a reply added to the golden database's subagent
// session: one entry, its text.
const oneMoreGooseReply = `INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json)
	VALUES ('msg_0a1b2c3d-2222-4000-8000-000000000003', '20251129_1', 'assistant', '[{"type":"text","text":"one more reply, 再来一个"}]', 1764374800,
	'{"userVisible":true,"agentVisible":true}')`

// A followed Goose database: a write to it (its WAL) is imported through
// the mirror as it happens.
func TestFollowerFollowsAGooseDatabase(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	db := writeGooseDB(t, home)
	root := t.TempDir()
	f := &Follower{WS: newWorkspace(t, root), Dirs: map[source.Source][]string{goose.Source{}: {home}},
		Warn: func(err error) { t.Errorf("follower: %v", err) }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	defer func() { cancel(); <-done }()
	has := func(id string) func() bool {
		return func() bool {
			tp, err := f.WS.Tape("goose-20251129_1")
			if err != nil {
				return false
			}
			for e, err := range tp.All(context.Background()) {
				if err == nil && e.ID == id {
					return true
				}
			}
			return false
		}
	}
	poll.Until(t, 10*time.Second, "the database's first import", has("msg_0a1b2c3d-2222-4000-8000-000000000002"))
	if _, err := db.Exec(oneMoreGooseReply); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "a reply written to the database, seen by the watch", has("msg_0a1b2c3d-2222-4000-8000-000000000003"))
}

// A Goose database is imported through its mirror: the sessions folder
// becomes the mirror's files (the .jsonl files of Goose before the
// database beside it are not read again: Goose copied them into it); an
// import again with nothing new writes nothing; a reply added later is
// imported alone; a session whose counts grew is written again, with one
// more run (of the runs of its usage_id, tape usage counts the largest).
func TestImportThroughAGooseMirror(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	db := writeGooseDB(t, home)
	legacy, err := os.ReadFile("../testdata/import/goose/src/legacy/20250301_101500.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "20250301_101500.jsonl"), legacy, 0o600); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t, t.TempDir())
	imp := New(ws, goose.Source{})
	var warned []string
	imp.Warn = func(err error) { warned = append(warned, err.Error()) }
	stats, err := imp.Import(ctx, []string{home})
	if err != nil {
		t.Fatal(err)
	}
	imported := 0
	for _, st := range stats {
		imported += st.Imported
		if !strings.Contains(st.File, filepath.Join(".tape", "import", "goose")) {
			t.Errorf("imported %s, not a mirror file in the workspace", st.File)
		}
	}
	if len(stats) != 3 || imported == 0 || len(warned) != 0 {
		t.Fatalf("first import: %d transcripts, %d entries, warnings %v; want the 3 sessions", len(stats), imported, warned)
	}
	again, err := imp.Import(ctx, []string{home})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range again {
		if !st.Unchanged || st.Imported != 0 {
			t.Errorf("import again, nothing new: %+v", st)
		}
	}
	if _, err := db.Exec(oneMoreGooseReply); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE sessions SET accumulated_input_tokens = 1500, accumulated_output_tokens = 150, updated_at = '2025-11-29 00:07:00' WHERE id = '20251129_1'`); err != nil {
		t.Fatal(err)
	}
	third, err := imp.Import(ctx, []string{home})
	if err != nil {
		t.Fatal(err)
	}
	imported = 0
	for _, st := range third {
		imported += st.Imported
	}
	if imported != 3 {
		t.Errorf("after a reply and new counts: %d entries imported, want the session's row again, its run, and the reply", imported)
	}
}

// tape sources counts the sessions of Goose's database, and in a sessions
// folder of no database the session files of Goose before it, as an
// import reads each.
func TestSurveyOfGooseFolder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GOOSE_PATH_ROOT", "")
	t.Setenv("XDG_DATA_HOME", "")
	dir := filepath.Join(home, ".local", "share", "goose", "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"20250301_101500.jsonl", "20250302_090000.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"description":"d"}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := SurveyOf(nil, goose.Source{}, func(err error) { t.Error(err) })
	if err != nil || !s.Found || s.Transcripts != 2 {
		t.Fatalf("a folder of session files: %+v, %v; want 2 transcripts", s, err)
	}
	writeGooseDB(t, dir)
	if s, err = SurveyOf(nil, goose.Source{}, func(err error) { t.Error(err) }); err != nil || s.Transcripts != 3 {
		t.Fatalf("the folder with its database: %+v, %v; want its 3 sessions", s, err)
	}
}
