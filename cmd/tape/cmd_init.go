package main

import (
	"fmt"
	"path/filepath"

	tapelog "github.com/tape-dev/tape/log"
)

// InitCmd is `tape init`.
type InitCmd struct {
	Dir  string `arg:"" optional:"" type:"path" help:"The folder to create .tape/ in (default: the current folder)."`
	JSON bool   `help:"Print the result as a JSON object."`
}

func (c *InitCmd) Help() string {
	return `Creates .tape/ with config.json and the default tape, main, which starts with
the bootstrap anchor 001_session-start. Running it again in a workspace changes
nothing.

Example:
  tape init && tape append --kind message '{"role":"user","content":"hi"}'`
}

func (c *InitCmd) Run(env *Env, g *Globals) error {
	dir := c.Dir
	if dir == "" {
		var err error
		if dir, err = workingDir(env); err != nil {
			return fmt.Errorf("init: %w", err)
		}
	}
	ws, created, err := tapelog.Init(dir)
	if err != nil {
		return err
	}
	defer ws.Close()
	if c.JSON {
		return newJSONLines(env.Stdout).write(map[string]any{
			"workspace": ws.Dir(), "created": created, "tape": ws.Config().DefaultTape,
		})
	}
	verb := "Initialized empty"
	if !created {
		verb = "Reinitialized existing"
	}
	fmt.Fprintf(env.Stdout, "%s tape workspace in %s\n", verb, filepath.Clean(ws.Dir()))
	return nil
}
