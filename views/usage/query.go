package usage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tape-dev/tape/pricing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// Row is the token usage of one group of run events. Only the fields of
// the grouping are set: Tape (by tape), Tape, AnchorSeq and Anchor (by
// anchor), Model (by model), Day, Week or Month (by day, week, month: ""
// for runs without a date), Project, Source (by project, source), Tape,
// Source and SessionID (by session: Tape is the session's first tape,
// the one its subagents' name as parent) or Block (by block).
type Row struct {
	Tape, Anchor, Model, Day string
	Week, Month              string // the date of the week's first day; YYYY-MM
	Project, Source          string // the git root of the session's cwd, else its cwd; the agent, "" for a tape not imported
	SessionID                string
	AnchorSeq                int64
	Block                    *Block // by block
	Runs                     int    // run events, each usage id once
	WithUsage                int    // of them, those that reported usage
	BadUsage                 int    // of them, those that gave a count that is not one (views.Run.BadUsage), read as not given
	Input, Output, Total     int64
	CacheCreation, CacheRead int64
	// CostUSD is what the runs with usage of the models the price table
	// prices cost (PricedRuns of them); UnpricedRuns are those of models
	// it does not. Both are 0 when the sum was asked for no price table.
	CostUSD                  float64
	PricedRuns, UnpricedRuns int
}

// Filter selects run events and how to group them.
type Filter struct {
	By   string // tape, anchor, model, day, week, month, project, source, session, block
	Tape string // "" for every tape
	views.Page
	// Prices prices each group's runs by model (Row.CostUSD); nil for
	// tokens alone.
	Prices *pricing.Table
	// Since and Until keep the runs of those times, Since included and
	// Until not; zero for no bound. A run with no time is kept only when
	// both are zero.
	Since, Until time.Time
	// Zone is the time zone of days, weeks and months; nil for UTC.
	Zone *time.Location
	// WeekStart is the first day of a week (by week): Monday, as ISO 8601
	// and ccusage's report of every agent, unless set.
	WeekStart *time.Weekday
	// SessionID keeps the tapes of that agent session id alone (by
	// project, source, session); "" for every tape.
	SessionID string
	// Now is when a block is active until (by block); zero for the
	// clock's time.
	Now time.Time
}

// bounded says whether f keeps runs of some times alone.
func (f Filter) bounded() bool { return !f.Since.IsZero() || !f.Until.IsZero() }

// Groupings are the values of Filter.By, in the order help texts name
// them.
var Groupings = []string{"tape", "anchor", "model", "day", "week", "month", "project", "source", "session", "block"}

// Summed is a page of groups, how many groups there are in all, and the
// models of their runs with usage that Filter.Prices does not price.
type Summed struct {
	Rows     []Row
	Total    int
	Unpriced []string
}

// groups are the columns each grouping selects, groups and orders by.
var groups = map[string]string{
	"tape":   `r.tape, 0, '', '', ''`,
	"anchor": `r.tape, r.anchor_seq, coalesce(a.name, r.folder), '', ''`,
	"model":  `'', 0, '', r.model, ''`,
}

// Sum sums the token usage of run events by f.By, in the order of the
// groups (anchors in tape order, days in time order), and says how many
// groups there are in all. Groups are few (tapes, anchors, models, days):
// they are all summed in one query and paged here.
func Sum(ctx context.Context, ix views.Index, f Filter) (rows []Row, total int, err error) {
	s, err := SumAll(ctx, ix, f)
	return s.Rows, s.Total, err
}

// SumAll is Sum, with the models that had no price.
func SumAll(ctx context.Context, ix views.Index, f Filter) (Summed, error) {
	if !slices.Contains(Groupings, f.By) {
		return Summed{}, fmt.Errorf("usage by %q: want one of %s", f.By, strings.Join(Groupings, ", "))
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return Summed{}, fmt.Errorf("usage from %s until %s: the start is not before the end", f.Since.Format(time.RFC3339), f.Until.Format(time.RFC3339))
	}
	var s Summed
	err := ix.Read(ctx, func(r views.Reader) error {
		var err error
		s, err = sumRead(ctx, r, f)
		return err
	})
	return s, err
}

// sumRead sums f's runs in the snapshot r.
func sumRead(ctx context.Context, r views.Reader, f Filter) (Summed, error) {
	pr := newPricer(f.Prices)
	var all []Row
	var err error
	switch f.By {
	case "day", "week", "month":
		rows, total, err := sumPeriods(ctx, r, f, pr)
		if err != nil {
			return Summed{}, err
		}
		return Summed{Rows: rows, Total: total, Unpriced: pr.unpriced()}, nil
	case "block":
		return sumBlocks(ctx, r, f, pr)
	case "project", "source", "session":
		all, err = sumAttrs(ctx, r, f, pr)
	default:
		var parts []part
		parts, err = sumParts(ctx, r, f, groups[f.By])
		all = pr.merge(parts)
	}
	if err != nil {
		return Summed{}, err
	}
	page := views.PageOf(all, f.Page)
	if f.By == "session" {
		if err := nameSessions(ctx, r, page); err != nil {
			return Summed{}, err
		}
	}
	return Summed{Rows: page, Total: len(all), Unpriced: pr.unpriced()}, nil
}

// newestPage is the page pg of rows (in time order) counted from its end:
// the pages of days, weeks, months and blocks count from the newest group,
// the first the latest, still printed in time order, as a log's tail is.
func newestPage[T any](rows []T, pg views.Page) []T {
	to := max(len(rows)-pg.Offset, 0)
	from := 0
	if pg.Limit > 0 {
		from = max(to-pg.Limit, 0)
	}
	return rows[from:to]
}

// Total sums the usage of every tape into one row: the runs, tokens and
// cost a workspace has spent (tape info), read from the kept totals.
func Total(ctx context.Context, ix views.Index, prices *pricing.Table) (Row, error) {
	byModel, _, err := Sum(ctx, ix, Filter{By: "model", Prices: prices})
	var t Row
	for _, u := range byModel {
		t.Add(u)
	}
	return t, err
}

// Add adds u's counts to r's, each sum saturated at the largest int64.
func (r *Row) Add(u Row) {
	r.Runs, r.WithUsage, r.BadUsage = r.Runs+u.Runs, r.WithUsage+u.WithUsage, r.BadUsage+u.BadUsage
	r.Input, r.Output, r.Total = AddTokens(r.Input, u.Input), AddTokens(r.Output, u.Output), AddTokens(r.Total, u.Total)
	r.CacheCreation, r.CacheRead = AddTokens(r.CacheCreation, u.CacheCreation), AddTokens(r.CacheRead, u.CacheRead)
	r.CostUSD, r.PricedRuns, r.UnpricedRuns = r.CostUSD+u.CostUSD, r.PricedRuns+u.PricedRuns, r.UnpricedRuns+u.UnpricedRuns
}

// AddTokens is a + b for counts of tokens (never negative), saturated
// at the largest int64 instead of wrapping.
func AddTokens(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// saturated is the SQL of a sum of a column of token counts that cannot
// fail: SQLite's sum() raises "integer overflow" past an int64, total()
// never does (a REAL, exact below 2^53), and CAST of a REAL past the
// largest INTEGER gives the largest.
func saturated(expr string) string { return `CAST(total(` + expr + `) AS INTEGER)` }

// summedColumns are the SQL of every tokenColumns sum, over runs r (of
// the runs table) or over totals rows (of usage_totals), each named as
// its totals column.
func summedColumns(ofRuns bool) string {
	var b strings.Builder
	for _, c := range tokenColumns {
		expr := c[0]
		if ofRuns {
			expr = strings.ReplaceAll(c[1], "R.", "r.")
		}
		b.WriteString(", " + saturated(expr) + " AS " + c[0])
	}
	return b.String()
}

// part is the sums of one group's runs of one model.
type part struct {
	Row
	model string
	sums  pricing.Sums
}

// keptGroupings are the groupings of every tape that are read from the
// kept totals (table.go) rather than summed from the runs: the totals'
// grouping they read, the group's columns (as groups gives them) and what
// they group those rows by.
var keptGroupings = map[string]struct{ grouping, cols, by string }{
	"model": {"day", `'', 0, '', model, ''`, "model"},
	"tape":  {"tape", `key, 0, '', '', ''`, "key, model"},
}

func sumParts(ctx context.Context, r views.Reader, f Filter, cols string) ([]part, error) {
	if _, ok := keptGroupings[f.By]; !ok || f.Tape != "" || f.bounded() {
		return sumRuns(ctx, r, f, cols)
	}
	return sumKept(ctx, r, f.By, "")
}

// sumKept sums the kept totals by a grouping of keptGroupings, of the keys
// where selects ("" for all; else a condition on key, of which args are
// the values).
func sumKept(ctx context.Context, r views.Reader, by, where string, args ...any) ([]part, error) {
	k := keptGroupings[by]
	if where != "" {
		where = " AND " + where
	}
	return scanParts(r.QueryContext(ctx, `SELECT `+k.cols+`, model, sum(runs), sum(with_usage), sum(bad_usage)`+summedColumns(false)+`
		FROM usage_totals WHERE grouping = ?`+where+` GROUP BY `+k.by+` ORDER BY `+k.by, append([]any{k.grouping}, args...)...))
}

// sumRuns sums the counted runs that f keeps by cols (a grouping's
// columns, as groups gives them) and model.
func sumRuns(ctx context.Context, r views.Reader, f Filter, cols string) ([]part, error) {
	from := ` FROM runs r`
	if f.By == "anchor" {
		from += ` LEFT JOIN anchors a ON a.tape = r.tape AND a.folder = r.folder`
	}
	where, args := runsKept(f)
	return scanParts(r.QueryContext(ctx, `SELECT `+cols+`, r.model, count(*), sum(r.has_usage), sum(r.bad_usage)`+summedColumns(true)+
		from+` WHERE `+where+` GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`, args...))
}

// runsKept is the condition on runs r that f keeps, and its arguments: of
// the runs that share a usage id, one counts (table.go); of f's tape, and
// of f's times. A bounded condition is read through the runs_time index.
func runsKept(f Filter) (string, []any) {
	where, args := `r.counted`, []any{}
	if f.Tape != "" {
		where, args = where+` AND r.tape = ?`, append(args, f.Tape)
	}
	if f.bounded() {
		where += ` AND r.time_ns IS NOT NULL`
	}
	if !f.Since.IsZero() {
		where, args = where+` AND r.time_ns >= ?`, append(args, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		where, args = where+` AND r.time_ns < ?`, append(args, f.Until.UnixNano())
	}
	return where, args
}

// scanParts reads the rows of a usage query: a group's columns, a model,
// and the sums of its runs of that model.
func scanParts(rows *sql.Rows, err error) ([]part, error) {
	if err != nil {
		return nil, fmt.Errorf("query usage: %w", err)
	}
	defer rows.Close()
	var all []part
	for rows.Next() {
		var p part
		s := &p.sums
		if err := rows.Scan(&p.Tape, &p.AnchorSeq, &p.Anchor, &p.Model, &p.Day, &p.model, &p.Runs, &p.WithUsage, &p.BadUsage,
			&s.Input, &s.Output, &p.Total, &s.CacheWrite, &s.CacheRead,
			&s.Over[0].Input, &s.Over[0].Output, &s.Over[0].CacheWrite, &s.Over[0].CacheRead,
			&s.Over[1].Input, &s.Over[1].Output, &s.Over[1].CacheWrite, &s.Over[1].CacheRead); err != nil {
			return nil, err
		}
		p.Input, p.Output, p.CacheCreation, p.CacheRead = s.Input, s.Output, s.CacheWrite, s.CacheRead
		all = append(all, p)
	}
	return all, rows.Err()
}

// pricer prices parts by their models (pricing.Pricer), and notes the
// models of runs with usage that it has no price for.
type pricer struct{ *pricing.Pricer }

func newPricer(prices *pricing.Table) *pricer { return &pricer{pricing.NewPricer(prices)} }

// price sets p's cost, or counts its runs as unpriced.
func (pr *pricer) price(p *part) { p.Price(pr.Pricer, p.model, p.sums) }

// Price sets r's cost as the runs of model whose tokens s sums, when pr
// prices model, else counts r's runs with usage as unpriced; a row of no
// runs with usage, or a Pricer of no table, is left as it is. The local
// index's sums and the team server's are priced by it.
func (r *Row) Price(pr *pricing.Pricer, model string, s pricing.Sums) {
	if !pr.Priced() || r.WithUsage == 0 {
		return
	}
	if cost, ok := pr.Cost(model, s); ok {
		r.CostUSD, r.PricedRuns = cost, r.WithUsage
	} else {
		r.UnpricedRuns = r.WithUsage
	}
}

// unpriced are the models it found no price for, sorted.
func (pr *pricer) unpriced() []string { return pr.Unpriced() }

// merge adds up the parts of each group (they come ordered by group),
// pricing each part by its model.
func (pr *pricer) merge(parts []part) []Row {
	var rows []Row
	for i, p := range parts {
		pr.price(&p)
		if i > 0 && sameGroup(parts[i-1].Row, p.Row) {
			rows[len(rows)-1].Add(p.Row)
			continue
		}
		rows = append(rows, p.Row)
	}
	return rows
}

func sameGroup(a, b Row) bool {
	return a.Tape == b.Tape && a.AnchorSeq == b.AnchorSeq && a.Anchor == b.Anchor && a.Model == b.Model && a.Day == b.Day &&
		a.Week == b.Week && a.Month == b.Month && a.Project == b.Project && a.Source == b.Source && a.SessionID == b.SessionID
}

// Last returns the tape's latest run event, in tape order, that reported
// token usage, read from its file; ok is false when there is none. What
// it reports is views.ParseRun of its payload: the runs row was made
// from the same reading.
func Last(ctx context.Context, ix views.Index, tape string) (e tapelog.Entry, ok bool, err error) {
	err = ix.Read(ctx, func(r views.Reader) error {
		var rowid int64
		err := r.QueryRowContext(ctx, `SELECT r.entry FROM runs r JOIN entries e ON e.rowid = r.entry
			WHERE r.tape = ? AND r.has_usage
			ORDER BY e.anchor_seq DESC, e.folder DESC, e.eff_time DESC, e.file DESC, e.line DESC LIMIT 1`, tape).Scan(&rowid)
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return fmt.Errorf("query runs: %w", err)
		}
		e, err = r.Entry(ctx, rowid)
		ok = err == nil
		return err
	})
	return e, ok, err
}

// CostByTape is what the runs of each of tapes (nil: every tape) cost,
// for those with runs of a model prices prices (tape tapes --json). The
// sum is the database's, of the kept totals by tape, each model's rows
// times its rates (pricedModels): two columns a tape instead of
// fourteen, which at 10,002 tapes took 90 ms to read. Summed in another
// order than Sum's, a cost may differ from tape usage's in its last
// digits (0.094975 and 0.09497499999999999), never by a cent.
func CostByTape(ctx context.Context, ix views.Index, prices *pricing.Table, tapes []string) (map[string]float64, error) {
	costs := map[string]float64{}
	err := ix.Read(ctx, func(r views.Reader) error {
		rates, err := pricedModels(ctx, r, prices)
		if err != nil || rates == "[]" {
			return err
		}
		where, args := "", []any{rates}
		if tapes != nil {
			names, err := json.Marshal(tapes)
			if err != nil {
				return err
			}
			where, args = ` AND t.key IN (SELECT value FROM json_each(?))`, append(args, string(names))
		}
		rows, err := r.QueryContext(ctx, `WITH p AS MATERIALIZED (SELECT `+rateColumns+` FROM json_each(?))
			SELECT t.key, total(`+costSQL+`) FROM usage_totals t JOIN p ON p.model = t.model
			WHERE t.grouping = 'tape' AND t.with_usage > 0`+where+` GROUP BY t.key`, args...)
		if err != nil {
			return fmt.Errorf("query the cost of tapes: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var tape string
			var cost float64
			if err := rows.Scan(&tape, &cost); err != nil {
				return err
			}
			costs[tape] = cost
		}
		return rows.Err()
	})
	return costs, err
}

// costSQL is a totals row t's cost at its model's rates p.r0 to p.r11
// (rateColumns, of pricedModels): the four kinds at the base rate, then
// the tokens above each threshold at the difference from the rate below
// (pricing.Price.Cost). rateColumns reads them out of the JSON once, into
// a table: read from the JSON for each row, the sum took twice as long.
var costSQL, rateColumns = func() (string, string) {
	cols := []string{"input_tokens", "output_tokens", "cache_creation_tokens", "cache_read_tokens",
		"input_over_200k", "output_over_200k", "cache_creation_over_200k", "cache_read_over_200k",
		"input_over_272k", "output_over_272k", "cache_creation_over_272k", "cache_read_over_272k"}
	terms, rates := make([]string, len(cols)), []string{"value ->> 0 AS model"}
	for i, c := range cols {
		terms[i] = fmt.Sprintf("t.%s * p.r%d", c, i)
		rates = append(rates, fmt.Sprintf("value ->> %d AS r%d", i+1, i))
	}
	return strings.Join(terms, " + "), strings.Join(rates, ", ")
}()

// pricedModels are the models of the kept totals that prices prices, as
// the JSON array of [model, twelve rates] that rateColumns reads.
func pricedModels(ctx context.Context, r views.Reader, prices *pricing.Table) (string, error) {
	rows, err := r.QueryContext(ctx, `SELECT DISTINCT model FROM usage_totals WHERE grouping = 'day'`)
	if err != nil {
		return "", fmt.Errorf("query the models of usage: %w", err)
	}
	defer rows.Close()
	var models []any
	for rows.Next() {
		var model string
		if err := rows.Scan(&model); err != nil {
			return "", err
		}
		if p, ok := prices.Lookup(model); ok {
			row := []any{model}
			for _, r := range p.Differences() {
				row = append(row, r)
			}
			models = append(models, row)
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	data, err := json.Marshal(append([]any{}, models...))
	return string(data), err
}
