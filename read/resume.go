package read

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/source"
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
		words[i] = shellQuote(w)
	}
	line := strings.Join(words, " ")
	if r.CWD != "" {
		line = "cd " + shellQuote(r.CWD) + " && " + line
	}
	return line
}

// shellQuote is w as one word of a POSIX shell.
func shellQuote(w string) string {
	if w != "" && w[0] != '=' && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// ResumeOf is how to resume the session of the tape called name, or of
// the tape that holds the entry whose id is name.
func ResumeOf(ctx context.Context, ix *projector.Projector, name string) (Resume, error) {
	tape, err := tapeNamed(ctx, ix, name)
	if err != nil {
		return Resume{}, err
	}
	rows, _, err := sessions.List(ctx, ix, sessions.Filter{Tape: tape})
	if err != nil {
		return Resume{}, err
	}
	r := Resume{Tape: tape}
	if len(rows) == 0 {
		return r, nil
	}
	s := rows[0]
	r.Source, r.SessionID, r.CWD = s.Source, s.SessionID, s.CWD
	if r.Source == "" || r.SessionID == "" || strings.HasPrefix(r.SessionID, "-") {
		return r, nil // no session; or an id a transcript wrote that the agent would read as a flag
	}
	first, err := firstState(ctx, ix, tape)
	if err != nil {
		return r, err
	}
	r.Argv, _ = importer.ResumeCommand(r.Source, source.Resumable{ID: r.SessionID, CWD: r.CWD, File: first.File, Agent: first.AgentID})
	return r, nil
}

// tapeNamed is name when a tape is called that, else the tape that holds
// an entry of that id.
func tapeNamed(ctx context.Context, ix *projector.Projector, name string) (string, error) {
	anchors, _, err := ix.Anchors(ctx, name)
	if err != nil {
		return "", err
	}
	if len(anchors) > 0 {
		return name, nil
	}
	tape, ok, err := ix.TapeOfEntry(ctx, name)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("%q: %w", name, ErrNoResume)
	}
	return tape, nil
}

// anchorFacts are what an imported tape's first anchor says of where it
// came from.
type anchorFacts struct {
	File    string `json:"file"`
	AgentID string `json:"agent_id"`
}

func firstState(ctx context.Context, ix *projector.Projector, tape string) (anchorFacts, error) {
	var f anchorFacts
	anchors, _, err := ix.Anchors(ctx, tape)
	if err != nil || len(anchors) == 0 {
		return f, err
	}
	_ = json.Unmarshal(anchors[0].State, &f) // a state of another shape says nothing of this
	return f, nil
}
