package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestImportGolden imports the hand-written transcripts of each case under
// testdata/import (src/, written from the formats Claude Code and Codex
// publish) into an empty workspace, runs the commands of the case, and
// compares what they print with want.txt (`go test ./cmd/tape -run
// TestImportGolden -update`). $SRC in a command is the copy of src/, and
// is printed as $SRC. The copies' mtimes are set back an hour, so a turn
// at the end of a transcript counts as finished, as it does on a machine
// where the agent stopped.
func TestImportGolden(t *testing.T) {
	t.Parallel()
	goldenCases(t, "../../testdata/import", func(t *testing.T, dir, commands string) string {
		root := t.TempDir()
		src := filepath.Join(root, "src")
		copySettled(t, filepath.Join(dir, "src"), src)
		ws := filepath.Join(root, ".tape")
		if err := os.Mkdir(ws, 0o700); err != nil {
			t.Fatal(err)
		}
		return runCommands(t, commands, root, ws, map[string]string{"$SRC": src})
	})
}

// copySettled copies the folder src to dst, and sets the files' mtimes an
// hour back.
func copySettled(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(path, past, past)
	})
	if err != nil {
		t.Fatal(err)
	}
}
