package usage

import (
	"context"
	"database/sql"
	"fmt"

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
		t.Runs, t.WithUsage = t.Runs+u.Runs, t.WithUsage+u.WithUsage
		t.Input, t.Output, t.Total = t.Input+u.Input, t.Output+u.Output, t.Total+u.Total
		t.CacheCreation, t.CacheRead = t.CacheCreation+u.CacheCreation, t.CacheRead+u.CacheRead
	}
	return t, err
}

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
	return scanRows(r.QueryContext(ctx, `SELECT `+cols+`, runs, with_usage, input_tokens, output_tokens, total_tokens,
		cache_creation_tokens, cache_read_tokens FROM usage_totals WHERE grouping = ? ORDER BY key`, by))
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
	return scanRows(r.QueryContext(ctx, `SELECT `+cols+`, count(*), sum(r.has_usage), sum(r.input_tokens), sum(r.output_tokens), sum(r.total_tokens),
		sum(r.cache_creation_tokens), sum(r.cache_read_tokens)`+
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
		if err := rows.Scan(&u.Tape, &u.AnchorSeq, &u.Anchor, &u.Model, &u.Day, &u.Runs, &u.WithUsage, &u.Input, &u.Output, &u.Total,
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
