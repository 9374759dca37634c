package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Aider keeps no folder of its own: without ~/.aider and config.json's
// aider_roots it is not found, and tape says where to name its folders;
// with aider_roots, `tape import aider`, `tape sources` and `tape import`
// look there.
func TestImportAiderFromConfigRoots(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := newCLIWorkspace(t)
	_, stderr, code := tapeAt(t, dir, home, "import", "aider")
	if code == exitOK || !strings.Contains(stderr, "config.json's aider_roots") {
		t.Fatalf("tape import aider with nowhere to look: exit %d: %s", code, stderr)
	}
	projects := filepath.Join(t.TempDir(), "code")
	copySettled(t, filepath.Join("..", "..", "testdata", "import", "aider", "src"), projects)
	cfgPath := filepath.Join(dir, ".tape", "config.json")
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["aider_roots"] = []string{projects}
	if data, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, _, _ := tapeAt(t, dir, home, "sources", "--json")
	var found bool
	for _, r := range jsonRecords(t, stdout) {
		if r["source"] == "aider" {
			found = r["found"] == true && r["transcripts"] == 4.0 && len(r["present"].([]any)) == 1
		}
	}
	if !found {
		t.Errorf("tape sources --json: aider not found with 4 transcripts in %s:\n%s", projects, stdout)
	}
	_, stderr, code = tapeAt(t, dir, home, "import")
	if code != exitUsage || !strings.Contains(stderr, "tape: aider: 4 transcripts, 7 tapes") {
		t.Errorf("tape import: exit %d: %s", code, stderr)
	}
}
