package usage_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tape-dev/tape/pricing"

	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/usage"
)

// Days, weeks and months in any time zone, 5-hour blocks, and any bounds
// of time, whichever totals or runs they are read from, are what grouping
// each counted run on its own gives: the labels of its time in the zone,
// and for blocks ccusage's rule run on each run in time order
// (oracleBlocks). The runs come on the hour half of the time, so that
// blocks end exactly on some, and across New York's clock going forward.
func TestPeriodsAndBlocksAreThoseOfEachRun(t *testing.T) {
	t.Parallel()
	zones := []string{"UTC", "Asia/Shanghai", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu"}
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 11))
			ws, p := newIndexed(t)
			for step := range 6 {
				change(t, r, ws, step)
				appendRuns(t, r, ws, fmt.Sprintf("t%d", r.IntN(4)), 40) // enough that some fall in each quarter of a zone's midnight
				if _, err := p.CatchUp(context.Background()); err != nil {
					t.Fatal(err)
				}
				runs := countedRuns(t, p)
				// The active block, found from the last gap in a week,
				// is the last of every run's blocks when that is active.
				for _, now := range []time.Time{time.Date(2026, 3, 9, 20+r.IntN(6), r.IntN(60), 0, 0, time.UTC),
					time.Date(2026, 3, 4+r.IntN(6), r.IntN(24), r.IntN(60), 0, 0, time.UTC), time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC)} {
					var upToNow []run
					for _, u := range runs {
						if u.timed && u.ns < now.Truncate(time.Hour).Add(time.Hour).UnixNano() {
							upToNow = append(upToNow, u)
						}
					}
					want := oracleBlocks(upToNow, now)
					got, ok, err := usage.ActiveBlock(context.Background(), p, testPrices, now)
					if err != nil {
						t.Fatal(err)
					}
					wantOK := len(want) > 0 && want[len(want)-1].Block.Active
					if ok != wantOK || ok && !sameRow(got, want[len(want)-1]) {
						t.Fatalf("step %d, at %v: active block %v %s, want %v %s", step, now, ok, show([]usage.Row{got}), wantOK, show(want))
					}
				}
				for _, f := range periodFilters(t, r, zones) {
					got, _, err := usage.Sum(context.Background(), p, f)
					if err != nil {
						t.Fatalf("step %d, %s: %v", step, describe(f), err)
					}
					want := oracle(runs, f)
					if len(got) != len(want) {
						t.Fatalf("step %d, %s: %d groups, want %d\ngot  %s\nwant %s", step, describe(f), len(got), len(want), show(got), show(want))
					}
					for i := range got {
						if !sameRow(got[i], want[i]) {
							t.Fatalf("step %d, %s: group %d\ngot  %s\nwant %s", step, describe(f), i, show(got[i:i+1]), show(want[i:i+1]))
						}
					}
					// A page counts from the newest group.
					pg := views.Page{Limit: 1 + r.IntN(3), Offset: r.IntN(3)}
					f.Page = pg
					paged, total, err := usage.Sum(context.Background(), p, f)
					if err != nil {
						t.Fatalf("step %d, %s, page %+v: %v", step, describe(f), pg, err)
					}
					to := max(len(want)-pg.Offset, 0)
					wantPage := want[max(to-pg.Limit, 0):to]
					if total != len(want) || len(paged) != len(wantPage) {
						t.Fatalf("step %d, %s, page %+v: %d of %d groups, want %d of %d", step, describe(f), pg, len(paged), total, len(wantPage), len(want))
					}
					for i := range paged {
						if !sameRow(paged[i], wantPage[i]) {
							t.Fatalf("step %d, %s, page %+v: group %d\ngot  %s\nwant %s", step, describe(f), pg, i, show(paged[i:i+1]), show(wantPage[i:i+1]))
						}
					}
				}
			}
		})
	}
}

// periodFilters are filters of every grouping of time, in each zone, with
// no bounds, bounds on the hour, and bounds off it, of every tape and one.
func periodFilters(t *testing.T, r *rand.Rand, zones []string) []usage.Filter {
	var fs []usage.Filter
	sunday := time.Sunday
	for _, name := range zones {
		zone, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		bounds := [][2]time.Time{{}, {time.Date(2026, 3, 6, 0, 0, 0, 0, zone), time.Date(2026, 3, 8, 0, 0, 0, 0, zone)},
			{time.Date(2026, 3, 5, 7, 0, 0, 0, time.UTC), {}},
			{{}, time.Date(2026, 3, 7, 13, r.IntN(60), r.IntN(60), 0, time.UTC)}}
		for _, by := range []string{"day", "week", "month", "block"} {
			for _, b := range bounds {
				f := usage.Filter{By: by, Zone: zone, Since: b[0], Until: b[1], Prices: testPrices,
					Now: time.Date(2026, 3, 9, 20+r.IntN(6), r.IntN(60), 0, 0, time.UTC)}
				if r.IntN(3) == 0 {
					f.Tape = fmt.Sprintf("t%d", r.IntN(4))
				}
				if by == "week" && r.IntN(2) == 0 {
					f.WeekStart = &sunday
				}
				fs = append(fs, f)
			}
		}
	}
	return fs
}

func describe(f usage.Filter) string {
	return fmt.Sprintf("by %s in %v from %v until %v of tape %q", f.By, f.Zone, f.Since, f.Until, f.Tape)
}

// run is one counted run, as the runs table holds it.
type run struct {
	tape, model string
	ns          int64
	timed       bool
	tokens      pricing.Tokens
	total       int64
	withUsage   int
	badUsage    int
}

func countedRuns(t *testing.T, p *projector.Projector) []run {
	t.Helper()
	var runs []run
	err := p.Read(context.Background(), func(rd views.Reader) error {
		rows, err := rd.QueryContext(context.Background(), `SELECT tape, model, coalesce(time_ns, 0), time_ns IS NOT NULL, input_tokens, output_tokens,
			cache_creation_tokens, cache_read_tokens, total_tokens, has_usage, bad_usage FROM runs WHERE counted ORDER BY time_ns, entry`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var u run
			tk := &u.tokens
			if err := rows.Scan(&u.tape, &u.model, &u.ns, &u.timed, &tk.Input, &tk.Output, &tk.CacheWrite, &tk.CacheRead, &u.total, &u.withUsage, &u.badUsage); err != nil {
				return err
			}
			runs = append(runs, u)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// oracle groups runs one at a time as f asks.
func oracle(runs []run, f usage.Filter) []usage.Row {
	var kept []run
	for _, u := range runs {
		if f.Tape != "" && u.tape != f.Tape {
			continue
		}
		bounded := !f.Since.IsZero() || !f.Until.IsZero()
		if bounded && (!u.timed || !f.Since.IsZero() && u.ns < f.Since.UnixNano() || !f.Until.IsZero() && u.ns >= f.Until.UnixNano()) {
			continue
		}
		kept = append(kept, u)
	}
	if f.By == "block" {
		return oracleBlocks(kept, f.Now)
	}
	byLabel := map[string]*usage.Row{}
	var labels []string
	for _, u := range kept {
		label := ""
		if u.timed {
			label = labelOf(time.Unix(0, u.ns).In(f.Zone), f)
		}
		if byLabel[label] == nil {
			byLabel[label] = &usage.Row{}
			labels = append(labels, label)
		}
		addRun(byLabel[label], u)
	}
	slices.Sort(labels)
	var rows []usage.Row
	for _, l := range labels {
		row := *byLabel[l]
		switch f.By {
		case "day":
			row.Day = l
		case "week":
			row.Week = l
		case "month":
			row.Month = l
		}
		rows = append(rows, row)
	}
	return rows
}

func labelOf(t time.Time, f usage.Filter) string {
	switch f.By {
	case "month":
		return t.Format("2006-01")
	case "week":
		start := time.Monday
		if f.WeekStart != nil {
			start = *f.WeekStart
		}
		for t.Weekday() != start {
			t = t.AddDate(0, 0, -1)
		}
	}
	return t.Format(time.DateOnly)
}

// oracleBlocks is ccusage blocks' rule: a run more than five hours after
// its block's start, or after the run before it, starts a block at its
// hour.
func oracleBlocks(runs []run, now time.Time) []usage.Row {
	var rows []usage.Row
	var start, last time.Time
	for _, u := range runs {
		if !u.timed {
			continue
		}
		at := time.Unix(0, u.ns).UTC()
		if len(rows) == 0 || at.Sub(start) > usage.BlockLength || at.Sub(last) > usage.BlockLength {
			start = at.Truncate(time.Hour)
			rows = append(rows, usage.Row{Block: &usage.Block{Start: start, End: start.Add(usage.BlockLength), FirstRun: at,
				Active: now.Before(start.Add(usage.BlockLength))}})
		}
		row := &rows[len(rows)-1]
		addRun(row, u)
		row.Block.LastRun, last = at, at
	}
	return rows
}

func addRun(row *usage.Row, u run) {
	row.Runs, row.WithUsage, row.BadUsage = row.Runs+1, row.WithUsage+u.withUsage, row.BadUsage+u.badUsage
	row.Input, row.Output, row.Total = row.Input+u.tokens.Input, row.Output+u.tokens.Output, row.Total+u.total
	row.CacheCreation, row.CacheRead = row.CacheCreation+u.tokens.CacheWrite, row.CacheRead+u.tokens.CacheRead
	if u.withUsage == 0 {
		return
	}
	if price, ok := testPrices.Lookup(u.model); ok {
		row.CostUSD, row.PricedRuns = row.CostUSD+price.Cost(pricing.SumsOf(u.tokens)), row.PricedRuns+1
	} else {
		row.UnpricedRuns++
	}
}

// sameRow compares a's and b's groups and sums, costs to a billionth (they
// are summed in another order), and of blocks their times and activity.
func sameRow(a, b usage.Row) bool {
	if math.Abs(a.CostUSD-b.CostUSD) > 1e-9*max(1, math.Abs(b.CostUSD)) {
		return false
	}
	if (a.Block == nil) != (b.Block == nil) {
		return false
	}
	if a.Block != nil {
		x, y := *a.Block, *b.Block
		if !x.Start.Equal(y.Start) || !x.End.Equal(y.End) || !x.FirstRun.Equal(y.FirstRun) || !x.LastRun.Equal(y.LastRun) || x.Active != y.Active {
			return false
		}
		if (x.Rate != nil) != (x.Active && x.LastRun.After(x.FirstRun)) {
			return false
		}
	}
	a.CostUSD, b.CostUSD, a.Block, b.Block = 0, 0, nil, nil
	return a == b
}

func show(rows []usage.Row) string {
	s := ""
	for _, u := range rows {
		b := u.Block
		u.Block = nil
		s += fmt.Sprintf("\n  %+v", u)
		if b != nil {
			s += fmt.Sprintf(" block %v–%v runs %v–%v active %v", b.Start, b.End, b.FirstRun, b.LastRun, b.Active)
		}
	}
	return s
}

// A zone that is UTC under another name (the local zone of a machine set
// to UTC, or Abidjan, at +0 since 1912) reads the day totals; London, at
// +0 in winter only, does not.
func TestIsUTC(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"UTC": true, "Etc/UTC": true, "Europe/London": false, "Africa/Abidjan": true, "Asia/Shanghai": false} {
		zone, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := usage.IsUTC(zone); got != want {
			t.Errorf("IsUTC(%s) = %v, want %v", name, got, want)
		}
	}
	if got := usage.IsUTC(time.FixedZone("UTC", 0)); !got {
		t.Errorf("IsUTC(a fixed zone named UTC) = false")
	}
}
