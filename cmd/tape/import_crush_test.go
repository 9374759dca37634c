package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tape-dev/tape/internal/sqlitefile"
)

// writeCrushProject writes the database of the script (under
// testdata/import/crush) at <project>/.crush/crush.db, as Crush keeps a
// project's.
func writeCrushProject(t *testing.T, project, script string) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "..", "testdata", "import", "crush", script))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(project, ".crush"), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", sqlitefile.URI(filepath.Join(project, ".crush", "crush.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(text)); err != nil {
		t.Fatal(err)
	}
}

// TestImportCrushRoots: without a path, tape import crush reads the
// databases under Crush's global data folder, and those under the folders
// config.json's crush_roots names, which tape sources lists among the
// folders it looks in.
func TestImportCrushRoots(t *testing.T) {
	t.Parallel()
	home := agentsHome(t, "crush") // ~/.local/share/crush/.crush/crush.db: three sessions
	projects := t.TempDir()
	writeCrushProject(t, filepath.Join(projects, "cli"), "crush-0.1.sql") // one session of Crush 0.1
	dir := newCLIWorkspace(t)
	crushSources := func() map[string]any {
		stdout, stderr, code := tapeAt(t, dir, home, "sources", "--json")
		if code != exitOK {
			t.Fatalf("tape sources: exit %d: %s", code, stderr)
		}
		for _, r := range jsonRecords(t, stdout) {
			if r["source"] == "crush" {
				return r
			}
		}
		t.Fatalf("tape sources lists no crush:\n%s", stdout)
		return nil
	}
	if c := crushSources(); c["found"] != true || c["transcripts"] != 3.0 {
		t.Errorf("crush without roots: %v", c)
	}
	if _, stderr, code := tapeAt(t, dir, home, "import", "crush"); code != exitOK || !strings.Contains(stderr, "3 transcripts") {
		t.Fatalf("tape import crush: exit %d: %s", code, stderr)
	}
	config := filepath.Join(dir, ".tape", "config.json")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	roots := fmt.Sprintf(`{"crush_roots":[%q],`, projects)
	if err := os.WriteFile(config, []byte(strings.Replace(string(data), "{", roots, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := crushSources(); c["transcripts"] != 4.0 || !strings.Contains(fmt.Sprint(c["dirs"]), projects) {
		t.Errorf("crush with a root: %v", c)
	}
	_, stderr, code := tapeAt(t, dir, home, "import", "crush")
	if code != exitOK {
		t.Fatalf("tape import crush with a root: exit %d: %s", code, stderr)
	}
	stdout, _, _ := tapeAt(t, dir, home, "tapes", "--json")
	if !strings.Contains(stdout, `"name":"crush-e5f6a7b8"`) || strings.Count(stdout, `"source":"crush"`) != 4 {
		t.Errorf("tapes after an import with a root:\n%s", stdout)
	}
}
