package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// Exit codes, documented in `tape --help` and docs/CLI.md.
const (
	exitOK        = 0 // success
	exitNoMatch   = 1 // a search or filter matched nothing
	exitUsage     = 2 // bad flags or arguments, or input that was refused
	exitWorkspace = 3 // no workspace, no such tape or anchor, unreadable files, I/O errors
	exitServer    = 4 // the team's PostgreSQL server could not be reached, went away, or refused
)

const exitCodesHelp = `Exit status: 0 ok, 1 nothing matched, 2 usage error or refused input,
3 workspace or data problem (no .tape folder, no such tape or anchor, I/O),
4 the team's PostgreSQL server could not be reached, went away, or refused
(tape sync, --remote; a sync run again goes on where it stopped).`

// usageError is an error in how the command was called.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// hintError is an error reported in two lines: what happened, and a
// hint, "hint: <what to do>", for an error whose remedy does not fit on
// its line. Its kind is the sentinel that decides its exit code, without
// its words in the message; with no hint, it is one line.
type hintError struct {
	kind      error
	msg, hint string
}

func (e hintError) Error() string { return e.msg }
func (e hintError) Unwrap() error { return e.kind }

// exitCode maps an error to the process's exit status. It is the only place
// that decides exit codes.
func exitCode(err error) int {
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errNoMatch), errors.Is(err, errSecretsFound):
		return exitNoMatch
	case errors.Is(err, errServer):
		return exitServer
	case errors.As(err, &ue),
		errors.Is(err, tapelog.ErrInvalid),
		errors.Is(err, tapelog.ErrTooLarge),
		errors.Is(err, tapelog.ErrBadName):
		return exitUsage
	default:
		return exitWorkspace
	}
}

// report prints err on stderr as "tape: <what happened>", one line, with the
// hint that says what to run when there is one: on the same line, or on a
// second, "hint: ...", for a hintError.
func report(w io.Writer, err error) {
	if errors.Is(err, errNoMatch) || errors.Is(err, errSecretsFound) {
		return // like grep: the output says it
	}
	msg := withoutPackages(err)
	if errors.Is(err, tapelog.ErrNoWorkspace) {
		msg += "; run 'tape init' to create a workspace here, or set TAPE_DIR"
	}
	fmt.Fprintf(w, "tape: %s\n", wording.Printable(msg))
	var h hintError
	switch {
	case errors.As(err, &h) && h.hint != "":
		fmt.Fprintf(w, "hint: %s\n", wording.Printable(h.hint))
	case projector.IsDiskFull(err) && !errors.Is(err, projector.ErrDiskFull): // that one says what to do
		fmt.Fprintln(w, "hint: the disk is full: free space on it (df -h shows where), then run the command again")
	}
}

// withoutPackages is err's message without the package prefixes of the
// sentinels it wraps ("projector: the index is held ..."): a person reads
// what happened, not where in tape's code.
func withoutPackages(err error) string {
	msg := err.Error()
	for _, pkg := range []string{"log: ", "projector: ", "fresh: ", "remote: "} {
		msg = strings.TrimPrefix(strings.ReplaceAll(msg, ": "+pkg, ": "), pkg)
	}
	return msg
}
