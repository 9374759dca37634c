package importer

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// lineCut is a place in data just after one of its newlines, at random.
func lineCut(r *rand.Rand, data []byte, from int) int {
	var ends []int
	for i := from; i < len(data); i++ {
		if data[i] == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 {
		return len(data)
	}
	return ends[r.IntN(len(ends))]
}

// An import that wrote a held turn once its file was quiet (a flush) and
// was killed before its checkpoint leaves tapes that the next import,
// reading the file from its start, must take as they are: the turn's
// lines written since are entries of their own, as they are after a
// flush whose checkpoint was saved. Found by the chaos test: the turn
// was written a second time under the same ids.
func TestKilledFlushIsNotWrittenAgain(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(34, 2026))
	trials := 4
	if testing.Short() {
		trials = 1 // the race detector's pass: each fixture once
	}
	for _, fx := range fixtures {
		if !strings.HasSuffix(fx.rel, ".jsonl") {
			// A document (Amp's threads, Gemini's sessions) is written
			// over whole, not grown: a flush of part of one is followed
			// by a new file, not by its rest.
			continue
		}
		data := fx.read(t)
		rel := strings.TrimPrefix(fx.rel, strings.SplitN(fx.rel, "/", 3)[0]+"/src/")
		for trial := range trials {
			first := lineCut(r, data, 0)
			second := lineCut(r, data, first)
			steps := func(b *bench, killed bool) string {
				b.write(rel, data[:first])
				b.importAt(fx.format, quiet) // a held turn at the cut is flushed
				if killed {
					if err := os.Remove(b.ws.Abs("import/" + fx.format.Name() + ".checkpoints")); err != nil {
						t.Fatal(err)
					}
				}
				b.write(rel, data[:second])
				b.importAt(fx.format, fresh) // the turn goes on, held
				b.write(rel, data)
				b.importAt(fx.format, quiet)
				return b.tapes()
			}
			want := steps(newBench(t), false)
			got := steps(newBench(t), true)
			if got != want {
				t.Fatalf("%s, trial %d, cut at %d and %d: after a killed import the tapes differ from those after one that saved its checkpoint:\n%s", fx.rel, trial, first, second, lineDiff(got, want))
			}
		}
	}
}

// lineDiff lists the lines only got has (+) and only want has (-).
func lineDiff(got, want string) string {
	count := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		count[l]++
	}
	var out strings.Builder
	for _, l := range strings.Split(got, "\n") {
		if count[l]--; count[l] < 0 {
			out.WriteString("+ " + l + "\n")
		}
	}
	for l, n := range count {
		for ; n > 0; n-- {
			out.WriteString("- " + l + "\n")
		}
	}
	return out.String()
}
