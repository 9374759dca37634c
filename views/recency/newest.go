package recency

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
)

// The rule a newest-first listing prunes by: a listing of matches by rowid,
// the highest first, keeps the matches it looked up (Newest); it need not
// look one up in a block whose latest time is before the limit-th newest
// found (Skip), and it is done at the first block below which none is as
// late (Done). A block no later than the limit-th may hold a tie, which
// wins or loses on the tape order, so it is not skipped.

// Bounds are the recency blocks, by block number: the latest time of a
// block's entries, and the latest of it and every block below it.
type Bounds struct {
	blocks        []int64
	latest, below []sql.NullInt64
}

// Querier is what ReadBounds needs of a transaction.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// ReadBounds reads the blocks.
func ReadBounds(ctx context.Context, q Querier) (Bounds, error) {
	var b Bounds
	rows, err := q.QueryContext(ctx, `SELECT block, max_ns FROM recency_blocks ORDER BY block`)
	if err != nil {
		return b, fmt.Errorf("read the recency blocks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var n int64
		var latest sql.NullInt64
		if err := rows.Scan(&n, &latest); err != nil {
			return b, fmt.Errorf("read the recency blocks: %w", err)
		}
		below := latest
		if k := len(b.below); k > 0 && CompareTimes(b.below[k-1], below) > 0 {
			below = b.below[k-1]
		}
		b.blocks, b.latest, b.below = append(b.blocks, n), append(b.latest, latest), append(b.below, below)
	}
	return b, rows.Err()
}

// of is a block's bounds; a block the table does not hold (none should be
// missing) bounds nothing.
func (b Bounds) of(block int64) (latest, below sql.NullInt64) {
	i, ok := slices.BinarySearch(b.blocks, block)
	if !ok {
		never := sql.NullInt64{Int64: math.MaxInt64, Valid: true}
		return never, never
	}
	return b.latest[i], b.below[i]
}

// Newest keeps the matches a listing looked up, and the Limit latest times
// among them in a heap whose least is the Limit-th. Since, if valid, is a
// floor no match below can pass (a search's --since).
type Newest struct {
	Limit int
	Since sql.NullInt64
	all   []match
	heap  timeHeap
}

type match struct {
	n  int // the caller's number for it
	ns sql.NullInt64
}

// Add keeps match number n, of time ns (none for an entry without).
func (n *Newest) Add(i int, ns sql.NullInt64) {
	n.all = append(n.all, match{i, ns})
	if len(n.heap) < n.Limit {
		heap.Push(&n.heap, ns)
	} else if CompareTimes(ns, n.heap[0]) > 0 {
		n.heap[0] = ns
		heap.Fix(&n.heap, 0)
	}
}

// kth is the Limit-th latest time kept, and whether Limit were kept.
func (n *Newest) kth() (sql.NullInt64, bool) {
	if n.Limit < 1 || len(n.heap) < n.Limit {
		return sql.NullInt64{}, false
	}
	return n.heap[0], true
}

// floor is the time below which no match can be among the newest: the
// Limit-th kept, or Since, the later; none while neither is known.
func (n *Newest) floor() (sql.NullInt64, bool) {
	kth, full := n.kth()
	switch {
	case n.Since.Valid && (!full || CompareTimes(n.Since, kth) > 0):
		return n.Since, true
	case full:
		return kth, true
	}
	return sql.NullInt64{}, false
}

// Done reports whether no match at or below block b, by rowid, can be
// among the newest.
func (n *Newest) Done(b Bounds, block int64) bool {
	floor, ok := n.floor()
	_, below := b.of(block)
	return ok && CompareTimes(below, floor) < 0
}

// Skip reports whether no match of block can be among the newest: it
// need not be looked up.
func (n *Newest) Skip(b Bounds, block int64) bool {
	floor, ok := n.floor()
	latest, _ := b.of(block)
	return ok && CompareTimes(latest, floor) < 0
}

// Kept are the numbers of the matches kept as late as the Limit-th, ties
// included, or of all of them when fewer than Limit were kept.
func (n *Newest) Kept() []int {
	kth, full := n.kth()
	var out []int
	for _, m := range n.all {
		if !full || CompareTimes(m.ns, kth) >= 0 {
			out = append(out, m.n)
		}
	}
	return out
}

// timeHeap is a min-heap of times, none least.
type timeHeap []sql.NullInt64

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return CompareTimes(h[i], h[j]) < 0 }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(sql.NullInt64)) }
func (h *timeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// CompareTimes orders times, none before any, as a newest-first listing
// lists entries without a date last.
func CompareTimes(a, b sql.NullInt64) int {
	if a.Valid != b.Valid {
		if a.Valid {
			return 1
		}
		return -1
	}
	return cmp.Compare(a.Int64, b.Int64)
}
