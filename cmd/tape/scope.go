package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/tape-dev/tape/bub"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
)

// Which tapes a command reads: one rule for every command
// (docs/decisions/0058). The flags are read here; its core, what a name or
// its absence selects, is log's Workspace.SelectTape, which the MCP
// server shares.
//
// A command reads the selected tape: --session, else --tape (or
// TAPE_NAME), else the workspace's default tape (default_tape in
// config.json, "main"). --all-tapes widens a command that can read every
// tape to all of them, as `git log --all` widens `git log`; with --tape or
// --session it is a usage error, and it overrides TAPE_NAME, which is a
// default from the environment, not a choice made on the command line.
// --session overrides TAPE_NAME too, and with --tape is a usage error.
// When no tape is named and the default tape does not exist (a workspace
// of imported sessions), a command that can read every tape does, and one
// that needs one tape fails, saying how to pick one. For a command that
// can read every tape, a default tape that holds no entry, only anchors,
// is as if it did not exist when the workspace has other tapes: it is the
// default tape not yet written, as tape init leaves it before sessions
// are imported (docs/decisions/0062).

// reach is how many tapes a command can work on: the log package's
// Reach, which holds the core of the rule.
type reach = tapelog.Reach

const (
	// oneTape: a command that reads or changes one tape, which must
	// exist (log, show, anchors, context, messages, fork, merge, discard,
	// reset).
	oneTape = tapelog.OneTape
	// newTape: a command that writes one tape and makes it if it is
	// missing (append, handoff).
	newTape = tapelog.NewTape
	// anyTapes: a command that can read every tape (info, search, calls,
	// usage).
	anyTapes = tapelog.AnyTapes
)

// selectTape is the rule: the tape the flags and the workspace select for
// a command of reach r, or nil for every tape. allTapes is --all-tapes.
// The flags are read here; what they select, Workspace.SelectTape
// decides, and a tape that is not there is said here in the CLI's words.
func (g *Globals) selectTape(ws *tapelog.Workspace, r reach, allTapes bool) (*tapelog.Tape, error) {
	if allTapes {
		switch {
		case g.tapeFlag:
			return nil, usagef("--all-tapes reads every tape and --tape names one; give one or the other")
		case g.Session != "":
			return nil, usagef("--all-tapes reads every tape and --session names one; give one or the other")
		}
		return nil, nil
	}
	name, err := g.tapeName(ws)
	if err != nil {
		return nil, err
	}
	if !g.named() {
		name = "" // the workspace's default
	}
	t, err := ws.SelectTape(name, r)
	var missing *tapelog.NoTapeError
	if !errors.As(err, &missing) {
		return t, err
	}
	switch {
	case g.Session != "":
		return nil, noSessionTape(ws, g.Session)
	case missing.Named:
		return nil, noSuchTape(ws, missing.Name)
	}
	return nil, noDefaultTape(ws, missing.Name)
}

// whyEveryTape says why a command that can read every tape read them all
// with no tape named: its default tape does not exist, or holds no entry.
func whyEveryTape(ws *tapelog.Workspace) string {
	name := ws.Config().DefaultTape
	if t, err := ws.Tape(name); err == nil {
		defer t.Close()
		if ok, err := t.Exists(); err == nil && ok {
			return fmt.Sprintf("tape %q (the default) holds no entries", name)
		}
	}
	return fmt.Sprintf("no tape %q (the default)", name)
}

// tapeName is the tape the flags select: --session, else --tape/TAPE_NAME,
// else the workspace's default. --session and --tape on one command line
// are a usage error; --session overrides TAPE_NAME, the environment's
// default, as --all-tapes does.
func (g *Globals) tapeName(ws *tapelog.Workspace) (string, error) {
	switch {
	case g.Session != "" && g.tapeFlag:
		return "", usagef("--session and --tape both name a tape; give one")
	case g.Session != "":
		return bub.SessionTape(ws.Project(), g.Session)
	case g.Tape != "":
		return g.Tape, nil
	default:
		return ws.Config().DefaultTape, nil
	}
}

// named reports whether a tape was named, on the command line or in
// TAPE_NAME, rather than left to the workspace's default.
func (g *Globals) named() bool { return g.Tape != "" || g.Session != "" }

// defaultScope reports whether t, a tape selectTape returned, is the
// workspace's default tape read because no tape was named: a command
// that found nothing in it says --all-tapes reads the others.
func (g *Globals) defaultScope(t *tapelog.Tape) bool { return t != nil && !g.named() }

// tapesOf is what a query of the tapes t selects takes: t's name, or nil
// for every tape.
func tapesOf(t *tapelog.Tape) []string {
	if t == nil {
		return nil
	}
	return []string{t.Name()}
}

// nameOf is t's name, or "" for every tape.
func nameOf(t *tapelog.Tape) string {
	if t == nil {
		return ""
	}
	return t.Name()
}

var errNoTape = errors.New("no such tape")

// shownTapes is how many tape names an error lists: a workspace of
// imported sessions has thousands, and 'tape tapes' lists them all.
const shownTapes = 5

// noSuchTape is the error for a named tape that does not exist.
func noSuchTape(ws *tapelog.Workspace, name string) error {
	names, _ := ws.Tapes()
	list := "none yet"
	if len(names) > 0 {
		list = someTapes(names)
		if len(names) > shownTapes {
			list += "; see 'tape tapes'"
		}
	}
	return fmt.Errorf("%w %q in %s (tapes: %s); pick one with --tape, or append to create it", errNoTape, name, ws.Dir(), list)
}

// noSessionTape is the error for --session ID when the session has no
// tape: named by the id the person gave, not by the tape name Bub derives
// from it, which they never saw.
func noSessionTape(ws *tapelog.Workspace, id string) error {
	return hintError{kind: errNoTape, msg: fmt.Sprintf("no tape for session %q in %s; check the session id, or append with --session to create its tape", id, ws.Dir())}
}

// noDefaultTape is the error for a command that needs one tape when none
// is named and the default tape does not exist.
func noDefaultTape(ws *tapelog.Workspace, name string) error {
	names, _ := ws.Tapes()
	if len(names) == 0 {
		return hintError{errNoTape, fmt.Sprintf("no tapes in %s yet, not even %q (the default tape)", ws.Dir(), name),
			"write one with 'tape append', or import your agents' sessions with 'tape import' ('tape sources' lists them)"}
	}
	return hintError{errNoTape, fmt.Sprintf("no tape %q (the default tape) in %s, which has %d tapes: %s", name, ws.Dir(), len(names), someTapes(names)),
		"pick one with --tape NAME (or TAPE_NAME); 'tape tapes' lists them all, newest first"}
}

// someTapes lists the first few names, and how many more there are.
func someTapes(names []string) string {
	if len(names) <= shownTapes {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shownTapes], ", "), len(names)-shownTapes)
}

// hintDefaultOnly says on stderr, when a command read only the default
// tape because none was named and found nothing there, that --all-tapes
// reads the others: what a person who imported sessions into a workspace
// with an empty main needs to hear. did says what the command did ("was
// searched"), widened what --all-tapes would do ("searches").
func hintDefaultOnly(env *Env, g *Globals, ws *tapelog.Workspace, t *tapelog.Tape, did, widened string) {
	if !g.defaultScope(t) {
		return
	}
	names, _ := ws.Tapes()
	if len(names) < 2 {
		return
	}
	fmt.Fprintf(env.Stderr, "hint: only tape %s (the default tape) %s; --all-tapes %s all %d tapes\n", wording.Printable(t.Name()), did, widened, len(names))
}

// forkElsewhere is err, a fork command's failure to find the fork id on
// the tape it selected (or to find that tape), made to name the tape that
// holds the fork, when no tape was named and another tape holds it: fork
// ids are unique in a workspace, and a person who forked a tape with
// --tape may leave it off the next command. Named, the tape is the one
// meant, and err stands.
func (g *Globals) forkElsewhere(env *Env, id string, err error) error {
	if g.named() || !(errors.Is(err, tapelog.ErrNoFork) || errors.Is(err, errNoTape)) {
		return err
	}
	ws, werr := g.workspace(env)
	if werr != nil {
		return err
	}
	defer ws.Close()
	owner, ferr := ws.ForkTape(id)
	if ferr != nil || owner == "" {
		return err
	}
	not := ""
	if t, terr := ws.Tape(ws.Config().DefaultTape); terr == nil {
		if ok, _ := t.Exists(); ok {
			not = ", not " + wording.Printable(t.Name())
		}
		t.Close()
	}
	return hintError{kind: tapelog.ErrNoFork, msg: fmt.Sprintf("fork %s is on tape %s%s; add --tape %s", wording.Printable(id), wording.Printable(owner), not, wording.Printable(owner))}
}

// hintEmptyDefault says on stderr, when a command that reads one tape
// read the default tape because none was named and printed nothing, and
// the tape does not count as the default for the commands that can read
// every tape (Tape.CountsAsDefault: it holds no entry, and there are others),
// how to pick another: a workspace where tape init made main before
// sessions were imported.
func hintEmptyDefault(env *Env, g *Globals, t *tapelog.Tape) {
	if !g.defaultScope(t) {
		return
	}
	if ok, err := t.CountsAsDefault(); err != nil || ok {
		return
	}
	names, _ := t.Workspace().Tapes()
	fmt.Fprintf(env.Stderr, "hint: tape %s (the default tape) holds no entries; pick another with --tape NAME (or TAPE_NAME); 'tape tapes' lists all %d, newest first\n",
		wording.Printable(t.Name()), len(names))
}

// tapeFlagGiven reports whether the command line gave --tape (or -t), as
// against TAPE_NAME: kong records a flag it parsed from the arguments in
// the context's path, and one it took from the environment nowhere.
func tapeFlagGiven(kctx *kong.Context) bool {
	for _, p := range kctx.Path {
		if p.Flag != nil && p.Flag.Name == "tape" && !p.Resolved {
			return true
		}
	}
	return false
}
