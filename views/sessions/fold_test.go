package sessions

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// randomEntries makes n entries of a tape at distinct places, few enough
// folders, files and times that places and times tie often, with the facts
// the fold reads.
func randomEntries(r *rand.Rand, n int) []entry {
	seen := map[views.Place]bool{}
	var out []entry
	for len(out) < n {
		seq := int64(r.IntN(3))
		k := views.Place{Seq: seq, Folder: fmt.Sprintf("%03d_%c", seq, 'a'+rune(r.IntN(2))), Eff: int64(r.IntN(4)), File: []string{"a.jsonl", "b.jsonl", tapelog.AnchorFile}[r.IntN(3)], Line: r.IntN(3)}
		if seen[k] {
			continue
		}
		seen[k] = true
		e := entry{rowid: int64(len(out) + 1), kind: []string{"message", "event", "anchor"}[r.IntN(3)], place: k}
		if r.IntN(4) > 0 {
			e.timeNS = sql.NullInt64{Int64: int64(r.IntN(5)), Valid: true}
		}
		pick := func(vals ...string) string { return vals[r.IntN(len(vals))] }
		e.facts = views.Facts{Role: pick("", "user", "User", "assistant"), Synthetic: r.IntN(4) == 0,
			CWD: pick("", "", "/a", "/b"), Branch: pick("", "", "x", "y"), Title: pick("", "", "", "t1", "t2")}
		if r.IntN(3) == 0 {
			e.facts.Run = &views.Run{Model: pick("", "m1", "m2")}
		}
		out = append(out, e)
	}
	return out
}

// The fold does not depend on the order of its entries, and the fold of a
// whole tape is the merge of the folds of any split of it: what lets a
// pass fold the entries it adds into a stored row, and agree with a
// rebuild.
func TestFoldIsOrderFree(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(18, 2026))
	for trial := range 500 {
		entries := randomEntries(r, 1+r.IntN(40))
		var want fold
		for _, e := range entries {
			want.add(e)
		}
		r.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
		cut := r.IntN(len(entries) + 1)
		var a, b fold
		for _, e := range entries[:cut] {
			a.add(e)
		}
		for _, e := range entries[cut:] {
			b.add(e)
		}
		a.merge(b)
		if a != want {
			t.Fatalf("trial %d: folded in another order and merged at %d:\n%+v\nin order:\n%+v", trial, cut, a, want)
		}
	}
}

// What each part of the fold keeps, on a few entries in tape order.
func TestFoldKeeps(t *testing.T) {
	t.Parallel()
	ns := func(v int64) sql.NullInt64 { return sql.NullInt64{Int64: v, Valid: true} }
	at := func(seq int64, folder string, eff int64, file string, line int) views.Place {
		return views.Place{Seq: seq, Folder: folder, Eff: eff, File: file, Line: line}
	}
	entries := []entry{
		{rowid: 1, kind: "anchor", place: at(1, "001_a", 0, tapelog.AnchorFile, 1), timeNS: ns(50)},
		{rowid: 2, kind: "message", place: at(1, "001_a", 10, "m.jsonl", 1), timeNS: ns(10), facts: views.Facts{Role: "user", Synthetic: true, CWD: "/one"}},
		{rowid: 3, kind: "message", place: at(1, "001_a", 20, "m.jsonl", 2), timeNS: ns(20), facts: views.Facts{Role: "user", CWD: "/two", Branch: "b1"}},
		{rowid: 4, kind: "event", place: at(1, "001_a", 30, "m.jsonl", 3), timeNS: ns(30), facts: views.Facts{Run: &views.Run{Model: "late"}}},
		{rowid: 5, kind: "event", place: at(1, "001_a", 40, "n.jsonl", 1), timeNS: ns(30), facts: views.Facts{Run: &views.Run{Model: "the last in tape order"}}},
		{rowid: 6, kind: "anchor", place: at(2, "002_b", 0, tapelog.AnchorFile, 0)},
		{rowid: 7, kind: "event", place: at(2, "002_b", 5, "m.jsonl", 1), timeNS: ns(5), facts: views.Facts{Title: "named", Branch: "b2", Run: &views.Run{}}},
		{rowid: 8, kind: "event", place: at(2, "002_b", 6, "m.jsonl", 2), timeNS: ns(4), facts: views.Facts{Title: "renamed"}},
	}
	var f fold
	for _, e := range entries {
		f.add(e)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"entries", f.entries, int64(6)},
		{"anchors", f.anchors, int64(2)},
		{"first", f.first, span{ok: true, seq: 1, ns: ns(10)}},
		{"last", f.last, span{ok: true, seq: 2, folder: "002_b", ns: ns(5)}},
		{"start", f.start, span{ok: true, seq: 1, folder: "001_a"}},
		{"cwd", f.cwd.value, "/one"},
		{"branch", f.branch.value, "b2"},
		{"title", f.title.value, "renamed"},
		{"prompt", f.prompt.entry, int64(3)},
		{"model", f.model.value, "the last in tape order"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %+v, want %+v", c.what, c.got, c.want)
		}
	}
}
