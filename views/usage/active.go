package usage

import (
	"context"
	"fmt"
	"time"

	"github.com/tape-dev/tape/pricing"
	"github.com/tape-dev/tape/views"
)

// ActiveBlock is the 5-hour block active at now, if any, of the runs up
// to the end of now's hour, with its burn rate (tape statusline). Which block is active depends on where the
// blocks before it started, back to a gap of more than 5 hours without a
// run: it is summed from the last such gap in the week before now (from
// the hour totals), else from the first run.
func ActiveBlock(ctx context.Context, ix views.Index, prices *pricing.Table, now time.Time) (row Row, ok bool, err error) {
	err = ix.Read(ctx, func(r views.Reader) error {
		since, recent, err := afterLastGap(ctx, r, now)
		if err != nil || !recent {
			return err
		}
		// Runs up to the end of now's hour, so that the bounds fall on the
		// hour and the hour totals answer; a run later in the hour than now
		// comes of a clock ahead of this one.
		until := now.UTC().Truncate(time.Hour).Add(time.Hour)
		s, err := sumRead(ctx, r, Filter{By: "block", Prices: prices, Since: since, Until: until, Now: now, Page: views.Page{Limit: 1}})
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
// recent says whether a run came in the hours a block active now can
// hold: when none did, no block is.
func afterLastGap(ctx context.Context, r views.Reader, now time.Time) (since time.Time, recent bool, err error) {
	hour := now.UTC().Truncate(time.Hour)
	from := now.Add(-7 * 24 * time.Hour).UTC().Truncate(time.Hour)
	rows, err := r.QueryContext(ctx, `SELECT DISTINCT key FROM usage_totals WHERE grouping = 'hour' AND key >= ? AND key <= ? ORDER BY key`,
		from.Format("2006-01-02T15"), hour.Format("2006-01-02T15"))
	if err != nil {
		return time.Time{}, false, fmt.Errorf("query the hours of usage: %w", err)
	}
	defer rows.Close()
	// A run in an hour at least BlockLength+1h after the hour of the run
	// before it comes more than BlockLength after it.
	last := from.Add(-time.Hour)
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			return time.Time{}, false, err
		}
		h, err := time.Parse("2006-01-02T15", key)
		if err != nil {
			return time.Time{}, false, fmt.Errorf("usage totals by hour: key %q: %w", key, err)
		}
		if h.Sub(last) > BlockLength {
			since = h
		}
		last = h
	}
	return since, !last.Before(hour.Add(-BlockLength)), rows.Err()
}
