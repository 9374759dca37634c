package log

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// forkFixture makes a tape with two entries and a fork holding entries
// before and after an anchor of its own, plus one parent entry appended
// after the fork started. It returns the fork id, the parent's ids before
// the merge, and the fork's ids (anchor included) in order.
func forkFixture(t *testing.T, ws *Workspace) (id string, parent, fork []string) {
	t.Helper()
	ctx := context.Background()
	tp := mustTape(t, ws, "main")
	defer tp.Close()
	mustAppend(t, tp, msg("before the fork"), Entry{Kind: "event", Payload: json.RawMessage(`{"n":1}`)})
	id, err := tp.Fork(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ft, err := tp.OpenFork(id)
	if err != nil {
		t.Fatal(err)
	}
	defer ft.Close()
	out := mustAppend(t, ft, msg("分支里的第一条"), Entry{Kind: KindToolCall, Payload: json.RawMessage(`{"tool":"ls"}`)})
	a, err := ft.Handoff(ctx, "审查/review", json.RawMessage(`{"summary":"fork phase"}`))
	if err != nil {
		t.Fatal(err)
	}
	out2 := mustAppend(t, ft, msg("after the fork's anchor"), msg("第二条"))
	mustAppend(t, tp, msg("parent, meanwhile"))
	fork = append(ids(out), a.Entry.ID)
	fork = append(fork, ids(out2)...)
	entries, _ := readAll(t, tp)
	return id, ids(entries), fork
}

func mustAppend(t *testing.T, tp *Tape, es ...Entry) []Entry {
	t.Helper()
	out, err := tp.Append(context.Background(), es...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestForkMerge(t *testing.T) {
	ws := newTestWorkspace(t)
	id, parent, fork := forkFixture(t, ws)
	tp := mustTape(t, ws, "main")
	for _, got := range ids(mustRead(t, tp)) {
		if slices.Contains(fork, got) {
			t.Fatalf("the parent shows fork entry %s before the merge", got)
		}
	}
	res, err := tp.Merge(context.Background(), id, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Entries != 4 || res.Anchors != 1 || res.Skipped != 0 {
		t.Errorf("Merge = %+v, want 4 entries, 1 anchor, 0 skipped", res)
	}
	entries := mustRead(t, tp)
	if want := append(slices.Clone(parent), fork...); !slices.Equal(ids(entries), want) {
		t.Errorf("after the merge:\n got %v\nwant %v", ids(entries), want)
	}
	last := entries[len(entries)-3]
	if last.Kind != KindAnchor || last.Pos.Folder != "002_审查-review" || last.Pos.Anchor != "审查/review" {
		t.Errorf("the fork's anchor became %+v, want folder 002_审查-review", last.Pos)
	}
	if _, err := os.Stat(filepath.Join(ws.Dir(), "tapes/main/forks", id)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the merged fork's folder is still there (%v)", err)
	}
	if _, err := tp.Merge(context.Background(), id, MergeOptions{}); !errors.Is(err, ErrNoFork) {
		t.Errorf("merging it again: %v, want ErrNoFork", err)
	}
}

// errKilled stands for a kill in TestMergeInterruptedEverywhere.
var errKilled = errors.New("killed")

// TestMergeInterruptedEverywhere stops a merge dead (a panic: nothing of
// the merge runs after it but the deferred unlock and closes, as when a
// process dies) after each of its changes in turn, and runs it again:
// every entry must be in the parent once, in order.
func TestMergeInterruptedEverywhere(t *testing.T) {
	const changes = 7 // the journal, 4 entries, 1 anchor folder, the rename of the fork
	for stop := 1; stop <= changes; stop++ {
		ws := newTestWorkspace(t)
		id, parent, fork := forkFixture(t, ws)
		tp := mustTape(t, ws, "main")
		n := 0
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = r.(error)
				}
			}()
			_, err = tp.Merge(context.Background(), id, MergeOptions{AfterWrite: func() {
				if n++; n == stop {
					panic(errKilled)
				}
			}})
			return err
		}()
		if !errors.Is(err, errKilled) {
			t.Fatalf("stop %d: the merge was not stopped: %v (%d changes)", stop, err, n)
		}
		res, err := tp.Merge(context.Background(), id, MergeOptions{})
		if err != nil {
			t.Fatalf("stop %d: merging again: %v", stop, err)
		}
		if done := res.Skipped + res.Entries + res.Anchors; !res.Finished && done != 5 {
			t.Errorf("stop %d: second run %+v does not account for the 5 entries and anchors", stop, res)
		}
		if res.Finished != (stop == changes) {
			t.Errorf("stop %d: Finished = %v", stop, res.Finished)
		}
		if want := append(slices.Clone(parent), fork...); !slices.Equal(ids(mustRead(t, tp)), want) {
			t.Errorf("stop %d:\n got %v\nwant %v", stop, ids(mustRead(t, tp)), want)
		}
		if forks, _ := os.ReadDir(filepath.Join(ws.Dir(), "tapes/main/forks")); len(forks) != 0 {
			t.Errorf("stop %d: left in forks/: %v", stop, forks)
		}
	}
}

func TestMergeFinishesRemoval(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	left := filepath.Join(ws.Dir(), "tapes/main/forks", mergedPrefix+"01ABC")
	writeTestFile(t, filepath.Join(left, "anchors/000_fork/messages.jsonl"), `{"kind":"message","payload":{}}`+"\n")
	res, err := tp.Merge(context.Background(), "01ABC", MergeOptions{})
	if err != nil || !res.Finished {
		t.Fatalf("Merge = %+v, %v; want the removal finished", res, err)
	}
	if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there (%v)", left, err)
	}
}

func TestForkIDsStayInside(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	for _, id := range []string{"", ".", "..", "../main", "a/b", `a\b`, ".merged-x", "x\n"} {
		if _, err := tp.OpenFork(id); !errors.Is(err, ErrBadName) {
			t.Errorf("OpenFork(%q) = %v, want ErrBadName", id, err)
		}
		if _, err := tp.Merge(context.Background(), id, MergeOptions{}); !errors.Is(err, ErrBadName) {
			t.Errorf("Merge(%q) = %v, want ErrBadName", id, err)
		}
		if err := tp.Discard(context.Background(), id); !errors.Is(err, ErrBadName) {
			t.Errorf("Discard(%q) = %v, want ErrBadName", id, err)
		}
	}
	if _, err := tp.OpenFork("01NOSUCHFORK"); !errors.Is(err, ErrNoFork) {
		t.Errorf("OpenFork of a missing fork = %v, want ErrNoFork", err)
	}
}

func TestDiscard(t *testing.T) {
	ws := newTestWorkspace(t)
	id, parent, _ := forkFixture(t, ws)
	tp := mustTape(t, ws, "main")
	if err := tp.Discard(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if got := ids(mustRead(t, tp)); !slices.Equal(got, parent) {
		t.Errorf("after discard: got %v, want %v", got, parent)
	}
	if forks, err := tp.Forks(); err != nil || len(forks) != 0 {
		t.Errorf("Forks = %v, %v; want none", forks, err)
	}
	if err := tp.Discard(context.Background(), id); !errors.Is(err, ErrNoFork) {
		t.Errorf("discarding it again: %v, want ErrNoFork", err)
	}
}

// ForkTape finds the tape that holds a fork, and none for an id no tape
// holds; the error of a fork not found names the tape's forks one by one.
func TestForkTape(t *testing.T) {
	ws := newTestWorkspace(t)
	id, _, _ := forkFixture(t, ws)
	other := mustTape(t, ws, "other")
	defer other.Close()
	mustAppend(t, other, msg("another tape"))
	if got, err := ws.ForkTape(id); err != nil || got != "main" {
		t.Errorf("ForkTape(%s) = %q, %v; want main", id, got, err)
	}
	if got, err := ws.ForkTape("01JD8Z5N0QF3KJ6W2M1T7XG4BC"); err != nil || got != "" {
		t.Errorf("ForkTape of no fork = %q, %v; want none", got, err)
	}
	if _, err := ws.ForkTape("../main"); err == nil {
		t.Error("ForkTape(../main): no error")
	}
	_, err := other.OpenFork(id)
	if !errors.Is(err, ErrNoFork) || !strings.Contains(err.Error(), "(no forks)") {
		t.Errorf("OpenFork on a tape without forks = %v", err)
	}
	tp := mustTape(t, ws, "main")
	defer tp.Close()
	_, err = tp.OpenFork("01JD8Z5N0QF3KJ6W2M1T7XG4BC")
	if err == nil || !strings.Contains(err.Error(), "(forks: "+id+")") {
		t.Errorf("OpenFork of a missing fork = %v; want its tape's forks listed", err)
	}
}

func mustRead(t *testing.T, tp *Tape) []Entry {
	t.Helper()
	entries, bad := readAll(t, tp)
	if len(bad) > 0 {
		t.Fatalf("bad lines: %v", bad)
	}
	return entries
}

// A fork with a line that cannot be read is not merged at all: merging
// without the line would lose it silently.
func TestMergeRefusesBadLine(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	id, err := tp.Fork(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before := ids(mustRead(t, tp))
	writeTestFile(t, filepath.Join(ws.Dir(), "tapes/main/forks", id, "anchors/000_fork/messages.jsonl"),
		`{"kind":"message","payload":{"content":"好"}}`+"\n"+`{"kind":`+"\n")
	if _, err := tp.Merge(context.Background(), id, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "merge again") {
		t.Fatalf("Merge = %v, want a refusal naming the bad line", err)
	}
	if got := ids(mustRead(t, tp)); !slices.Equal(got, before) {
		t.Errorf("a refused merge wrote %v", got)
	}
}

// Entries merged from two forks, or carrying ids the parent already has,
// are never taken for entries an earlier run merged (review: a hand-written
// line of a second fork, and a Bub integer id, were dropped).
func TestMergeKeepsEntriesWhoseIDsRepeat(t *testing.T) {
	ctx := context.Background()
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	defer tp.Close()
	mustAppend(t, tp, Entry{ID: "2", Kind: KindMessage, Payload: json.RawMessage(`{"role":"user","content":"parent two"}`)})
	handWrite := func(content string, id string) string {
		t.Helper()
		fid, err := tp.Fork(ctx)
		if err != nil {
			t.Fatal(err)
		}
		line := `{"role":"assistant","content":"` + content + `"}`
		if id != "" {
			line = `{"id":` + id + `,"kind":"message","payload":{"role":"assistant","content":"` + content + `"}}`
		}
		appendLine(t, filepath.Join(ws.Dir(), "tapes/main/forks", fid, "anchors/000_fork/messages.jsonl"), line+"\n")
		return fid
	}
	a, b, c := handWrite("from fork A", ""), handWrite("from fork B", ""), handWrite("fork two", "2")
	for _, fid := range []string{a, b, c} {
		res, err := tp.Merge(ctx, fid, MergeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Entries != 1 || res.Skipped != 0 {
			t.Errorf("merge of %s: %+v; want 1 entry written, none skipped", fid, res)
		}
	}
	var contents []string
	for _, e := range mustRead(t, tp) {
		var p struct{ Content string }
		json.Unmarshal(e.Payload, &p)
		if p.Content != "" {
			contents = append(contents, p.Content)
		}
	}
	if want := []string{"parent two", "from fork A", "from fork B", "fork two"}; !slices.Equal(contents, want) {
		t.Errorf("after the merges: %q, want %q", contents, want)
	}
}
