// Package copilot imports the GitHub Copilot CLI's sessions: one event a
// line, {"type", "data", "id", "timestamp", "parentId", "agentId"}, in
// <copilot home>/session-state/<session id>/events.jsonl (1.x and the
// 0.0.4xx releases of early 2026), or in session-state/<session id>.jsonl
// (from 0.0.342, October 2025); and the pretty-printed JSON document of
// one session in history-session-state/session_<id>_<time>.json (up to
// 0.0.341). docs/IMPORT.md has the mapping, field by field;
// docs/decisions/0087-copilot-sessions.md what was decided and why.
//
// Files: source.go (where sessions live, the converter's state), line.go
// (a line, which tape it goes to, and which mapping reads it), fields.go
// (an event's envelope, and the members of its data the mappings read),
// numbers.go (numbers no float64 holds), session.go (the first anchors,
// compactions, errors), messages.go (prompts, replies, thinking),
// tools.go (tool calls and their results), usage.go (the shutdowns'
// cumulative token counts to what each added, as ccusage counts them),
// history.go (the legacy JSON documents).
package copilot

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// Source is the Copilot CLI's session files, as tape imports them: `tape
// import copilot`.
type Source struct{}

// Name is "copilot".
func (Source) Name() string { return "copilot" }

func (Source) Agent() string { return "GitHub Copilot CLI" }

// DefaultDirs are $COPILOT_HOME/session-state and
// $COPILOT_HOME/history-session-state, else those of ~/.copilot, and of
// $XDG_STATE_HOME/.copilot where releases of early 2026 kept them when
// XDG_STATE_HOME was set (later releases move them to ~/.copilot).
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	roots := []string{filepath.Join(home, ".copilot")}
	if dir := getenv("COPILOT_HOME"); dir != "" {
		roots = []string{dir}
	} else if dir := getenv("XDG_STATE_HOME"); dir != "" {
		roots = append(roots, filepath.Join(dir, ".copilot"))
	}
	var dirs []string
	for _, r := range roots {
		dirs = append(dirs, filepath.Join(r, "session-state"), filepath.Join(r, "history-session-state"))
	}
	return dirs
}

// DirsEnv is COPILOT_HOME.
func (Source) DirsEnv() string { return "COPILOT_HOME" }

// IsTranscript reports whether path is a session's events: events.jsonl in
// a folder of session-state (or a folder named by a UUID), a *.jsonl file
// in session-state itself, or a *.json file in history-session-state. A
// session's folder holds other files (workspace.yaml, plan.md, its own
// files/ and checkpoints/), which are not.
func (Source) IsTranscript(path string) bool {
	base, dir := filepath.Base(path), filepath.Dir(path)
	switch {
	case base == "events.jsonl":
		return filepath.Base(filepath.Dir(dir)) == "session-state" || source.IsUUID(filepath.Base(dir))
	case strings.HasSuffix(base, ".jsonl"):
		return filepath.Base(dir) == "session-state"
	case strings.HasSuffix(base, ".json"):
		return filepath.Base(dir) == "history-session-state"
	}
	return false
}

// TapeName is source.TapeName on the first digits of the session id
// ("copilot-0f3c9a12"): Copilot's ids are random UUIDs.
func (Source) TapeName(s source.Session, long bool) string { return source.TapeName(s, long, false) }

// NewConverter starts a converter of the session file at path.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// fileSession is the session a file's path names: the folder of an
// events.jsonl, the name of any other file (session_<id>_<time>.json in
// history-session-state). named is false when that is not a UUID, and a
// session.start's sessionId may name it instead.
func fileSession(path string) (s source.Session, named bool) {
	base := filepath.Base(path)
	id := strings.TrimSuffix(strings.TrimSuffix(base, ".jsonl"), ".json")
	switch {
	case base == "events.jsonl":
		id = filepath.Base(filepath.Dir(path))
	case strings.HasPrefix(id, "session_"):
		id = strings.TrimPrefix(id, "session_")
		if i := strings.LastIndexByte(id, '_'); i > 0 {
			id = id[:i] // the time the file was written
		}
	}
	if !source.IsUUID(id) && len(id) > 36 && source.IsUUID(id[len(id)-36:]) {
		id = id[len(id)-36:] // a copy renamed with a prefix
	}
	return source.Session{Source: "copilot", ID: id}, source.IsUUID(id)
}

// isDocument reports whether the file at path is a legacy session
// document (history.go) rather than lines of events.
func isDocument(path string) bool { return strings.HasSuffix(path, ".json") }

// convState is what a Copilot converter carries from line to line, and
// keeps in a checkpoint.
type convState struct {
	Session source.Session  `json:"session"`
	Named   bool            `json:"named"`   // the path named the session (fileSession)
	Started map[string]bool `json:"started"` // the sessions given their first anchor, by agent ("" for the session)
	Date    string          `json:"date"`    // the last timestamp read, for records without one
	CWD     string          `json:"cwd"`     // the working directory and branch the last meta or anchor named
	Branch  string          `json:"branch"`
	// Calls are the tool calls an assistant.message or tool.user_requested
	// asked for whose execution has not started: by call id, a sum of the
	// name and arguments, so that the start that repeats them makes no
	// entry (tools.go).
	Calls map[string]string `json:"calls,omitempty"`
	// Thought is the last thinking text and the record it came from (the
	// agent, "r" for assistant.reasoning or "m" for an assistant.message's
	// reasoningText): Copilot may write one thought in both.
	Thought string `json:"thought,omitempty"`
	// Usage is the last shutdown's cumulative usage of each model
	// (usage.go).
	Usage map[string]tokens `json:"usage,omitempty"`
}

type converter struct {
	path string
	st   convState
	// A legacy document, while its lines come (history.go): where it
	// started, its text so far, and st before it.
	doc *heldDoc
	// members is room for a line's members, kept for the next line.
	members []rawjson.Member
}

func newConverter(path string, state []byte) (*converter, error) {
	c := &converter{path: path}
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	if c.st.Session.Source == "" {
		c.st.Session, c.st.Named = fileSession(path)
	}
	return c, nil
}

func (c *converter) Held() (int, int64, bool) {
	if c.doc == nil {
		return 0, 0, false
	}
	return c.doc.line - 1, c.doc.offset, true
}

func (c *converter) Flush() []source.Output { return c.flushDoc() }

func (c *converter) State() ([]byte, error) {
	if c.doc != nil {
		return c.doc.saved, nil
	}
	return json.Marshal(c.st)
}
