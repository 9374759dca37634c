package importer

import (
	"os"
	"testing"

	"github.com/tape-dev/tape/importer/codex"
)

// An import checkpoints a transcript that has made no entry yet (empty,
// or half its first line written): the checkpoint names no tape. The
// next import writes the tape and is killed before it saves its
// checkpoints. The import after that must not trust the old checkpoint
// for a tape it does not name: it appends nothing twice. (The chaos test
// of issue 29 found every entry of such a Codex tape written twice.)
func TestCheckpointOfNoTapeImportsNothingTwice(t *testing.T) {
	t.Parallel()
	data := fixtures[2].read(t)
	name := "s/rollout-x-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl"
	for _, tt := range []struct {
		name  string
		start []byte
	}{
		{"empty transcript", nil},
		{"half a first line", data[:30]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := newBench(t)
			b.write(name, tt.start)
			if st := b.importAt(codex.Source{}, quiet); st[0].Imported != 0 {
				t.Fatalf("the first import imported %d entries; the test needs none", st[0].Imported)
			}
			stale, err := os.ReadFile(b.ws.Abs("import/codex.gob"))
			if err != nil {
				t.Fatal(err)
			}
			b.write(name, data)
			b.importAt(codex.Source{}, quiet)
			want := b.tapes()
			if want == "" {
				t.Fatal("the second import wrote no tape")
			}
			// The second import killed before it saved its checkpoints.
			if err := os.WriteFile(b.ws.Abs("import/codex.gob"), stale, 0o600); err != nil {
				t.Fatal(err)
			}
			st := b.importAt(codex.Source{}, quiet)
			if got := b.tapes(); got != want {
				t.Fatalf("the tapes changed: imported %d, skipped %d; now %d bytes, were %d", st[0].Imported, st[0].Skipped, len(got), len(want))
			}
			if st[0].Imported != 0 || st[0].Skipped == 0 {
				t.Errorf("stats %+v; want everything skipped", st[0])
			}
		})
	}
}
