package recency

import (
	"database/sql"
	"slices"
	"testing"
)

func at(ns int64) sql.NullInt64 { return sql.NullInt64{Int64: ns, Valid: true} }

var none sql.NullInt64

// Blocks 0, 1 and 2, the latest times 50, 10 and 30: below block 1 the
// latest is 50, below block 2 too.
var bounds = Bounds{blocks: []int64{0, 1, 2}, latest: []sql.NullInt64{at(50), at(10), at(30)}, below: []sql.NullInt64{at(50), at(50), at(50)}}

func TestNewestPrunes(t *testing.T) {
	n := Newest{Limit: 2}
	if n.Done(bounds, 2) || n.Skip(bounds, 1) {
		t.Fatal("an empty listing is done or skips")
	}
	n.Add(100, at(30))
	n.Add(101, at(20))
	// the 2nd newest is 20: block 1 (latest 10) holds none as late; below
	// block 2 the latest is 50, so the listing goes on.
	if !n.Skip(bounds, 1) || n.Skip(bounds, 2) || n.Done(bounds, 2) {
		t.Errorf("kth 20: Skip(1) %v, Skip(2) %v, Done(2) %v; want true, false, false", n.Skip(bounds, 1), n.Skip(bounds, 2), n.Done(bounds, 2))
	}
	n.Add(102, at(60))
	n.Add(103, at(55))
	// the 2nd newest is 55, later than anything at or below block 2
	if !n.Done(bounds, 2) {
		t.Error("kth 55: not done at block 2, whose blocks end at 50")
	}
	if got := n.Kept(); !slices.Equal(got, []int{102, 103}) {
		t.Errorf("Kept = %v, want the two newest", got)
	}
}

// A tie with the limit-th is kept, and a block as late as it is visited:
// the tape order decides between ties.
func TestNewestKeepsTies(t *testing.T) {
	n := Newest{Limit: 1}
	n.Add(1, at(50))
	if n.Skip(bounds, 0) || n.Done(bounds, 0) {
		t.Error("a block as late as the limit-th is skipped or ends the listing")
	}
	n.Add(2, at(50))
	n.Add(3, at(40))
	if got := n.Kept(); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("Kept = %v, want both ties", got)
	}
}

// Entries without a time sort last: while fewer than Limit have one,
// nothing is pruned; a block whose entries have none is skipped after.
func TestNewestWithoutTimes(t *testing.T) {
	b := Bounds{blocks: []int64{0, 1}, latest: []sql.NullInt64{none, at(5)}, below: []sql.NullInt64{none, at(5)}}
	n := Newest{Limit: 2}
	n.Add(7, none)
	n.Add(8, none)
	if n.Skip(b, 0) || n.Done(b, 0) {
		t.Error("with the limit-th undated, an undated block is skipped")
	}
	n.Add(9, at(1))
	n.Add(10, at(2))
	if !n.Skip(b, 0) || !n.Done(b, 0) || n.Skip(b, 1) {
		t.Errorf("Skip(0) %v, Done(0) %v, Skip(1) %v; want true, true, false", n.Skip(b, 0), n.Done(b, 0), n.Skip(b, 1))
	}
	if n.Skip(b, 99) {
		t.Error("a block the bounds do not know is skipped")
	}
}

// A --since is a floor from the start: a block entirely before it is
// skipped, and the listing ends below the last block after it, before
// Limit matches are found.
func TestNewestSince(t *testing.T) {
	n := Newest{Limit: 5, Since: at(20)}
	if !n.Skip(bounds, 1) || n.Skip(bounds, 2) || n.Done(bounds, 2) {
		t.Errorf("since 20: Skip(1) %v, Skip(2) %v, Done(2) %v; want true, false, false", n.Skip(bounds, 1), n.Skip(bounds, 2), n.Done(bounds, 2))
	}
	early := Bounds{blocks: []int64{0, 1}, latest: []sql.NullInt64{at(10), at(30)}, below: []sql.NullInt64{at(10), at(30)}}
	if !n.Done(early, 0) || n.Done(early, 1) {
		t.Errorf("since 20: Done(0) %v, Done(1) %v; want true, false", n.Done(early, 0), n.Done(early, 1))
	}
	n.Add(1, at(40)) // one match: the floor stays since's
	if !n.Skip(bounds, 1) {
		t.Error("since 20, one match kept: block 1 (latest 10) is looked into")
	}
}
