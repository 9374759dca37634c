package log

import (
	"errors"
	"fmt"
)

// Which tapes a reader or writer works on: the core of the one rule
// (docs/decisions/0058, 0062), shared by every front end (the CLI, the
// MCP server), which names a tape in its own way (--tape, --session, a
// tool's "tape" argument) and words the errors for its own users.
//
// A named tape is the one used. With none named, the workspace's default
// tape (default_tape in config.json) is. When the default tape does not
// exist, a reader that can read every tape does, and one that needs one
// tape fails with a *NoTapeError. For a reader that can read every tape,
// a default tape that holds no entry, only anchors, is as if it did not
// exist when the workspace has other tapes: it is the default tape not
// yet written, as `tape init` leaves it before sessions are imported.

// Reach is how many tapes a command can work on.
type Reach int

const (
	// OneTape: a command that reads or changes one tape, which must exist.
	OneTape Reach = iota
	// NewTape: a command that writes one tape and makes it if it is
	// missing.
	NewTape
	// AnyTapes: a command that can read every tape.
	AnyTapes
)

// ErrNoTape is wrapped by every *NoTapeError.
var ErrNoTape = errors.New("log: no such tape")

// NoTapeError says that the tape a command needs does not exist.
type NoTapeError struct {
	Name  string // the tape looked for
	Named bool   // the caller named it; false: the workspace's default, none named
}

func (e *NoTapeError) Error() string {
	if e.Named {
		return fmt.Sprintf("log: no tape %q", e.Name)
	}
	return fmt.Sprintf("log: no tape %q (the default tape)", e.Name)
}

func (e *NoTapeError) Unwrap() error { return ErrNoTape }

// SelectTape returns the tape a command of reach r works on: the tape
// named, or with name "" the workspace's default; nil, with no error, for
// every tape. A tape that is not there is a *NoTapeError, but for NewTape,
// which makes it, and for AnyTapes with none named, which reads every tape.
// A name that is not a tape name is an error that wraps ErrBadName.
func (w *Workspace) SelectTape(name string, r Reach) (*Tape, error) {
	named := name != ""
	if !named {
		name = w.Config().DefaultTape
	}
	t, err := w.Tape(name)
	if err != nil || r == NewTape {
		return t, err
	}
	ok, err := t.Exists()
	if err == nil && ok && r == AnyTapes && !named {
		ok, err = t.CountsAsDefault()
	}
	if err != nil || !ok {
		t.Close()
	}
	switch {
	case err != nil:
		return nil, err
	case ok:
		return t, nil
	case !named && r == AnyTapes:
		return nil, nil
	}
	return nil, &NoTapeError{Name: name, Named: named}
}

// CountsAsDefault reports whether t, the default tape, which exists, is the
// tape a command that can read every tape reads when none is named: unless
// it holds no entry and the workspace has other tapes.
func (t *Tape) CountsAsDefault() (bool, error) {
	if ok, err := t.HoldsEntries(); err != nil || ok {
		return ok, err
	}
	names, err := t.Workspace().Tapes()
	return len(names) < 2, err
}

// HoldsEntries reports whether the tape holds an entry besides its anchors:
// a *.jsonl file with a byte in it, in any anchor folder. A file that
// cannot be read counts: something is there. It lists the folders until
// the first such file, which is in the first folder of a tape that has
// been written.
func (t *Tape) HoldsEntries() (bool, error) {
	folders, err := t.Folders()
	if err != nil {
		return false, err
	}
	for _, f := range folders {
		files, err := t.Files(f.Name)
		if err != nil {
			return false, err
		}
		for _, fi := range files {
			if fi.Size > 0 || fi.Err != nil {
				return true, nil
			}
		}
	}
	return false, nil
}
