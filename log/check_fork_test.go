package log

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// A merge killed after its first entry, then its tape reset with
// --archive: the anchor the merge began in is gone, and tape merge
// refuses to go on, whether the reset moved the folder away (002_work)
// or made a new one of its name (the bootstrap 001_session-start). Run
// again and killed again, the merge never writes into the new folder, and
// doctor's fix is one that works: remove the journal and merge again (or
// discard), not "merge again", which refuses. The chaos test of issue 29
// found doctor saying "merge again"; and a merge going on into the new
// 001_session-start, killed there, then run to its end, wrote entries
// twice (it looked for what it had written only past the old folder's
// size).
func TestCheckForkMergeAfterReset(t *testing.T) {
	for _, tt := range []struct {
		name    string
		handoff bool // the merge begins in 002_work, else in 001_session-start
		base    string
	}{
		{"folder moved away", true, "002_work"},
		{"folder of the same name", false, "001_session-start"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			ws := newTestWorkspace(t)
			tp := mustTape(t, ws, "main")
			defer tp.Close()
			mustAppend(t, tp, msg(strings.Repeat("the parent's words ", 200)))
			if tt.handoff {
				if _, err := tp.Handoff(ctx, "work", json.RawMessage(`{}`)); err != nil {
					t.Fatal(err)
				}
			}
			id, err := tp.Fork(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ft, err := tp.OpenFork(id)
			if err != nil {
				t.Fatal(err)
			}
			forkIDs := ids(mustAppend(t, ft, msg("分支一"), msg("分支二"), msg("分支三")))
			ft.Close()
			if !killedMerge(t, tp, id, 2) { // the journal, then one entry
				t.Fatal("the first merge was not killed")
			}
			if _, err := tp.Reset(ctx, true); err != nil {
				t.Fatal(err)
			}
			for range 3 { // run again, and killed after one entry, if it writes one
				killedMerge(t, tp, id, 1)
			}
			if _, err := tp.Merge(ctx, id, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "which is gone") {
				t.Fatalf("merge after the reset: %v; want it to refuse", err)
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
			if !strings.Contains(p.Problem, tt.base+", which is gone") || !strings.Contains(p.Fix, "rm '"+ws.Abs(p.Path)+"', then tape --tape main merge "+id) ||
				!strings.Contains(p.Fix, "tape --tape main discard "+id) {
				t.Errorf("problem %q, fix %q; want it to name %s as gone, and to remove the journal and merge, or discard", p.Problem, p.Fix, tt.base)
			}
			// Doing what the fix says merges the fork: each entry once on
			// the tape (the one the killed merge wrote went to the archive).
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
		})
	}
}

// killedMerge runs a merge of fork id that stops after its n-th write, as
// a SIGKILL would stop it (what it wrote stays), and reports whether it
// stopped so; a merge that refused or ended before is no failure.
func killedMerge(t *testing.T, tp *Tape, id string, n int) (killed bool) {
	t.Helper()
	defer func() {
		switch r := recover(); r {
		case nil:
		case "killed":
			killed = true
		default:
			panic(r)
		}
	}()
	tp.Merge(context.Background(), id, MergeOptions{AfterWrite: func() {
		if n--; n == 0 {
			panic("killed")
		}
	}})
	return false
}

func countOf(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}
