// Package recency keeps the recency blocks: for each block of BlockSize
// entries of consecutive rowids, the latest time of its entries. A search
// that lists a common word's matches newest first across many tapes
// (projector's Search) lists the word's matches by rowid, the highest
// first, looks up the time of a match only in a block that may hold one
// of the newest, and stops at the first block below which none can
// (issue 31). Rowids follow the order the
// index read the files in (after a rebuild, tape by tape in name order),
// not time, so the blocks are what tell where the newest entries are.
//
// The table is a function of the entries table alone, kept by the pass
// like any view (views.Table): a block's row is max(time_ns) of its
// entries, NULL when none has a time, and there is no row for a block
// without entries.
package recency

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"

	"github.com/tape-dev/tape/views"
)

// BlockBits is log2 of BlockSize.
const BlockBits = 8

// BlockSize is how many rowids a block spans: small enough to bound the
// time of its entries tightly (a block holds a few small sessions), large
// enough that the table is a few thousand rows at a million entries.
const BlockSize = 1 << BlockBits

// Table is the recency blocks as a view the projector keeps. Bits, if
// not 0, overrides BlockBits: tests make blocks of a few rowids, so that
// a few changes empty one.
type Table struct{ Bits int }

// bits is log2 of the table's block size.
func (t Table) bits() int { return cmp.Or(t.Bits, BlockBits) }

// Block is the block of a rowid.
func (t Table) Block(rowid int64) int64 { return rowid >> t.bits() }

// rangeOf is the rowids of a block, inclusive.
func (t Table) rangeOf(block int64) (lo, hi int64) {
	return block << t.bits(), (block+1)<<t.bits() - 1
}

func (Table) Name() string     { return "recency" }
func (Table) Tables() []string { return []string{"recency_blocks"} }

func (Table) Schema() string {
	return `
CREATE TABLE recency_blocks (
	block  INTEGER PRIMARY KEY, -- entries.rowid >> BlockBits
	max_ns INTEGER              -- the latest time_ns of its entries; NULL if none has one
);
`
}

// Begin implements views.Table.
func (t Table) Begin(tx views.Tx) views.Pass {
	return &pass{t: t, tx: tx, added: map[int64]sql.NullInt64{}, stale: map[int64]bool{}}
}

// pass keeps the blocks through one pass.
type pass struct {
	t     Table
	tx    views.Tx
	added map[int64]sql.NullInt64 // the latest time of the entries added to each block
	stale map[int64]bool          // blocks that lost entries: computed again from the entries at Settle
}

func (p *pass) Added(_ context.Context, e views.Added) error {
	b := p.t.Block(e.Rowid)
	latest := p.added[b]
	if e.TimeNS != nil && (!latest.Valid || *e.TimeNS > latest.Int64) {
		latest = sql.NullInt64{Int64: *e.TimeNS, Valid: true}
	}
	p.added[b] = latest
	return nil
}

func (p *pass) Removing(ctx context.Context, where string, args ...any) error {
	rows, err := p.tx.QueryContext(ctx, `SELECT DISTINCT rowid >> `+fmt.Sprint(p.t.bits())+` FROM entries WHERE `+where, args...)
	if err != nil {
		return fmt.Errorf("find the recency blocks of removed entries: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var b int64
		if err := rows.Scan(&b); err != nil {
			return err
		}
		p.stale[b] = true
	}
	return rows.Err()
}

func (p *pass) Changed(string, views.Place)            {}
func (p *pass) DropTape(context.Context, string) error { return nil } // its entries went through Removing
func (p *pass) Backlog() int                           { return len(p.added) + len(p.stale) }

// Settle writes the blocks the pass touched: a stale block from its
// entries, an added one as the later of its row and what was added.
func (p *pass) Settle(ctx context.Context) error {
	for _, b := range slices.Sorted(maps.Keys(p.stale)) {
		lo, hi := p.t.rangeOf(b)
		var n int
		var latest sql.NullInt64
		if err := p.tx.QueryRowContext(ctx, `SELECT count(*), max(time_ns) FROM entries WHERE rowid BETWEEN ? AND ?`, lo, hi).Scan(&n, &latest); err != nil {
			return fmt.Errorf("recency block %d: %w", b, err)
		}
		q, args := `INSERT OR REPLACE INTO recency_blocks (block, max_ns) VALUES (?, ?)`, []any{b, latest}
		if n == 0 {
			q, args = `DELETE FROM recency_blocks WHERE block = ?`, []any{b}
		}
		if _, err := p.tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("recency block %d: %w", b, err)
		}
		delete(p.added, b)
	}
	for _, b := range slices.Sorted(maps.Keys(p.added)) {
		if _, err := p.tx.ExecContext(ctx, `INSERT INTO recency_blocks (block, max_ns) VALUES (?, ?)
			ON CONFLICT (block) DO UPDATE SET max_ns = CASE
				WHEN excluded.max_ns IS NULL THEN max_ns
				WHEN max_ns IS NULL OR excluded.max_ns > max_ns THEN excluded.max_ns
				ELSE max_ns END`, b, p.added[b]); err != nil {
			return fmt.Errorf("recency block %d: %w", b, err)
		}
	}
	clear(p.added)
	clear(p.stale)
	return nil
}
