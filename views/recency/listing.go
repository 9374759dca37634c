package recency

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Listing is a newest-first listing of a word's matches across tapes
// (decision 0077). Walking the entries newest first and asking FTS5 about
// each (65 µs a probe) took seconds for a word common in old sessions and
// absent from the newest; here FTS5 lists the word's matches by rowid, the
// highest first (about 0.3 µs a match), and the blocks say how late each
// block of rowids is: a match is looked up only in a block that may hold
// one of the newest, and the listing ends at the first block below which
// none can. The walk reads new tapes in the order they started, so the
// blocks follow time and it ends early.
type Listing struct {
	Match  string // the FTS5 expression of entries_fts
	Filter []string
	Args   []any     // Filter's: conditions on the entries, as e
	Since  time.Time // the filter's --since, if any: no block before it is visited
	Limit  int
}

// Listed is a match listed: its rowid, and its tape and id, by which a
// later read of the rowid tells it still holds this entry.
type Listed struct {
	Rowid    int64
	Tape, ID string
}

// List lists in tx the matches of l among which are the l.Limit newest by
// time, ties included: the caller orders them and takes l.Limit.
func (t Table) List(ctx context.Context, tx *sql.Tx, l Listing) ([]Listed, error) {
	bounds, err := ReadBounds(ctx, tx)
	if err != nil {
		return nil, err
	}
	where := strings.Join(append([]string{"e.rowid = ?"}, l.Filter...), " AND ")
	lookup, err := tx.PrepareContext(ctx, `SELECT e.time_ns, e.tape, e.id FROM entries e WHERE `+where)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer lookup.Close()
	rows, err := tx.QueryContext(ctx, `SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rowid DESC`, l.Match)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	found := Newest{Limit: l.Limit}
	if !l.Since.IsZero() {
		found.Since = sql.NullInt64{Int64: l.Since.UnixNano(), Valid: true}
	}
	var listed []Listed
	for rows.Next() {
		var m Listed
		if err := rows.Scan(&m.Rowid); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		block := t.Block(m.Rowid)
		if found.Done(bounds, block) {
			break
		}
		if found.Skip(bounds, block) {
			continue
		}
		var ns sql.NullInt64
		switch err := lookup.QueryRowContext(ctx, append([]any{m.Rowid}, l.Args...)...).Scan(&ns, &m.Tape, &m.ID); {
		case err == sql.ErrNoRows:
			continue // the filter leaves it out
		case err != nil:
			return nil, fmt.Errorf("search: %w", err)
		}
		found.Add(len(listed), ns)
		listed = append(listed, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var out []Listed
	for _, i := range found.Kept() {
		out = append(out, listed[i])
	}
	return out, nil
}
