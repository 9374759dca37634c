package main

import (
	"fmt"
)

// DiscardCmd is `tape discard`.
type DiscardCmd struct {
	ID   string `arg:"" name:"id" help:"The fork to throw away, as 'tape fork' printed it."`
	JSON bool   `help:"Print what was discarded as a JSON object ({\"fork\",\"tape\",\"path\"})."`
}

func (c *DiscardCmd) Help() string {
	return `Deletes a fork and everything written into it; the tape is unchanged.

Example:
  tape discard 01JD8Z5N0QF3KJ6W2M1T7XG4BC`
}

func (c *DiscardCmd) Run(env *Env, g *Globals) error {
	ws, t, err := g.openTape(env, oneTape, false)
	if err != nil {
		return g.forkElsewhere(env, c.ID, err)
	}
	defer ws.Close()
	defer t.Close()
	if err := t.Discard(env.Context(), c.ID); err != nil {
		return g.forkElsewhere(env, c.ID, err)
	}
	path := ws.Abs(forkRel(t.Name(), c.ID))
	if c.JSON {
		return newJSONLines(env.Stdout).write(forkRecord{Fork: c.ID, Tape: t.Name(), Path: path})
	}
	if _, err := fmt.Fprintf(env.Stdout, "discarded fork %s of tape %s\n", c.ID, t.Name()); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
