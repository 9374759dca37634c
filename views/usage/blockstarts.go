package usage

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tape-dev/tape/views"
)

// The starts of the blocks of every tape's runs are kept (usage_blocks),
// since a block's start depends on every block before it: a pass that
// changes runs finds again the blocks from the last one that starts
// before the earliest hour it changed (settleBlocks), and a read pages
// them. Found from the hour totals by one recursive query (blocksSQL):
// from a block's start, the next is the first hour with runs 5 hours on
// or later, a seek of the totals' key, not a read of every hour (a year of
// them took 30 ms to read in Go, 50 by seeks). An hour that starts as a
// block ends starts the next only if it has runs after its first instant;
// runs at that instant stay in the block before (after_at).
const blocksSchema = `
-- The start (an hour, as the totals key it) of each 5-hour block of the
-- counted runs of every tape, and whether the runs at that very instant
-- are the block before's.
CREATE TABLE usage_blocks (
	start    TEXT PRIMARY KEY,
	after_at INTEGER NOT NULL
) WITHOUT ROWID;
`

// blockPage is the starts of the blocks of f's page (counted from the
// newest), the start of the block after it (nil for none), and how many
// blocks there are: paged by the database from the kept starts, for every
// time; else of every start f's hours give.
func (e edges) blockPage() (page []blockStart, next *blockStart, total int, err error) {
	pg := e.f.Page
	if e.f.bounded() {
		starts, err := e.blockStarts()
		if err != nil {
			return nil, nil, 0, err
		}
		page = newestPage(starts, pg)
		if n := len(starts) - pg.Offset; pg.Offset > 0 && n >= 0 && n < len(starts) {
			next = &starts[n]
		}
		return page, next, len(starts), nil
	}
	if err := e.r.QueryRowContext(e.ctx, `SELECT count(*) FROM usage_blocks`).Scan(&total); err != nil {
		return nil, nil, 0, fmt.Errorf("count the blocks of usage: %w", err)
	}
	limit := pg.Limit
	if limit <= 0 {
		limit = -1
	}
	newest, err := e.scanStarts(`SELECT start, after_at FROM usage_blocks ORDER BY start DESC LIMIT ? OFFSET ?`, limit, pg.Offset)
	if err != nil || len(newest) == 0 {
		return nil, nil, total, err
	}
	slices.Reverse(newest)
	after, err := e.scanStarts(`SELECT start, after_at FROM usage_blocks WHERE start > ? ORDER BY start LIMIT 1`, newest[len(newest)-1].start.Format("2006-01-02T15"))
	if err == nil && len(after) > 0 {
		next = &after[0]
	}
	return newest, next, total, err
}

// blockStart is where a block starts, and whether runs at exactly that
// time belong to the block before it (which ends there).
type blockStart struct {
	start            time.Time
	afterRunsAtStart bool
}

// blocksSQL is the query of the starts of the blocks of the runs whose
// hours are in [?1, ?2), from the first such hour (keys are dates: every
// one is between "" and "Z").
var blocksSQL = func() string {
	end := `strftime('%Y-%m-%dT%H', replace(b.start, 'T', ' ') || ':00', '+5 hours')`
	endNS := `(unixepoch(replace(` + end + `, 'T', ' ') || ':00') * 1000000000)`
	firstFrom := func(from, op string) string {
		return `(SELECT min(key) FROM usage_totals WHERE grouping = 'hour' AND key ` + op + ` ` + from + ` AND key >= ?1 AND key < ?2)`
	}
	cand := firstFrom(end, ">=")
	runsIn := func(cond string) string {
		return `EXISTS (SELECT 1 FROM runs r WHERE r.counted AND r.time_ns IS NOT NULL AND ` + cond + `)`
	}
	later := runsIn(`r.time_ns > ` + endNS + ` AND r.time_ns < ` + endNS + ` + 3600000000000`)
	at := runsIn(`r.time_ns = ` + endNS)
	return `WITH RECURSIVE b(start, after_at) AS (
			SELECT ` + firstFrom("''", ">") + `, 0
			UNION ALL
			SELECT CASE WHEN ` + cand + ` > ` + end + ` OR ` + later + ` THEN ` + cand + ` ELSE ` + firstFrom(end, ">") + ` END,
				CASE WHEN ` + cand + ` = ` + end + ` AND ` + later + ` THEN ` + at + ` ELSE 0 END
			FROM b WHERE b.start IS NOT NULL)
		SELECT start, after_at FROM b WHERE start IS NOT NULL`
}()

// settleBlocks finds again the blocks from the last that starts before
// the hour of earliest (a run's time the pass changed): the blocks before
// it start where they did.
func settleBlocks(ctx context.Context, tx views.Tx, earliest int64) error {
	hour := time.Unix(0, earliest).UTC().Format("2006-01-02T15")
	var from string
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(start), '') FROM usage_blocks WHERE start < ?`, hour).Scan(&from); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM usage_blocks WHERE start >= ?`, from); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO usage_blocks `+blocksSQL, from, "Z")
	return err
}

// blockStarts finds the start of every block of f's runs, from the hour
// totals of f's times.
func (e edges) blockStarts() ([]blockStart, error) {
	lo, hi := "", "Z"
	if !e.f.Since.IsZero() {
		lo = e.f.Since.UTC().Format("2006-01-02T15")
	}
	if !e.f.Until.IsZero() {
		hi = e.f.Until.UTC().Format("2006-01-02T15")
	}
	return e.scanStarts(blocksSQL, lo, hi)
}

// scanStarts reads the starts query selects: a key and after_at a row.
func (e edges) scanStarts(query string, args ...any) ([]blockStart, error) {
	rows, err := e.r.QueryContext(e.ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query the blocks of usage: %w", err)
	}
	defer rows.Close()
	var starts []blockStart
	for rows.Next() {
		var key string
		var after bool
		if err := rows.Scan(&key, &after); err != nil {
			return nil, err
		}
		h, err := time.Parse("2006-01-02T15", key)
		if err != nil {
			return nil, fmt.Errorf("usage blocks: start %q: %w", key, err)
		}
		starts = append(starts, blockStart{start: h, afterRunsAtStart: after})
	}
	return starts, rows.Err()
}
