package main

import (
	"errors"
	"fmt"
	"os/exec"

	"github.com/tape-dev/tape/internal/wording"
	"github.com/tape-dev/tape/read"
)

// ResumeCmd is `tape resume`.
type ResumeCmd struct {
	Name string `arg:"" name:"tape|entry" help:"A tape, or the id of an entry of one (as tape search --json prints it)."`
	Exec bool   `help:"Run the command: cd to the session's folder and start its agent on it."`
	JSON bool   `help:"Print one JSON object: tape, source, session_id, cwd, argv (null when the agent has none), command."`
}

func (c *ResumeCmd) Help() string {
	return `Prints the command that reopens a session in the agent that recorded it, in
the folder it ran in, for a tape or the tape of an entry found by search:

  cd /home/u/proj && claude --resume 5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12
  cd /home/u/proj && codex resume 019a2d7a-41c4-78b1-b7cc-a45d62a89cd5

--exec runs it. An agent that cannot reopen a given session (a VS Code
extension's task) is named, with exit status 1; so is a tape that no agent
recorded (written with tape append, or by Bub).

Examples:
  tape resume claude-5d7e6b2e
  tape resume "$(tape search 'flush timeout' --all-tapes --json -n 1 | jq -r .id)" --exec`
}

func (c *ResumeCmd) Run(env *Env, g *Globals) error {
	ix, closeAll, err := g.openWorkspaceIndex(env)
	if err != nil {
		return err
	}
	defer closeAll()
	r, err := read.ResumeOf(env.Context(), ix, c.Name) // the index is caught up: openWorkspaceIndex
	if err != nil {
		if errors.Is(err, read.ErrNoResume) {
			return usagef("%s; 'tape tapes' lists the tapes", err)
		}
		return err
	}
	if c.JSON {
		return newJSONLines(env.Stdout).write(resumeRecord{Tape: r.Tape, Source: r.Source, SessionID: r.SessionID, CWD: r.CWD, Argv: r.Argv, Command: r.Shell()})
	}
	if r.Argv == nil {
		fmt.Fprintf(env.Stderr, "tape: %s\n", wording.Printable(r.Missing())) // ids and folders a transcript wrote: no terminal escapes
		return errNoMatch
	}
	if !c.Exec {
		_, err := fmt.Fprintln(env.Stdout, wording.Printable(r.Shell()))
		return err
	}
	cmd := exec.CommandContext(env.Context(), r.Argv[0], r.Argv[1:]...)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = r.CWD, env.Stdin, env.Stdout, env.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", r.Shell(), err)
	}
	return nil
}

// resumeRecord is tape resume --json's line. Its names are a contract.
type resumeRecord struct {
	Tape      string   `json:"tape"`
	Source    string   `json:"source"`
	SessionID string   `json:"session_id"`
	CWD       string   `json:"cwd"`
	Argv      []string `json:"argv"`
	Command   string   `json:"command"`
}
