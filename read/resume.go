package read

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views/sessions"
)

// Resume is how to go back into a tape's session in the agent that
// recorded it (tape resume, the web page's session header).
type Resume struct {
	Tape, Source, SessionID, CWD string
	// Argv is the agent's command, to run in CWD; nil when the agent has
	// none, or the tape is no imported session.
	Argv []string
}

// Missing says why the session has no command that resumes it.
func (r Resume) Missing() string {
	if r.Source == "" || r.SessionID == "" {
		return fmt.Sprintf("tape %s is no agent's session (it was written with tape or by Bub): there is nothing to resume; 'tape log -t %s' reads it", r.Tape, r.Tape)
	}
	return fmt.Sprintf("%s has no command that reopens a session from a terminal; tape %s is its session %s, in %s", r.Source, r.Tape, r.SessionID, r.CWD)
}

// ErrNoResume says a name is neither a tape nor an entry's id.
var ErrNoResume = errors.New("no tape and no entry of that name")

// Shell is the command as a line for a POSIX shell: cd to the session's
// folder, then the agent's command, each word quoted when it needs to be.
func (r Resume) Shell() string {
	if r.Argv == nil {
		return ""
	}
	words := make([]string, len(r.Argv))
	for i, w := range r.Argv {
		words[i] = wording.ShellWord(w)
	}
	line := strings.Join(words, " ")
	if r.CWD != "" {
		line = "cd " + wording.ShellWord(r.CWD) + " && " + line
	}
	return line
}

// ResumeOf is how to resume the session of the tape called name, or of
// the tape that holds the entry whose id is name.
func ResumeOf(ctx context.Context, ix *projector.Projector, name string) (Resume, error) {
	tape, anchors, err := tapeNamed(ctx, ix, name)
	if err != nil {
		return Resume{}, err
	}
	rows, _, err := sessions.List(ctx, ix, sessions.Filter{Tape: tape})
	if err != nil || len(rows) == 0 {
		return Resume{Tape: tape}, err
	}
	return ResumeFor(rows[0], anchors[0]), nil
}

// ResumeFor is how to resume a session, from its row of the sessions view
// and its tape's first anchor (the transcript it came from): what a front
// end that holds both (the web page's tape) asks without reading them
// again.
func ResumeFor(s sessions.Session, first tapelog.Anchor) Resume {
	r := Resume{Tape: s.Name, Source: s.Source, SessionID: s.SessionID, CWD: s.CWD}
	if r.Source == "" || r.SessionID == "" || strings.HasPrefix(r.SessionID, "-") {
		return r // no session; or an id a transcript wrote that the agent would read as a flag
	}
	var state struct {
		File string `json:"file"`
	}
	_ = json.Unmarshal(first.State, &state) // a state of another shape names no file
	r.Argv, _ = importer.ResumeCommand(r.Source, source.Resumable{ID: r.SessionID, CWD: r.CWD, File: state.File})
	return r
}

// tapeNamed is name when a tape is called that, else the tape that holds
// an entry of that id; and its anchors.
func tapeNamed(ctx context.Context, ix *projector.Projector, name string) (string, []tapelog.Anchor, error) {
	anchors, _, err := ix.Anchors(ctx, name)
	if err != nil || len(anchors) > 0 {
		return name, anchors, err
	}
	tape, ok, err := ix.TapeOfEntry(ctx, name)
	if err != nil {
		return "", nil, err
	}
	if ok {
		if anchors, _, err = ix.Anchors(ctx, tape); err != nil {
			return "", nil, err
		}
	}
	if len(anchors) == 0 {
		return "", nil, fmt.Errorf("%q: %w", name, ErrNoResume)
	}
	return tape, anchors, nil
}
