package importer

import (
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/gemini"
)

// An import that resumes from a checkpoint trusts its tape and reads
// none of its ids; a converter's Replay entries (a record the agent wrote
// again, which an earlier import made entries of) make it read them once,
// and those on the tape are skipped, not written twice.
func TestReplayedEntriesAreNotWrittenTwice(t *testing.T) {
	t.Parallel()
	const rel = "p/chats/session-2026-05-10T14-20-c3d5e7f9.jsonl"
	first := strings.Join([]string{
		`{"sessionId":"c3d5e7f9-1a2b-4c3d-8e4f-5a6b7c8d9e0f","projectHash":"p"}`,
		`{"id":"u1","timestamp":"2026-05-10T14:20:05Z","type":"user","content":"count the TODOs"}`,
		`{"id":"g1","timestamp":"2026-05-10T14:20:11Z","type":"gemini","content":"two","model":"m","tokens":{"input":50,"output":3}}`,
		`{"id":"u2","timestamp":"2026-05-10T14:20:30Z","type":"user","content":"thanks"}`,
	}, "\n") + "\n"
	again := strings.Join([]string{
		// g1 written again (Gemini CLI 0.39 to 0.43 masked its output so),
		// and the history replaced by a $set: all on the tape already,
		// but for the summary s1.
		`{"id":"g1","timestamp":"2026-05-10T14:20:11Z","type":"gemini","content":"two","model":"m","tokens":{"input":50,"output":3}}`,
		`{"$set":{"messages":[{"id":"s1","type":"user","content":"summary: two TODOs"},{"id":"u2","type":"user","content":"thanks"}]}}`,
	}, "\n") + "\n"
	b := newBench(t)
	b.write(rel, []byte(first))
	st := b.importAt(gemini.Source{}, quiet)
	if st[0].Imported != 5 { // the anchor, u1, g1, its run, u2
		t.Fatalf("first import: %+v", st[0])
	}
	b.write(rel, []byte(first+again))
	st = b.importAt(gemini.Source{}, quiet)
	// The anchor "history" and s1 are new; g1, its run and u2 are on the tape.
	if st[0].Imported != 2 || st[0].Skipped != 3 {
		t.Fatalf("second import: imported %d, skipped %d; want 2 and 3", st[0].Imported, st[0].Skipped)
	}
	tapes := b.tapes()
	for _, id := range []string{`"id":"g1"`, `"id":"u2"`, `"id":"g1/usage/`, `"id":"s1"`} {
		if n := strings.Count(tapes, id); n != 1 {
			t.Errorf("%s is on the tape %d times:\n%s", id, n, tapes)
		}
	}
	if len(b.bad) != 0 {
		t.Errorf("warnings %v", b.bad)
	}
}
