package importer

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/tape-dev/tape/importer/crush"
)

// writeCrushDB writes the golden Crush database at <project>/.crush/
// crush.db and returns a connection that writes it.
func writeCrushDB(t *testing.T, project string) *sql.DB {
	return writeGoldenDB(t, filepath.Join(project, ".crush", "crush.db"), "crush/crush.sql")
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
	global, project := t.TempDir(), t.TempDir()
	db := writeCrushDB(t, project)
	projectsJSON(t, global, project)
	mirrorImport{src: crush.Source{}, dir: global, sessions: 3,
		change: func() { exec(t, db, crushReply) }, want: 2, what: "one reply was added (its text and its run)"}.check(t)
}

// A followed Crush data folder: a write to a database its projects.json
// names, outside the folder, is imported as it happens, not at the next
// reconcile.
func TestFollowerFollowsACrushDatabase(t *testing.T) {
	t.Parallel()
	global, project := t.TempDir(), t.TempDir()
	db := writeCrushDB(t, project)
	projectsJSON(t, global, project)
	followDatabase(t, crush.Source{}, global, "crush-7c2e0004", "7c2e0017-1a2b-4c3d-8e9f-a0b1c2d3e4f5",
		func() { exec(t, db, crushReply) }, "7c2e00ff-1a2b-4c3d-8e9f-a0b1c2d3e4f5")
}
