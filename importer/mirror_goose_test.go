package importer

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/tape-dev/tape/importer/goose"
)

// writeGooseDB writes the golden Goose database into dir and returns a
// connection that writes it.
func writeGooseDB(t *testing.T, dir string) *sql.DB {
	return writeGoldenDB(t, filepath.Join(dir, "sessions.db"), "goose/goose.sql")
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
	followDatabase(t, goose.Source{}, home, "goose-20251129_1", "msg_0a1b2c3d-2222-4000-8000-000000000002",
		func() { exec(t, db, oneMoreGooseReply) }, "msg_0a1b2c3d-2222-4000-8000-000000000003")
}

// A Goose database is imported through its mirror: the sessions folder
// becomes the mirror's files (the .jsonl files of Goose before the
// database beside it are not read again: Goose copied them into it); an
// import again with nothing new writes nothing; a reply added later is
// imported alone; a session whose counts grew is written again, with one
// more run (of the runs of its usage_id, tape usage counts the largest).
func TestImportThroughAGooseMirror(t *testing.T) {
	home := t.TempDir()
	db := writeGooseDB(t, home)
	legacy, err := os.ReadFile("../testdata/import/goose/src/legacy/20250301_101500.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "20250301_101500.jsonl"), legacy, 0o600); err != nil {
		t.Fatal(err)
	}
	mirrorImport{src: goose.Source{}, dir: home, sessions: 3, change: func() {
		exec(t, db, oneMoreGooseReply)
		exec(t, db, `UPDATE sessions SET accumulated_input_tokens = 1500, accumulated_output_tokens = 150, updated_at = '2025-11-29 00:07:00' WHERE id = '20251129_1'`)
	}, want: 3, what: "a reply and new counts (the session's row again, its run, and the reply)"}.check(t)
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
