package main

import (
	"fmt"
)

// ForkCmd is `tape fork`.
type ForkCmd struct {
	JSON bool `help:"Print the new fork as a JSON object ({\"fork\",\"tape\",\"path\"})."`
}

func (c *ForkCmd) Help() string {
	return `Starts a fork of the tape and prints its id. Write into it with
'tape append --fork ID' (and 'tape handoff --fork ID'); reads of the tape do not
see it until 'tape merge ID', and 'tape discard ID' throws it away. A fork is a
folder of plain JSONL files, .tape/tapes/<tape>/forks/<id>/, to read with ls and cat.

Example:
  id=$(tape fork) && tape append --fork "$id" --kind message '{"role":"assistant","content":"trying a plan"}'`
}

func (c *ForkCmd) Run(env *Env, g *Globals) error {
	ws, t, err := g.openTape(env, oneTape, false) // a fork of a tape that is not there would make it
	if err != nil {
		return err
	}
	defer ws.Close()
	defer t.Close()
	id, err := t.Fork(env.Context())
	if err != nil {
		return err
	}
	if c.JSON {
		return newJSONLines(env.Stdout).write(forkRecord{Fork: id, Tape: t.Name(), Path: ws.Abs(forkRel(t.Name(), id))})
	}
	if _, err := fmt.Fprintln(env.Stdout, id); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// forkRecord is what `tape fork --json` and `tape discard --json` print.
type forkRecord struct {
	Fork string `json:"fork"`
	Tape string `json:"tape"`
	Path string `json:"path"`
}

func forkRel(tape, id string) string { return "tapes/" + tape + "/forks/" + id }
