package usage

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tape-dev/tape/views"
)

// BlockLength is how long a billing block lasts: Claude's plans count
// usage in 5-hour windows.
const BlockLength = 5 * time.Hour

// Block is a 5-hour billing window, as `ccusage blocks` finds them: a
// block starts at the hour (UTC) of the first run after the last block,
// and takes every run until BlockLength after its start or until a run
// comes more than BlockLength after the one before it (which it has then
// passed too), the bound excluded: a run at exactly five hours stays.
type Block struct {
	Start, End        time.Time // the hour of its first run, and BlockLength after
	FirstRun, LastRun time.Time
	Models            []string // of its runs, sorted
	// Active says whether it is now before End: runs now belong to it,
	// unless one comes more than BlockLength after its last.
	Active bool
	// Rate is how fast the active block spends, from its first run to its
	// last, and what it will have spent at End at that rate; nil for a
	// block that is not active or whose runs all came at one time.
	Rate *BurnRate
}

// BurnRate is how fast a block spends and where that leads by its end.
type BurnRate struct {
	TokensPerMinute  float64
	CostPerHour      float64
	RemainingMinutes int64   // to End, rounded
	ProjectedTokens  int64   // at End, rounded
	ProjectedCost    float64 // at End, rounded to the cent
}

// slot is the buckets of one span: a model's sums each. Seeks of its
// first run start at from, after runs an earlier block took.
type slot struct {
	start, from time.Time
	span        time.Duration
	parts       []part
}

func (s slot) end() time.Time { return s.start.Add(s.span) }

// block is a block being summed: its slots, and its last run's time when
// known (zero when a seek must find it).
type block struct {
	start       time.Time
	first, last slot
	lastRun     time.Time
	parts       []part
}

func (b *block) add(s slot) {
	if b.parts == nil {
		b.first = s
	}
	b.last, b.lastRun = s, time.Time{}
	b.parts = append(b.parts, s.parts...)
}

// sumBlocks sums f's runs by block: every block (Summed.Total), those of
// the page in full. Where the hour totals answer (every tape, bounds on
// the hour), the blocks are found from the hours that have runs alone, and
// only the page's are summed: a year of hours is 30,000 rows by model,
// which took a second to read and split.
func sumBlocks(ctx context.Context, r views.Reader, f Filter, pr *pricer) (Summed, error) {
	if f.Tape != "" || !aligned(f, time.Hour) {
		return sumBlocksOf(ctx, r, f, pr)
	}
	e := edges{ctx: ctx, r: r, f: f}
	pageStarts, next, total, err := e.blockPage()
	if err != nil {
		return Summed{}, err
	}
	unpriced, err := unpricedIn(ctx, r, f, pr)
	if err != nil {
		return Summed{}, err
	}
	if len(pageStarts) == 0 {
		return Summed{Total: total, Unpriced: unpriced}, nil
	}
	// The page's blocks, summed from the runs from the start of its first
	// to the start of the block after its last: the same cut, begun at a
	// block's start.
	sub := f
	sub.Page = views.Page{}
	first := pageStarts[0]
	sub.Since = first.start
	if first.afterRunsAtStart {
		sub.Since = first.start.Add(1)
	}
	if next != nil {
		sub.Until = next.start
		if next.afterRunsAtStart {
			sub.Until = sub.Until.Add(1)
		}
	} else if last := pageStarts[len(pageStarts)-1].start.Add(BlockLength + time.Hour); sub.Until.IsZero() || last.Before(sub.Until) {
		sub.Until = last // no block after: no run after the last's end, and its hour
	}
	s, err := sumBlocksOf(ctx, r, sub, pr)
	if err != nil {
		return Summed{}, err
	}
	if len(s.Rows) != len(pageStarts) {
		return Summed{}, fmt.Errorf("usage by block: the hours give %d blocks from %s, the runs %d: read again", len(pageStarts), first.start.Format(time.RFC3339), len(s.Rows))
	}
	return Summed{Rows: s.Rows, Total: total, Unpriced: unpriced}, nil
}

// sumBlocksOf sums f's runs by block from the buckets of its runs: every
// block, those of the page in full, their edges read of the runs.
func sumBlocksOf(ctx context.Context, r views.Reader, f Filter, pr *pricer) (Summed, error) {
	buckets, err := hourBuckets(ctx, r, f)
	if err != nil {
		return Summed{}, err
	}
	e := edges{ctx: ctx, r: r, f: f}
	if err := e.prefetch(); err != nil {
		return Summed{}, err
	}
	blocks, err := e.split(slotsOf(buckets))
	if err != nil {
		return Summed{}, err
	}
	page := newestPage(blocks, f.Page)
	now := f.Now
	if now.IsZero() {
		now = time.Now()
	}
	rows := make([]Row, len(page))
	for i, b := range page {
		if rows[i], err = e.row(b, pr, now); err != nil {
			return Summed{}, err
		}
	}
	// Every block is priced, for the models it names: a model of a block
	// off the page is unpriced too.
	for _, b := range blocks {
		for _, p := range b.parts {
			pr.price(&p)
		}
	}
	return Summed{Rows: rows, Total: len(blocks), Unpriced: pr.unpriced()}, nil
}

// slotsOf gathers the buckets of each span, leaving out runs with no time.
func slotsOf(buckets []bucket) []slot {
	var slots []slot
	for _, b := range buckets {
		if b.span == 0 {
			continue
		}
		if n := len(slots); n > 0 && slots[n-1].start.Equal(b.start) {
			slots[n-1].parts = append(slots[n-1].parts, b.part)
			continue
		}
		slots = append(slots, slot{start: b.start, from: b.start, span: b.span, parts: []part{b.part}})
	}
	return slots
}

// edges reads the times of runs at the edges of slots, by the runs_time
// index.
type edges struct {
	ctx context.Context
	r   views.Reader
	f   Filter
	// hours are the first and last times of the runs of each hour of a
	// bounded f's, read at once (prefetch): a query an edge took 0.3 ms,
	// most of the time of a page of blocks.
	hours map[int64][2]int64
}

// maxPrefetch is the longest time whose runs' hours prefetch reads: a
// page of blocks, not a year of runs.
const maxPrefetch = 14 * 24 * time.Hour

// prefetch reads the first and last time of the runs of each hour of f's,
// when f is bounded to at most maxPrefetch.
func (e *edges) prefetch() error {
	if e.f.Since.IsZero() || e.f.Until.IsZero() || e.f.Until.Sub(e.f.Since) > maxPrefetch {
		return nil
	}
	where, args := runsKept(e.f)
	h := int64(time.Hour)
	rows, err := e.r.QueryContext(e.ctx, fmt.Sprintf(`SELECT (r.time_ns - ((r.time_ns %% %[1]d) + %[1]d) %% %[1]d) AS h, min(r.time_ns), max(r.time_ns)
		FROM runs r WHERE %[2]s AND r.time_ns IS NOT NULL GROUP BY h`, h, where), args...)
	if err != nil {
		return fmt.Errorf("query the times of runs: %w", err)
	}
	defer rows.Close()
	e.hours = map[int64][2]int64{}
	for rows.Next() {
		var hour, first, last int64
		if err := rows.Scan(&hour, &first, &last); err != nil {
			return err
		}
		e.hours[hour] = [2]int64{first, last}
	}
	return rows.Err()
}

// split cuts the slots, in time order, into blocks. A block's end is on
// the hour, so a slot (an hour or a quarter of one) lies before it, after
// it, or starts at it; only then do its runs at that very time stay.
func (e edges) split(slots []slot) ([]*block, error) {
	var blocks []*block
	var cur *block
	for _, s := range slots {
		if cur != nil {
			// A run more than BlockLength after the one before it is more
			// than that after the block's start too: ccusage's second rule
			// adds gaps to its list and never ends a block the first keeps.
			end := cur.start.Add(BlockLength)
			switch {
			case s.start.After(end):
				cur = nil
			case !s.end().After(end):
			default: // the slot starts at end: runs at end exactly stay
				if exact, err := e.edge(s.from, s.end(), "min"); err != nil || exact.After(end) {
					if err != nil {
						return nil, err
					}
					cur = nil // none at end: the slot starts the next block
					break
				}
				at, err := e.partsIn(end, end.Add(1))
				if err != nil {
					return nil, err
				}
				rest, err := e.partsIn(end.Add(1), s.end())
				if err != nil {
					return nil, err
				}
				if len(at) > 0 {
					cur.add(slot{start: s.start, from: s.start, span: 1, parts: at})
					cur.lastRun = end
				}
				if len(rest) == 0 {
					continue
				}
				s.parts, s.from, cur = rest, end.Add(1), nil
			}
		}
		if cur == nil {
			cur = &block{start: s.start.Truncate(time.Hour)}
			blocks = append(blocks, cur)
		}
		cur.add(s)
	}
	return blocks, nil
}

func (e edges) lastRun(b *block) (time.Time, error) {
	if !b.lastRun.IsZero() {
		return b.lastRun, nil
	}
	t, err := e.edge(b.last.from, b.last.end(), "max")
	b.lastRun = t
	return t, err
}

// edge is the min or max time of f's runs in [from, to).
func (e edges) edge(from, to time.Time, fn string) (time.Time, error) {
	if e.hours != nil && to.Sub(from) == time.Hour && from.Truncate(time.Hour).Equal(from) {
		if mm, ok := e.hours[from.UnixNano()]; ok {
			if fn == "max" {
				return time.Unix(0, mm[1]).UTC(), nil
			}
			return time.Unix(0, mm[0]).UTC(), nil
		}
	}
	where, args := runsKept(e.f)
	var ns sql.NullInt64
	err := e.r.QueryRowContext(e.ctx, `SELECT `+fn+`(r.time_ns) FROM runs r WHERE `+where+` AND r.time_ns IS NOT NULL AND r.time_ns >= ? AND r.time_ns < ?`,
		append(args, from.UnixNano(), to.UnixNano())...).Scan(&ns)
	if err != nil {
		return time.Time{}, fmt.Errorf("query the times of runs: %w", err)
	}
	if !ns.Valid {
		return time.Time{}, fmt.Errorf("query the times of runs: none from %s to %s, where the totals count some: read again", from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano))
	}
	return time.Unix(0, ns.Int64).UTC(), nil
}

// partsIn sums f's runs in [from, to) by model.
func (e edges) partsIn(from, to time.Time) ([]part, error) {
	where, args := runsKept(e.f)
	return scanParts(e.r.QueryContext(e.ctx, `SELECT '', 0, '', '', '', r.model, count(*), sum(r.has_usage), sum(r.bad_usage)`+summedColumns(true)+`
		FROM runs r WHERE `+where+` AND r.time_ns IS NOT NULL AND r.time_ns >= ? AND r.time_ns < ? GROUP BY r.model ORDER BY r.model`,
		append(args, from.UnixNano(), to.UnixNano())...))
}

// row sums block b, reads its edges, and rates it if it is active at now.
func (e edges) row(b *block, pr *pricer, now time.Time) (Row, error) {
	var row Row
	models := map[string]bool{}
	for _, p := range b.parts {
		pr.price(&p)
		row.Add(p.Row)
		models[p.model] = true
	}
	first, err := e.edge(b.first.from, b.first.end(), "min")
	if err != nil {
		return Row{}, err
	}
	last, err := e.lastRun(b)
	if err != nil {
		return Row{}, err
	}
	bl := &Block{Start: b.start, End: b.start.Add(BlockLength), FirstRun: first, LastRun: last, Active: now.Before(b.start.Add(BlockLength))}
	for m := range models {
		bl.Models = append(bl.Models, m)
	}
	slices.Sort(bl.Models)
	if bl.Active && last.After(first) {
		bl.Rate = rate(row, bl, now)
	}
	row.Block = bl
	return row, nil
}

// rate is how fast row's runs spent from the block's first run to its
// last, per minute of tokens and per hour of cost, and what they come to
// at its end at that rate, as ccusage blocks reckons them.
func rate(row Row, b *Block, now time.Time) *BurnRate {
	minutes := b.LastRun.Sub(b.FirstRun).Minutes()
	left := math.Round(b.End.Sub(now).Minutes())
	tpm := float64(row.Total) / minutes
	return &BurnRate{
		TokensPerMinute:  tpm,
		CostPerHour:      row.CostUSD / minutes * 60,
		RemainingMinutes: int64(left),
		ProjectedTokens:  int64(math.Round(float64(row.Total) + tpm*left)),
		ProjectedCost:    math.Round((row.CostUSD+row.CostUSD/minutes*left)*100) / 100,
	}
}
