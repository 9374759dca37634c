package importer

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/mirrorfile/mirrortest"

	"github.com/tape-dev/tape/importer/opencode"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/testkit/poll"
)

// The database sources' tests of the driver: an import through the
// mirror, and a follower of a database (decision 0097). The helpers serve
// each source's (mirror_goose_test.go, mirror_crush_test.go).

// writeGoldenDB writes the database at path from the statements of the
// golden script testdata/import/<script>, and returns a connection that
// writes it.
func writeGoldenDB(t *testing.T, path, script string) *sql.DB {
	return mirrortest.NewDB(t, path, mirrortest.Read(t, filepath.Join("..", "testdata", "import", filepath.FromSlash(script))))
}

// exec runs statements on db, failing the test on an error.
func exec(t *testing.T, db *sql.DB, statements string) {
	t.Helper()
	if _, err := db.Exec(statements); err != nil {
		t.Fatal(err)
	}
}

// mirrorImport is a database source's import through its mirror: the
// first import of dir makes sessions transcripts, every one a mirror file
// in the workspace, without a warning; an import again with nothing new
// imports nothing; after change, the next import imports want entries.
type mirrorImport struct {
	src      source.Source
	dir      string
	sessions int
	change   func()
	want     int
	what     string // what change did, for the failure
}

func (m mirrorImport) check(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	imp := New(newWorkspace(t, t.TempDir()), m.src)
	var warned []string
	imp.Warn = func(err error) { warned = append(warned, err.Error()) }
	stats, err := imp.Import(ctx, []string{m.dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stats {
		if !strings.Contains(st.File, filepath.Join(".tape", "import", m.src.Name())) {
			t.Errorf("imported %s, not a mirror file in the workspace", st.File)
		}
	}
	if imported := importedOf(stats); len(stats) != m.sessions || imported == 0 || len(warned) != 0 {
		t.Fatalf("first import: %d transcripts, %d entries, warnings %v; want the %d sessions", len(stats), imported, warned, m.sessions)
	}
	again, err := imp.Import(ctx, []string{m.dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range again {
		if !st.Unchanged || st.Imported != 0 {
			t.Errorf("import again, nothing new: %+v", st)
		}
	}
	m.change()
	third, err := imp.Import(ctx, []string{m.dir})
	if err != nil {
		t.Fatal(err)
	}
	if imported := importedOf(third); imported != m.want {
		t.Errorf("after %s: %d entries imported, want %d", m.what, imported, m.want)
	}
}

func importedOf(stats []FileStats) int {
	n := 0
	for _, st := range stats {
		n += st.Imported
	}
	return n
}

// followDatabase runs a follower of src's folder dir until the test ends,
// waits for the first import to put the entry first on tape, then runs
// change and waits for the entry next: a write to the database seen by
// the watch, not by a reconcile (an hour away).
func followDatabase(t *testing.T, src source.Source, dir, tape, first string, change func(), next string) {
	t.Helper()
	f := &Follower{WS: newWorkspace(t, t.TempDir()), Dirs: map[source.Source][]string{src: {dir}},
		Reconcile: time.Hour, Warn: func(err error) { t.Errorf("follower: %v", err) }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	defer func() { cancel(); <-done }()
	has := func(id string) func() bool {
		return func() bool {
			tp, err := f.WS.Tape(tape)
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
	poll.Until(t, 10*time.Second, "the database's first import", has(first))
	change()
	poll.Until(t, 10*time.Second, "an entry written to the database, seen by the watch", has(next))
}

// oneMoreReply is a completed reply of the subagent's session, added to
// the golden OpenCode database: two entries, its run and its text.
const oneMoreReply = `INSERT INTO message VALUES ('msg_5a1f3d0a2099aAbBcCdDeEfF99', 'ses_5a1f3c6f0ffeH8i9J0k1L2m3N4', 1764300040000, 1764300041000,
	'{"role":"assistant","time":{"created":1764300040000,"completed":1764300041000},"modelID":"claude-haiku-4-5","tokens":{"input":5,"output":7,"cache":{"read":0,"write":0}}}');
	INSERT INTO part VALUES ('prt_5a1f3d0a2098aAbBcCdDeEfF98', 'msg_5a1f3d0a2099aAbBcCdDeEfF99', 'ses_5a1f3c6f0ffeH8i9J0k1L2m3N4', 1764300040500, 1764300040500,
	'{"type":"text","text":"one more reply, 再来一个"}')`

// A followed OpenCode database: a write to it (its WAL) is imported
// through the mirror as it happens.
func TestFollowerFollowsADatabase(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	db := writeGoldenDB(t, filepath.Join(home, "opencode.db"), "opencode/opencode.sql")
	followDatabase(t, opencode.Source{}, home, "opencode-k1L2m3N4", "prt_5a1f3c6f1004aAbBcCdDeEfF24",
		func() { exec(t, db, oneMoreReply) }, "prt_5a1f3d0a2098aAbBcCdDeEfF98")
}

// An OpenCode database is imported through its mirror: a folder holding
// the database becomes the mirror's files; a reply added later is
// imported alone.
func TestImportThroughAMirror(t *testing.T) {
	home := t.TempDir()
	db := writeGoldenDB(t, filepath.Join(home, "opencode.db"), "opencode/opencode.sql")
	mirrorImport{src: opencode.Source{}, dir: home, sessions: 3,
		change: func() { exec(t, db, oneMoreReply) }, want: 2, what: "one reply was added (its run and its text)"}.check(t)
}
