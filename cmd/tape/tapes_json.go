package main

import (
	"bufio"
	"fmt"

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
	costs, err := usage.CostByTape(env.Context(), ix, loadPrices(env))
	if err != nil {
		return err
	}
	buf := bufio.NewWriterSize(env.Stdout, 64<<10)
	out := newJSONLines(buf)
	shown := 0
	got, err := read.EachTape(env.Context(), ix, f, func(s sessions.Session) error {
		shown++
		rec := tapeRecord(s, forks(s.Name))
		if c, ok := costs[s.Name]; ok {
			rec.CostUSD = &c
		}
		return out.writeWith(rec.AppendJSON)
	})
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

// tapeRecord is a tape's JSON line, with its count of forks.
func tapeRecord(s sessions.Session, forks int) records.Tape {
	rec := records.NewTape(s)
	rec.Forks = &forks
	return rec
}
