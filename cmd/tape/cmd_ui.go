package main

import (
	"errors"
	"os"
	"runtime/debug"

	tea "charm.land/bubbletea/v2"

	"github.com/tape-dev/tape/fresh"
	"github.com/tape-dev/tape/tui"
)

// UICmd is `tape ui`.
type UICmd struct{}

func (c *UICmd) Help() string {
	return `A full-screen terminal UI over the workspace's sessions: the list (newest
first, with a preview), search as you type across every tape or one, and a
session read as a chat, tool calls folded with their results, thinking
dimmed. New entries appear as agents write them.

Keys are shown at the bottom of each screen: / searches, enter opens, r
resumes the session in its agent (what tape resume prints), e exports it
to <tape>.md here (secrets redacted), y copies the resume command (in a
session: the entry), q goes back. A query takes filters:
source:claude project:tape kind:tool_result since:2d until:1d.

With --tape (-t), that session opens first, and / searches it until tab
widens the search to every tape. NO_COLOR is honored.`
}

func (c *UICmd) Run(env *Env, g *Globals) error {
	if !isTerminal(env.Stdout) || !isTerminal(env.Stdin) {
		return usagef("tape ui draws on a terminal; 'tape tapes' lists the sessions and 'tape search' finds entries")
	}
	ws, err := g.workspace(env)
	if err != nil {
		return err
	}
	defer ws.Close()
	served := fresh.NewServed(ws, "tape ui", fresh.Reading{StartWatcher: watchStarter(env, ws)})
	defer served.Close()
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	info, _ := debug.ReadBuildInfo()
	exporter := &tui.Exporter{Served: served, Dir: dir, Version: versionOf(info).Version}
	opt := tui.Options{Reader: tui.Index{Served: served}, Export: exporter.Export}
	if g.tapeFlag {
		opt.Tape = g.Tape
	}
	p := tea.NewProgram(tui.New(env.Context(), opt), tea.WithContext(env.Context()), tea.WithInput(env.Stdin), tea.WithOutput(env.Stdout))
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return err
	}
	return nil
}
