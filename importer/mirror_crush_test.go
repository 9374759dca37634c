package importer

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/crush"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/sqlitefile"
	"github.com/tape-dev/tape/testkit/poll"
)

// writeCrushDB writes the golden Crush database at <project>/.crush/
// crush.db (WAL, as Crush keeps it) and returns a connection that writes
// it.
func writeCrushDB(t *testing.T, project string) *sql.DB {
	t.Helper()
	script, err := os.ReadFile("../testdata/import/crush/crush.sql")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(project, ".crush")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", sqlitefile.URI(filepath.Join(dir, "crush.db"))+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatal(err)
	}
	return db
}

// crushReply is a finished reply of the subagent's task, added to the
// golden database: two entries, its text and its run.
const crushReply = `INSERT INTO messages VALUES ('7c2e00ff-1a2b-4c3d-8e9f-a0b1c2d3e4f5', '7c2e0004-1a2b-4c3d-8e9f-a0b1c2d3e4f5$$toolu_03Agent', 'assistant',
	'[{"type":"text","data":{"text":"one more reply, 再来一个"}},{"type":"finish","data":{"reason":"end_turn","time":1764300042}}]',
	'claude-haiku-4-5', 1764300040, 1764300042, 1764300042, 'anthropic', 0)`

// projectsJSON writes Crush's projects.json into the global data folder
// global, naming the project.
func projectsJSON(t *testing.T, global, project string) {
	t.Helper()
	if err := os.MkdirAll(global, 0o700); err != nil {
		t.Fatal(err)
	}
	list := `{"projects":[{"path":"` + project + `","data_dir":"` + filepath.Join(project, ".crush") + `","last_accessed":"2025-11-28T03:20:00Z"}]}`
	if err := os.WriteFile(filepath.Join(global, "projects.json"), []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Crush's global data folder is imported through the mirror of each
// database its projects.json names; an import again with nothing new
// writes nothing; a reply added later is imported alone.
func TestImportThroughACrushMirror(t *testing.T) {
	ctx := context.Background()
	global, project := t.TempDir(), t.TempDir()
	db := writeCrushDB(t, project)
	projectsJSON(t, global, project)
	ws := newWorkspace(t, t.TempDir())
	imp := New(ws, crush.Source{})
	var warned []string
	imp.Warn = func(err error) { warned = append(warned, err.Error()) }
	stats, err := imp.Import(ctx, []string{global})
	if err != nil {
		t.Fatal(err)
	}
	imported := 0
	for _, st := range stats {
		imported += st.Imported
		if !strings.Contains(st.File, filepath.Join(".tape", "import", "crush")) {
			t.Errorf("imported %s, not a mirror file in the workspace", st.File)
		}
	}
	if len(stats) != 3 || imported == 0 || len(warned) != 0 {
		t.Fatalf("first import: %d transcripts, %d entries, warnings %v; want the 3 sessions", len(stats), imported, warned)
	}
	again, err := imp.Import(ctx, []string{global})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range again {
		if !st.Unchanged || st.Imported != 0 {
			t.Errorf("import again, nothing new: %+v", st)
		}
	}
	if _, err := db.Exec(crushReply); err != nil {
		t.Fatal(err)
	}
	third, err := imp.Import(ctx, []string{global})
	if err != nil {
		t.Fatal(err)
	}
	imported = 0
	for _, st := range third {
		imported += st.Imported
	}
	if imported != 2 {
		t.Errorf("after one reply was added: %d entries imported, want its text and its run", imported)
	}
}

// A followed Crush data folder: a write to a database its projects.json
// names, outside the folder, is imported as it happens, not at the next
// reconcile.
func TestFollowerFollowsACrushDatabase(t *testing.T) {
	t.Parallel()
	global, project := t.TempDir(), t.TempDir()
	db := writeCrushDB(t, project)
	projectsJSON(t, global, project)
	f := &Follower{WS: newWorkspace(t, t.TempDir()), Dirs: map[source.Source][]string{crush.Source{}: {global}},
		Reconcile: time.Hour, Warn: func(err error) { t.Errorf("follower: %v", err) }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	defer func() { cancel(); <-done }()
	has := func(id string) func() bool {
		return func() bool {
			tp, err := f.WS.Tape("crush-7c2e0004")
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
	poll.Until(t, 10*time.Second, "the database's first import", has("7c2e0017-1a2b-4c3d-8e9f-a0b1c2d3e4f5"))
	if _, err := db.Exec(crushReply); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "a reply written to the database, seen by the watch", has("7c2e00ff-1a2b-4c3d-8e9f-a0b1c2d3e4f5"))
}
