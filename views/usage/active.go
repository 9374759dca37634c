package usage

import (
	"context"
	"fmt"
	"time"

	"github.com/tape-dev/tape/pricing"
	"github.com/tape-dev/tape/views"
)

// ActiveBlock is the 5-hour block active at now, if any, of the runs up
// to now, with its burn rate (tape statusline). Which block is active depends on where the
// blocks before it started, back to a gap of more than 5 hours without a
// run: it is summed from the last such gap in the week before now (from
// the hour totals), else from the first run.
func ActiveBlock(ctx context.Context, ix views.Index, prices *pricing.Table, now time.Time) (row Row, ok bool, err error) {
	err = ix.Read(ctx, func(r views.Reader) error {
		since, err := afterLastGap(ctx, r, now)
		if err != nil {
			return err
		}
		// Runs after now (a clock ahead) are not yet.
		s, err := sumRead(ctx, r, Filter{By: "block", Prices: prices, Since: since, Until: now.Add(1), Now: now, Page: views.Page{Limit: 1}})
		if err != nil || len(s.Rows) == 0 || s.Rows[0].Block == nil || !s.Rows[0].Block.Active {
			return err
		}
		row, ok = s.Rows[0], true
		return nil
	})
	return row, ok, err
}

// afterLastGap is the start of the hour of the first run after the last
// gap of more than BlockLength in the week before now, which a block
// starts at whatever came before; zero when runs came through the week.
func afterLastGap(ctx context.Context, r views.Reader, now time.Time) (time.Time, error) {
	from := now.Add(-7 * 24 * time.Hour).UTC().Truncate(time.Hour)
	rows, err := r.QueryContext(ctx, `SELECT DISTINCT key FROM usage_totals WHERE grouping = 'hour' AND key >= ? AND key <= ? ORDER BY key`,
		from.Format("2006-01-02T15"), now.UTC().Format("2006-01-02T15"))
	if err != nil {
		return time.Time{}, fmt.Errorf("query the hours of usage: %w", err)
	}
	defer rows.Close()
	// A run in an hour at least BlockLength+1h after the hour of the run
	// before it comes more than BlockLength after it.
	last, since := from.Add(-time.Hour), time.Time{}
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			return time.Time{}, err
		}
		hour, err := time.Parse("2006-01-02T15", key)
		if err != nil {
			return time.Time{}, fmt.Errorf("usage totals by hour: key %q: %w", key, err)
		}
		if hour.Sub(last) > BlockLength {
			since = hour
		}
		last = hour
	}
	return since, rows.Err()
}
