package importer

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/claude"
)

// Checkpoints of version 2, JSON in <source>.json, are read as they are:
// an import again after an upgrade reads no transcript from its start,
// and saves them as version 3 in place of the JSON.
func TestCheckpointsOfVersion2AreRead(t *testing.T) {
	t.Parallel()
	b := newBench(t)
	first, want := b.importClaudeFixtures(t)

	// What version 2 wrote: the same checkpoints, as JSON.
	cp, err := loadCheckpoints(b.ws, claude.Source{})
	if err != nil || len(cp.Files) != len(first) {
		t.Fatalf("checkpoints of %d files, %v; want %d", len(cp.Files), err, len(first))
	}
	cp.Version = legacyCheckpointVersion
	data, err := json.Marshal(cp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b.ws.Abs("import/claude.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(b.ws.Abs("import/claude.gob")); err != nil {
		t.Fatal(err)
	}

	for i, st := range b.importAt(claude.Source{}, quiet) {
		if !st.Unchanged || st.Imported != 0 || st.Skipped != 0 {
			t.Errorf("%s: %+v; want it unchanged, not read again (first import: %d entries)", st.File, st, first[i].Imported)
		}
	}
	if got := b.tapes(); got != want {
		t.Fatalf("the tapes changed:\n%s", got)
	}
	if _, err := os.Stat(b.ws.Abs("import/claude.json")); !os.IsNotExist(err) {
		t.Errorf("version 2's checkpoints are still there: %v", err)
	}
	again, err := loadCheckpoints(b.ws, claude.Source{})
	if err != nil || again.legacy || len(again.Files) != len(first) {
		t.Errorf("after the import: %d files, legacy %v, %v; want version 3's of %d", len(again.Files), again.legacy, err, len(first))
	}
}

// Checkpoints that cannot be decoded are none: the tapes say what was
// imported, and nothing is imported twice.
func TestUnreadableCheckpointsAreNone(t *testing.T) {
	t.Parallel()
	b := newBench(t)
	first, want := b.importClaudeFixtures(t)
	if err := os.WriteFile(b.ws.Abs("import/claude.gob"), []byte("not gob at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, st := range b.importAt(claude.Source{}, quiet) {
		if st.Imported != 0 || st.Skipped != first[i].Imported {
			t.Errorf("%s: imported %d, skipped %d; want 0 and %d", st.File, st.Imported, st.Skipped, first[i].Imported)
		}
	}
	if got := b.tapes(); got != want {
		t.Fatalf("the tapes changed:\n%s", got)
	}
}

// Checkpoints that cannot be read (as opposed to decoded) are an error,
// not none: reading every transcript again would hide it.
func TestCheckpointsThatCannotBeReadAreAnError(t *testing.T) {
	t.Parallel()
	b := newBench(t)
	b.importClaudeFixtures(t)
	path := b.ws.Abs("import/claude.gob")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil { // opens, and every read fails (EISDIR)
		t.Fatal(err)
	}
	im := New(b.ws, claude.Source{})
	_, err := im.Import(context.Background(), []string{b.src})
	if err == nil || !strings.Contains(err.Error(), "read the import checkpoints") {
		t.Fatalf("Import with checkpoints that cannot be read: %v; want an error that says so", err)
	}
}
