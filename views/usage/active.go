package usage

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/tape-dev/tape/pricing"
	"github.com/tape-dev/tape/views"
)

// ActiveBlock is the 5-hour block active at now, if any, of the runs up
// to the end of now's hour, with its burn rate (tape statusline): the last
// kept block that starts by now (usage_blocks: a block's start depends on
// the runs before it alone), if it has not ended.
func ActiveBlock(ctx context.Context, ix views.Index, prices *pricing.Table, now time.Time) (row Row, ok bool, err error) {
	err = ix.Read(ctx, func(r views.Reader) error {
		hour := now.UTC().Truncate(time.Hour)
		var key string
		var after bool
		err := r.QueryRowContext(ctx, `SELECT start, after_at FROM usage_blocks WHERE start <= ? ORDER BY start DESC LIMIT 1`,
			hour.Format("2006-01-02T15")).Scan(&key, &after)
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return fmt.Errorf("query the blocks of usage: %w", err)
		}
		start, err := time.Parse("2006-01-02T15", key)
		if err != nil {
			return fmt.Errorf("usage blocks: start %q: %w", key, err)
		}
		if !now.Before(start.Add(BlockLength)) {
			return nil
		}
		since := start
		if after {
			since = start.Add(1) // the runs at its first instant are the block before's
		}
		// Runs up to the end of now's hour: a run later in the hour than
		// now comes of a clock ahead of this one.
		// Its runs, from its start: the first block of them is it.
		f := Filter{By: "block", Since: since, Until: hour.Add(time.Hour), Now: now}
		s, err := sumBlocksOf(ctx, r, f, newPricer(prices))
		if err != nil || len(s.Rows) == 0 {
			return err
		}
		first := s.Rows[0] // a second is of runs after now, in its hour
		if first.Block == nil || !first.Block.Active {
			return nil
		}
		row, ok = first, true
		return nil
	})
	return row, ok, err
}
