package log

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// newTestWorkspace initializes a workspace in a temp folder.
func newTestWorkspace(t *testing.T) *Workspace {
	t.Helper()
	ws, _, err := Init(t.TempDir())
	if err != nil {
		t.Fatalf("Init: %v", err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// openHandMade opens a workspace whose files the test writes by hand, as an
// agent without tape would: files maps paths under .tape to contents.
func openHandMade(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	dir := filepath.Join(t.TempDir(), DirName)
	for name, content := range files {
		writeTestFile(t, filepath.Join(dir, name), content)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustTape(t *testing.T, ws *Workspace, name string) *Tape {
	t.Helper()
	tp, err := ws.Tape(name)
	if err != nil {
		t.Fatalf("Tape(%q): %v", name, err)
	}
	return tp
}

// readAll reads a whole tape: its entries, and the lines it could not read.
func readAll(t *testing.T, tp *Tape) ([]Entry, []*LineError) {
	t.Helper()
	var entries []Entry
	var bad []*LineError
	for e, err := range tp.All(context.Background()) {
		var le *LineError
		switch {
		case errors.As(err, &le):
			bad = append(bad, le)
		case err != nil:
			t.Fatalf("read tape %s: %v", tp.Name(), err)
		default:
			entries = append(entries, e)
		}
	}
	return entries, bad
}

func ids(entries []Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.ID
	}
	return out
}
