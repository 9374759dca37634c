package importer

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/claude"
)

// Checkpoints of versions 2 (JSON in <source>.json) and 3 (gob in
// <source>.gob) are read as they are: an import again after an upgrade
// reads no transcript from its start, and saves them as version 4 in
// place of the old file.
func TestCheckpointsOfOlderVersionsAreRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file    string
		version int
		encode  func(*checkpoints) ([]byte, error)
	}{
		{"claude.json", jsonVersion, func(cp *checkpoints) ([]byte, error) { return json.Marshal(cp) }},
		{"claude.gob", gobVersion, func(cp *checkpoints) ([]byte, error) {
			var buf bytes.Buffer
			err := gob.NewEncoder(&buf).Encode(cp)
			return buf.Bytes(), err
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			b := newBench(t)
			first, want := b.importClaudeFixtures(t)

			// What the older version wrote: the same checkpoints, in its form.
			cp, err := loadCheckpoints(b.ws, claude.Source{})
			if err != nil || len(cp.Files) != len(first) {
				t.Fatalf("checkpoints of %d files, %v; want %d", len(cp.Files), err, len(first))
			}
			cp.Version = tc.version
			data, err := tc.encode(cp)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(b.ws.Abs("import/"+tc.file), data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(b.ws.Abs("import/claude.checkpoints")); err != nil {
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
			if _, err := os.Stat(b.ws.Abs("import/" + tc.file)); !os.IsNotExist(err) {
				t.Errorf("version %d's checkpoints are still there: %v", tc.version, err)
			}
			again, err := loadCheckpoints(b.ws, claude.Source{})
			if err != nil || again.legacy || len(again.Files) != len(first) {
				t.Errorf("after the import: %d files, legacy %v, %v; want version 4's of %d", len(again.Files), again.legacy, err, len(first))
			}
		})
	}
}

// Checkpoints that cannot be decoded are none: the tapes say what was
// imported, and nothing is imported twice.
func TestUnreadableCheckpointsAreNone(t *testing.T) {
	t.Parallel()
	b := newBench(t)
	first, want := b.importClaudeFixtures(t)
	if err := os.WriteFile(b.ws.Abs("import/claude.checkpoints"), []byte("not checkpoints at all"), 0o600); err != nil {
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
	path := b.ws.Abs("import/claude.checkpoints")
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
