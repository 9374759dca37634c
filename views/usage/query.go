package usage

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// Row is the token usage of one group of run events. Only the fields of
// the grouping are set: Tape (by tape), Tape, AnchorSeq and Anchor (by
// anchor), Model (by model) or Day (by day, UTC, "" for runs without a
// date).
type Row struct {
	Tape, Anchor, Model, Day string
	AnchorSeq                int64
	Runs                     int // run events, each usage id once
	WithUsage                int // of them, those that reported usage
	BadUsage                 int // of them, those that gave a count that is not one (views.Run.BadUsage), read as not given
	Input, Output, Total     int64
	CacheCreation, CacheRead int64
}

// Filter selects run events and how to group them.
type Filter struct {
	By   string // tape, anchor, model, day
	Tape string // "" for every tape
	views.Page
}

// groups are the columns each grouping selects, groups and orders by.
var groups = map[string]string{
	"tape":   `r.tape, 0, '', '', ''`,
	"anchor": `r.tape, r.anchor_seq, coalesce(a.name, r.folder), '', ''`,
	"model":  `'', 0, '', r.model, ''`,
	"day":    `'', 0, '', '', coalesce(strftime('%Y-%m-%d', r.time_ns / 1000000000, 'unixepoch'), '')`,
}

// Sum sums the token usage of run events by f.By, in the order of the
// groups (anchors in tape order, days in time order), and says how many
// groups there are in all. Groups are few (tapes, anchors, models, days):
// they are all summed in one query and paged here.
func Sum(ctx context.Context, ix views.Index, f Filter) (rows []Row, total int, err error) {
	cols, ok := groups[f.By]
	if !ok {
		return nil, 0, fmt.Errorf("usage by %q: want tape, anchor, model or day", f.By)
	}
	var all []Row
	err = ix.Read(ctx, func(r views.Reader) error {
		all, err = sum(ctx, r, f, cols)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return views.PageOf(all, f.Page), len(all), nil
}

// Total sums the usage of every tape into one row: the runs and tokens a
// workspace has spent (tape info), read from the kept totals by model.
func Total(ctx context.Context, ix views.Index) (Row, error) {
	byModel, _, err := Sum(ctx, ix, Filter{By: "model"})
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

func sum(ctx context.Context, r views.Reader, f Filter, cols string) ([]Row, error) {
	if _, kept := totalsGroupings[f.By]; kept && f.Tape == "" {
		return sumTotals(ctx, r, f.By)
	}
	return sumRuns(ctx, r, f, cols)
}

// sumTotals reads the kept totals of a grouping (table.go), in the
// columns and order sumRuns gives.
func sumTotals(ctx context.Context, r views.Reader, by string) ([]Row, error) {
	cols := map[string]string{"day": `'', 0, '', '', key`, "model": `'', 0, '', key, ''`}[by]
	// A total kept past an int64 is a REAL (table.go): read as the
	// largest INTEGER.
	return scanRows(r.QueryContext(ctx, `SELECT `+cols+`, runs, with_usage, bad_usage, CAST(input_tokens AS INTEGER), CAST(output_tokens AS INTEGER),
		CAST(total_tokens AS INTEGER), CAST(cache_creation_tokens AS INTEGER), CAST(cache_read_tokens AS INTEGER)
		FROM usage_totals WHERE grouping = ? ORDER BY key`, by))
}

// sumRuns sums the counted runs of f's tape (every tape for "") by f.By.
func sumRuns(ctx context.Context, r views.Reader, f Filter, cols string) ([]Row, error) {
	// Of the runs that share a usage id, one counts (table.go).
	from, where, args := ` FROM runs r`, ` WHERE r.counted`, []any{}
	if f.By == "anchor" {
		from += ` LEFT JOIN anchors a ON a.tape = r.tape AND a.folder = r.folder`
	}
	if f.Tape != "" {
		where, args = where+` AND r.tape = ?`, append(args, f.Tape)
	}
	return scanRows(r.QueryContext(ctx, `SELECT `+cols+`, count(*), sum(r.has_usage), sum(r.bad_usage), `+saturated("r.input_tokens")+`, `+
		saturated("r.output_tokens")+`, `+saturated("r.total_tokens")+`, `+saturated("r.cache_creation_tokens")+`, `+saturated("r.cache_read_tokens")+
		from+where+` GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`, args...))
}

// scanRows reads the rows of a usage query.
func scanRows(rows *sql.Rows, err error) ([]Row, error) {
	if err != nil {
		return nil, fmt.Errorf("query usage: %w", err)
	}
	defer rows.Close()
	var all []Row
	for rows.Next() {
		var u Row
		if err := rows.Scan(&u.Tape, &u.AnchorSeq, &u.Anchor, &u.Model, &u.Day, &u.Runs, &u.WithUsage, &u.BadUsage, &u.Input, &u.Output, &u.Total,
			&u.CacheCreation, &u.CacheRead); err != nil {
			return nil, err
		}
		all = append(all, u)
	}
	return all, rows.Err()
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
