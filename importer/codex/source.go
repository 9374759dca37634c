// Package codex imports the Codex CLI's rollouts: one {"timestamp",
// "type", "payload"} record a line in <codex home>/sessions/YYYY/MM/DD/
// rollout-<time>-<id>.jsonl (and bare records in the rollouts of mid
// 2025). docs/IMPORT.md has the mapping, field by field.
//
// Files: source.go (where rollouts live, the converter's state), line.go
// (a line's envelope, and which mapping reads it), decode.go (reading a
// line of the current layout without encoding/json), session.go (the
// session's anchor and header), messages.go (messages and reasoning, each
// of which Codex may write twice), calls.go (a run of tool calls, held
// until it ends), usage.go (cumulative token counts to what a turn
// added), parts.go (contents and summaries), payloads.go (the payloads of
// the entries most lines make, in the bytes encoding/json wrote of them),
// chunks.go (their memory, a chunk at a time).
package codex

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
)

// Source is the Codex CLI's rollouts, as tape imports them: `tape import
// codex`.
type Source struct{}

// Name is "codex".
func (Source) Name() string { return "codex" }

func (Source) Agent() string { return "Codex CLI" }

// DefaultDirs are $CODEX_HOME/sessions, else ~/.codex/sessions.
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	if dir := getenv("CODEX_HOME"); dir != "" {
		return []string{filepath.Join(dir, "sessions")}
	}
	return []string{filepath.Join(home, ".codex", "sessions")}
}

// DirsEnv is CODEX_HOME.
func (Source) DirsEnv() string { return "CODEX_HOME" }

// IsTranscript reports whether path is a rollout-*.jsonl file.
func (Source) IsTranscript(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl")
}

// TapeName is source.TapeName on the last digits of the session id
// ("codex-62a89cd5"): Codex's ids are UUIDv7, whose first digits are the
// time, the same for sessions started within a minute.
func (Source) TapeName(s source.Session, long bool) string { return source.TapeName(s, long, true) }

// NewConverter starts a converter of the rollout at path.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// fileSession is the session a rollout's name says it holds: its
// name ends in the session's id.
func fileSession(path string) source.Session {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	s := source.Session{Source: "codex", ID: stem}
	if len(stem) >= 36 && source.IsUUID(stem[len(stem)-36:]) {
		s.ID = stem[len(stem)-36:]
	}
	return s
}

// convState is what a Codex converter carries from line to line, and
// keeps in a checkpoint.
type convState struct {
	Session source.Session `json:"session"`
	Started bool           `json:"started"` // the session's first anchor was made
	Meta    bool           `json:"meta"`    // its session_meta was read (a later one is a parent's, replayed)
	CWD     string         `json:"cwd"`
	Model   string         `json:"model"`
	Totals  *tokens        `json:"totals"` // the last cumulative usage
	Parent  string         `json:"parent"` // the parent session of a subagent or a fork
	Date    string         `json:"date"`   // the last timestamp read, for records without one
	// Echo holds, by role (user, assistant, reasoning), the text of the
	// last message made from one of the two records Codex writes of it (a
	// response item and an event), until the other one comes: that one is
	// the same message, and makes no entry (see echoed).
	Echo map[string]string `json:"echo,omitempty"`
}

type converter struct {
	path string
	st   convState
	// saved is st before the held calls, which State writes while they
	// are held: a copy, whose Echo is st's until echoed changes it
	// (echoShared). Totals is replaced, never changed. Cloning Echo at
	// each run of calls was a twentieth of the converter's allocations.
	saved      convState
	echoShared bool
	group      *callGroup
	metas      metaWriter
	ids        source.LineIDs
	dec        lineDecoder
	dates      dateReader
	chunks     chunks
	scratch    []byte // a meta being written, before it is kept (chunks.keep)
}

func newConverter(path string, state []byte) (*converter, error) {
	c := &converter{path: path, metas: newMetaWriter(path), ids: source.NewLineIDs(path)}
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	if c.st.Session.Source == "" {
		c.st.Session = fileSession(path)
	}
	return c, nil
}

func (c *converter) closeAll() []source.Output {
	if c.group == nil {
		return nil
	}
	return c.closeGroup()
}

func (c *converter) Held() (int, int64, bool) {
	if c.group == nil {
		return 0, 0, false
	}
	return c.group.line - 1, c.group.offset, true
}

func (c *converter) Flush() []source.Output { return c.closeAll() }

func (c *converter) State() ([]byte, error) {
	if c.group != nil {
		return source.MustJSON(c.saved), nil
	}
	return json.Marshal(c.st)
}
