package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/read/records"
)

// HandoffCmd is `tape handoff`.
type HandoffCmd struct {
	Name    string `arg:"" help:"The new anchor's name; may contain '/' (session/start)."`
	State   string `placeholder:"JSON" help:"The state the next phase inherits, a JSON object."`
	Summary string `placeholder:"TEXT" help:"A summary of the phase that ends, stored as state.summary."`
	JSON    bool   `help:"Print the new anchor as a JSON object."`
	Fork    string `placeholder:"ID" help:"Hand off inside the fork ID (see 'tape fork'); the anchor reaches the tape with 'tape merge'."`
}

func (c *HandoffCmd) Help() string {
	return `Creates the next anchor folder, NNN_<slug>, with its anchor.json, atomically,
and prints its path. Later appends go there. Concurrent handoffs never share a
seq.

Example:
  tape handoff review --summary "tests pass; next: review the diff" --state '{"branch":"fix-42"}'`
}

func (c *HandoffCmd) Run(env *Env, g *Globals) error {
	state, err := c.state()
	if err != nil {
		return err
	}
	ws, t, err := g.openTape(env, newTape, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	defer t.Close()
	parent := t
	if t, err = forkOf(t, c.Fork); err != nil {
		return g.forkElsewhere(env, c.Fork, err)
	}
	defer t.Close()
	a, err := t.Handoff(env.Context(), c.Name, state)
	if err != nil {
		return err
	}
	rel := "tapes/" + t.Name() + "/anchors/" + a.Folder
	if t != parent {
		rel = forkRel(t.Name(), c.Fork) + "/anchors/" + a.Folder
	}
	if c.JSON {
		return newJSONLines(env.Stdout).write(records.NewAnchor(t.Name(), a, 0, ws.Abs(rel)))
	}
	fmt.Fprintln(env.Stdout, displayPath(env, ws.Abs(rel)))
	return nil
}

// state is --state with --summary merged in as state.summary
// (tapelog.WithSummary), its errors said with the flags' names.
func (c *HandoffCmd) state() (json.RawMessage, error) {
	state, err := tapelog.WithSummary(json.RawMessage(c.State), c.Summary)
	switch {
	case errors.Is(err, tapelog.ErrStateNotObject):
		return nil, usagef("--state must be a JSON object, like '{\"key\": \"value\"}'")
	case errors.Is(err, tapelog.ErrSummaryTwice):
		return nil, usagef("--summary and a \"summary\" key in --state both set the summary; give one")
	}
	return state, err
}

// displayPath shows a path relative to the working folder when it is below
// it, as git does, and absolute otherwise.
func displayPath(env *Env, abs string) string {
	wd := env.Dir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return abs
}
