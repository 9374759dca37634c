package importer

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/claude"
	"github.com/tape-dev/tape/importer/codex"
	tapelog "github.com/tape-dev/tape/log"
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
			stale, err := os.ReadFile(b.ws.Abs("import/codex.checkpoints"))
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
			if err := os.WriteFile(b.ws.Abs("import/codex.checkpoints"), stale, 0o600); err != nil {
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

// A live session's tape that holds an entry of another writer (a note
// appended by hand) is still resumed where the last import stopped: only
// entries of the held lines on the tape make an import read the file
// again.
func TestLiveSessionWithANoteIsResumed(t *testing.T) {
	t.Parallel()
	name := strings.TrimPrefix(fixtures[0].rel, "claude/src/")
	data := fixtures[0].read(t)
	lines := bytes.SplitAfter(data, []byte("\n"))
	b := newBench(t)
	b.write(name, bytes.Join(lines[:4], nil))
	st := b.importAt(claude.Source{}, fresh)
	tp, err := b.ws.Tape(st[0].Tape)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tp.Append(context.Background(), tapelog.Entry{Kind: tapelog.KindMessage, Payload: []byte(`{"role":"user","content":"a note"}`)}); err != nil {
		t.Fatal(err)
	}
	// The note made the first imports after it read the file from its
	// start (nothing was written while the turn was held, so the tape's
	// mark stayed the note's); once a turn is written, each resumes.
	var again []int
	for n := 5; n <= len(lines)-1; n++ {
		b.write(name, bytes.Join(lines[:n], nil))
		st = b.importAt(claude.Source{}, fresh)
		if n >= 8 && st[0].Lines == n {
			again = append(again, n)
		}
	}
	if len(again) > 0 {
		t.Errorf("the imports of %v lines read the file from its start; want each resumed where the one before stopped", again)
	}
}
