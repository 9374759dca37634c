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
// the page in full, their edges read of the runs.
func sumBlocks(ctx context.Context, r views.Reader, f Filter, pr *pricer) (Summed, error) {
	buckets, err := readBuckets(ctx, r, f, []time.Duration{time.Hour}, func(bucket) bool { return true })
	if err != nil {
		return Summed{}, err
	}
	e := edges{ctx: ctx, r: r, f: f}
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
