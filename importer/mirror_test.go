package importer

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/opencode"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/sqlitefile"
	"github.com/tape-dev/tape/testkit/poll"
)

// writeOpenCodeDB writes the golden OpenCode database into dir (WAL, as
// OpenCode keeps it) and returns a connection that writes it.
func writeOpenCodeDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	script, err := os.ReadFile("../testdata/import/opencode/opencode.sql")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", sqlitefile.URI(filepath.Join(dir, "opencode.db"))+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatal(err)
	}
	return db
}

// oneMoreReply is a completed reply of the subagent's session, added to
// the golden database: two entries, its run and its text.
const oneMoreReply = `INSERT INTO message VALUES ('msg_5a1f3d0a2099aAbBcCdDeEfF99', 'ses_5a1f3c6f0ffeH8i9J0k1L2m3N4', 1764300040000, 1764300041000,
	'{"role":"assistant","time":{"created":1764300040000,"completed":1764300041000},"modelID":"claude-haiku-4-5","tokens":{"input":5,"output":7,"cache":{"read":0,"write":0}}}');
	INSERT INTO part VALUES ('prt_5a1f3d0a2098aAbBcCdDeEfF98', 'msg_5a1f3d0a2099aAbBcCdDeEfF99', 'ses_5a1f3c6f0ffeH8i9J0k1L2m3N4', 1764300040500, 1764300040500,
	'{"type":"text","text":"one more reply, 再来一个"}')`

// A followed database source: a write to the database (its WAL) is
// imported through the mirror as it happens.
func TestFollowerFollowsADatabase(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	db := writeOpenCodeDB(t, home)
	root := t.TempDir()
	f := &Follower{WS: newWorkspace(t, root), Dirs: map[source.Source][]string{opencode.Source{}: {home}},
		Warn: func(err error) { t.Errorf("follower: %v", err) }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	defer func() { cancel(); <-done }()
	has := func(id string) func() bool {
		return func() bool {
			tp, err := f.WS.Tape("opencode-k1L2m3N4")
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
	poll.Until(t, 10*time.Second, "the database's first import", has("prt_5a1f3c6f1004aAbBcCdDeEfF24"))
	if _, err := db.Exec(oneMoreReply); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "a reply written to the database, seen by the watch", has("prt_5a1f3d0a2098aAbBcCdDeEfF98"))
}

// A database source is imported through its mirror: a folder holding the
// database becomes the mirror's files, imported as transcripts are; an
// import again with nothing new in the database writes nothing; a reply
// added later is imported alone (decision 0097).
func TestImportThroughAMirror(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	db := writeOpenCodeDB(t, home)
	ws := newWorkspace(t, t.TempDir())
	imp := New(ws, opencode.Source{})
	var warned []string
	imp.Warn = func(err error) { warned = append(warned, err.Error()) }
	stats, err := imp.Import(ctx, []string{home})
	if err != nil {
		t.Fatal(err)
	}
	imported := 0
	for _, st := range stats {
		imported += st.Imported
		if !strings.Contains(st.File, filepath.Join(".tape", "import", "opencode")) {
			t.Errorf("imported %s, not a mirror file in the workspace", st.File)
		}
	}
	if len(stats) != 3 || imported == 0 || len(warned) != 0 {
		t.Fatalf("first import: %d transcripts, %d entries, warnings %v; want the 3 sessions", len(stats), imported, warned)
	}
	names, err := ws.Tapes()
	if err != nil || len(names) != 3 {
		t.Fatalf("tapes %v (%v), want 3", names, err)
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

	if _, err := db.Exec(oneMoreReply); err != nil {
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
	if imported != 2 {
		t.Errorf("after one reply was added: %d entries imported, want its run and its text", imported)
	}
}
