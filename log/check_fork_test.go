package log

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// A merge killed after its first entry, then its tape reset with
// --archive: the anchor folder the merge began in is gone, and tape merge
// refuses to go on. Doctor's fix must be one that works: remove the
// journal and merge again (or discard), not "merge again", which the
// chaos test of issue 29 found doctor saying.
func TestCheckForkMergeAfterReset(t *testing.T) {
	ctx := context.Background()
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	defer tp.Close()
	if _, err := tp.Handoff(ctx, "work", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	id, err := tp.Fork(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ft, err := tp.OpenFork(id)
	if err != nil {
		t.Fatal(err)
	}
	forkIDs := ids(mustAppend(t, ft, msg("分支一"), msg("分支二")))
	ft.Close()
	killedMerge(t, tp, id, 2) // the journal, then one entry
	if _, err := tp.Reset(ctx, true); err != nil {
		t.Fatal(err)
	}
	if _, err := tp.Merge(ctx, id, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "which is gone") {
		t.Fatalf("merge after the reset: %v; the test needs one that refuses", err)
	}

	res, err := ws.CheckFiles(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var p *Problem
	for i := range res.Problems {
		if res.Problems[i].Check == CheckForkMerge {
			p = &res.Problems[i]
		}
	}
	if p == nil {
		t.Fatalf("no fork_merge problem in %v", res.Problems)
	}
	if !strings.Contains(p.Problem, "002_work, which is gone") || !strings.Contains(p.Fix, "rm '"+ws.Abs(p.Path)+"', then tape --tape main merge "+id) ||
		!strings.Contains(p.Fix, "tape --tape main discard "+id) {
		t.Errorf("problem %q, fix %q; want it to name 002_work as gone, and to remove the journal and merge, or discard", p.Problem, p.Fix)
	}
	// Doing what the fix says merges the fork: each entry once on the
	// tape (the one the killed merge wrote went to the archive).
	if err := os.Remove(ws.Abs(p.Path)); err != nil {
		t.Fatal(err)
	}
	if _, err := tp.Merge(ctx, id, MergeOptions{}); err != nil {
		t.Fatalf("merge after the fix: %v", err)
	}
	got := ids(mustRead(t, tp))
	for _, want := range forkIDs {
		if n := countOf(got, want); n != 1 {
			t.Errorf("fork entry %s is %d times on the tape after the fix, want once", want, n)
		}
	}
	if res, err := ws.CheckFiles(ctx, nil); err != nil || len(res.Problems) != 0 {
		t.Errorf("after the fix: %v, %v", res.Problems, err)
	}
}

// killedMerge runs a merge of fork id that stops after its n-th write, as
// a SIGKILL would stop it (the lines it wrote stay).
func killedMerge(t *testing.T, tp *Tape, id string, n int) {
	t.Helper()
	defer func() {
		if r := recover(); r != "killed" {
			t.Fatalf("the merge ended with %v, not killed after %d writes", r, n)
		}
	}()
	tp.Merge(context.Background(), id, MergeOptions{AfterWrite: func() {
		if n--; n == 0 {
			panic("killed")
		}
	}})
}

func countOf(s []string, v string) int {
	n := 0
	for i := slices.Index(s, v); i >= 0; i = slices.Index(s, v) {
		n++
		s = s[i+1:]
	}
	return n
}
