package log

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TapesDir.CountForks counts what Workspace.CountForks counts, whatever
// the tape's folder is: forks (one merged away, one discarded), none, no
// folder, a file, a symlink to a tape with forks, a name that is no
// tape's, and a forks folder that is a file.
func TestTapesDirCountForks(t *testing.T) {
	ws := newTestWorkspace(t)
	ctx := context.Background()
	forked := mustTape(t, ws, "forked")
	mustAppend(t, forked, msg("one"))
	var ids []string
	for range 4 {
		id, err := forked.Fork(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if _, err := forked.Merge(ctx, ids[0], MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := forked.Discard(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	forked.Close()
	plain := mustTape(t, ws, "plain")
	mustAppend(t, plain, msg("two"))
	plain.Close()
	tapes := filepath.Join(ws.Dir(), "tapes")
	writeTestFile(t, filepath.Join(tapes, "a-file"), "not a folder")
	if err := os.Symlink("forked", filepath.Join(tapes, "link")); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(tapes, "odd", "forks"), "a file named forks")
	d, err := ws.OpenTapes()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, tape := range []string{"forked", "plain", "missing", "a-file", "link", "odd", "../forked", ".forked", ""} {
		if got, want := d.CountForks(tape), ws.CountForks(tape); got != want {
			t.Errorf("CountForks(%q) = %d; Workspace.CountForks says %d", tape, got, want)
		}
	}
	if n := d.CountForks("forked"); n != 2 {
		t.Errorf("forked has %d forks; want 2", n)
	}
}
