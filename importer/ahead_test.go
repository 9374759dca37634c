package importer

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/claude"
)

// An import again of more transcripts than statFiles stats alone: what did
// not change is not read again, what grew is read from its checkpoint,
// and a transcript whose tape was removed is read again into a new one.
func TestImportAgainStatsAhead(t *testing.T) {
	t.Parallel()
	b := newBench(t)
	n := 3 * aheadWorkers
	line := func(i, j int, id string) []byte {
		return fmt.Appendf(nil, `{"type":"user","uuid":"u%d-%d","sessionId":"%s","timestamp":"2025-11-03T14:05:%02dZ","message":{"role":"user","content":"hi %d"}}`+"\n", i, j, id, j, j)
	}
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("%08x-0000-4000-8000-000000000000", i)
		b.write("p/"+ids[i]+".jsonl", line(i, 0, ids[i]))
	}
	first := b.importAt(claude.Source{}, quiet)
	if len(first) != n {
		t.Fatalf("imported %d transcripts, want %d", len(first), n)
	}
	for _, st := range b.importAt(claude.Source{}, quiet) {
		if !st.Unchanged {
			t.Errorf("%s: %+v; want it unchanged", st.File, st)
		}
	}

	grown, gone := 3, 7
	b.write("p/"+ids[grown]+".jsonl", append(line(grown, 0, ids[grown]), line(grown, 1, ids[grown])...))
	if err := os.RemoveAll(b.ws.Abs("tapes/" + first[gone].Tape)); err != nil {
		t.Fatal(err)
	}
	for i, st := range b.importAt(claude.Source{}, quiet) {
		switch {
		case i == grown && (st.Unchanged || st.Imported != 1 || st.Skipped != 0):
			t.Errorf("the grown transcript: %+v; want its one new line imported", st)
		case i == gone && (st.Unchanged || st.Imported != first[gone].Imported):
			t.Errorf("the transcript whose tape was removed: %+v; want its %d entries imported again", st, first[gone].Imported)
		case i != grown && i != gone && !st.Unchanged:
			t.Errorf("%s: %+v; want it unchanged", st.File, st)
		}
	}
}

// Two transcripts of one session, far apart in an import, and their tape
// removed: the first is read again and makes the tape anew, and the
// second, though unchanged and its tape there again, is read again too,
// or its entries would be lost.
func TestImportAgainRewritesATapeOfTwoTranscripts(t *testing.T) {
	t.Parallel()
	b := newBench(t)
	id := "77777777-0000-4000-8000-000000000000"
	b.write("a/"+id+".jsonl", []byte(`{"type":"user","uuid":"a1","sessionId":"`+id+`","timestamp":"2025-11-03T14:05:00Z","message":{"role":"user","content":"from a"}}`+"\n"))
	for i := range 3 * aheadWorkers { // enough to stat ahead, and more than the pipeline reads ahead
		other := fmt.Sprintf("%08x-0000-4000-8000-000000000001", i)
		b.write(fmt.Sprintf("m/%s.jsonl", other), []byte(`{"type":"user","uuid":"m`+other+`","sessionId":"`+other+`","timestamp":"2025-11-03T14:05:00Z","message":{"role":"user","content":"other"}}`+"\n"))
	}
	b.write("z/"+id+".jsonl", []byte(`{"type":"user","uuid":"z1","sessionId":"`+id+`","timestamp":"2025-11-03T14:06:00Z","message":{"role":"user","content":"from z"}}`+"\n"))
	first := b.importAt(claude.Source{}, quiet)
	tape := first[0].Tape
	if first[len(first)-1].Tape != tape {
		t.Fatalf("the two transcripts went to %s and %s; want one tape", tape, first[len(first)-1].Tape)
	}
	if err := os.RemoveAll(b.ws.Abs("tapes/" + tape)); err != nil {
		t.Fatal(err)
	}
	b.importAt(claude.Source{}, quiet)
	all := b.tapes()
	for _, want := range []string{"from a", "from z"} {
		if !strings.Contains(all, want) {
			t.Errorf("tape %s after importing again holds no %q:\n%s", tape, want, all)
		}
	}
}
