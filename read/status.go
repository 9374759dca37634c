package read

import (
	"context"
	"time"

	"github.com/tape-dev/tape/internal/wording"
	"github.com/tape-dev/tape/pricing"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views/usage"
)

// Status is what a status line says of usage at a time: a session's
// cost, the day's, and the active 5-hour block's (tape statusline).
type Status struct {
	Session      usage.Row // the runs of the session id's tapes
	SessionFound bool      // the index has runs of that session
	Today        usage.Row // the runs of now's day
	Block        usage.Row // the active block; Block.Block nil for none
}

// StatusAt reads the usage a status line shows at now: of the tapes of
// sessionID ("" for none), of now's day in zone, and of the block active
// at now. It reads a few rows of the kept totals (views/usage).
func StatusAt(ctx context.Context, ix *projector.Projector, prices *pricing.Table, sessionID string, now time.Time, zone *time.Location) (Status, error) {
	var s Status
	if sessionID != "" {
		rows, _, err := usage.Sum(ctx, ix, usage.Filter{By: "session", SessionID: sessionID, Prices: prices})
		if err != nil {
			return s, err
		}
		for _, u := range rows {
			s.Session.Add(u)
		}
		s.SessionFound = len(rows) > 0
	}
	local := now.In(zone)
	midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, zone)
	// The whole day, so that its bounds fall on the hour (the kept totals
	// by hour answer, not the runs) in most zones.
	days, _, err := usage.Sum(ctx, ix, usage.Filter{By: "day", Zone: zone, Since: midnight, Until: midnight.AddDate(0, 0, 1), Prices: prices})
	if err != nil {
		return s, err
	}
	for _, u := range days {
		s.Today.Add(u)
	}
	block, ok, err := usage.ActiveBlock(ctx, ix, prices, now)
	if ok {
		s.Block = block
	}
	return s, err
}

// BlockState says of a block that is active at now how long it has left
// and, when it has a rate, how fast it spends and what it will have cost
// at its end (tape usage --by block, the web page); "" for one that is
// not active.
func BlockState(b *usage.Block, now time.Time) string {
	if b == nil || !b.Active {
		return ""
	}
	s := "active, " + wording.HoursMinutes(b.End.Sub(now).Round(time.Minute)) + " left"
	if r := b.Rate; r != nil {
		s += ", " + wording.Dollars(r.CostPerHour) + "/h, " + wording.Dollars(r.ProjectedCost) + " at its end"
	}
	return s
}
