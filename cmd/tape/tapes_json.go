package main

import (
	"bufio"
	"context"
	"fmt"

	"github.com/tape-dev/tape/pricing"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/read/records"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// streamJSON prints the page of tapes f selects as JSON lines, each
// written as it is read (read.EachTape): `tape tapes --limit 0 --json`
// at 10,000 tapes holds a few batches of rows instead of the page, and its
// reader sees the first rows at once. Then, as for the table, the footer
// and the warnings, on stderr. A listing that fails half way has printed
// the rows before the failure (and exits as it did).
func (c *TapesCmd) streamJSON(env *Env, ix *projector.Projector, f sessions.Filter) error {
	ws := ix.Workspace()
	forks := ws.CountForks
	if dir, err := ws.OpenTapes(); err == nil { // else each is counted through the root, as before
		defer dir.Close()
		forks = dir.CountForks
	}
	// One write for many lines: a listing of every tape wrote a line a
	// system call.
	buf := bufio.NewWriterSize(env.Stdout, 64<<10)
	out := newJSONLines(buf)
	prices := loadPrices(env)
	var costs map[string]float64 // of every tape, for a listing of all
	var page []records.Tape      // of a page, held until its costs are read
	if f.Limit <= 0 {
		var err error
		if costs, err = usage.CostByTape(env.Context(), ix, prices, nil); err != nil {
			return err
		}
	}
	shown := 0
	got, err := read.EachTape(env.Context(), ix, f, func(s sessions.Session) error {
		shown++
		rec := tapeRecord(s, forks(s.Name))
		if costs == nil {
			page = append(page, rec)
			return nil
		}
		return out.writeWith(withCost(rec, costs).AppendJSON)
	})
	if err == nil && costs == nil {
		err = writePage(env.Context(), ix, prices, out, page)
	}
	if ferr := buf.Flush(); ferr != nil && err == nil {
		err = fmt.Errorf("write output: %w", ferr)
	}
	if err != nil {
		return err
	}
	c.footer(env, shown, got.Total, "tapes")
	warnUnlistedTapes(env, got.Unlisted)
	return nil
}

// writePage writes a page of tapes held back, with their costs.
func writePage(ctx context.Context, ix *projector.Projector, prices *pricing.Table, out *jsonLines, page []records.Tape) error {
	names := make([]string, len(page))
	for i, rec := range page {
		names[i] = rec.Name
	}
	costs, err := usage.CostByTape(ctx, ix, prices, names)
	if err != nil {
		return err
	}
	for _, rec := range page {
		if err := out.writeWith(withCost(rec, costs).AppendJSON); err != nil {
			return err
		}
	}
	return nil
}

// withCost is rec with its tape's cost, when it has one.
func withCost(rec records.Tape, costs map[string]float64) records.Tape {
	if c, ok := costs[rec.Name]; ok {
		rec.CostUSD = &c
	}
	return rec
}

// tapeRecord is a tape's JSON line, with its count of forks.
func tapeRecord(s sessions.Session, forks int) records.Tape {
	rec := records.NewTape(s)
	rec.Forks = &forks
	return rec
}
