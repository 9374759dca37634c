// Package claude imports Claude Code's transcripts: one JSON record a
// line in <config>/projects/<project>/<session>.jsonl, a subagent's in
// <session>/subagents/agent-<id>.jsonl (or agent-<id>.jsonl beside the
// sessions, in Claude Code 2.0). docs/IMPORT.md has the mapping, field by
// field.
//
// Files: source.go (where transcripts live, their sessions, the
// converter's state), record.go (the records as the mapping reads them;
// scan.go reads a line into one in a single pass, decisions/0081;
// blocks.go reads content blocks fast), convert.go (records to entries),
// turn.go (an assistant turn, held until it ends), boundary.go (a
// compaction's anchor).
package claude

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// Source is Claude Code's transcripts, as tape imports them: `tape import
// claude`.
type Source struct{}

// Name is "claude".
func (Source) Name() string { return "claude" }

func (Source) Agent() string { return "Claude Code" }

// DefaultDirs are the projects folders of each of $CLAUDE_CONFIG_DIR's
// folders (a comma-separated list), else ~/.claude/projects.
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	if dirs := getenv("CLAUDE_CONFIG_DIR"); dirs != "" {
		var out []string
		for _, d := range strings.Split(dirs, ",") {
			if d = strings.TrimSpace(d); d != "" {
				out = append(out, filepath.Join(d, "projects"))
			}
		}
		return out
	}
	return []string{filepath.Join(home, ".claude", "projects")}
}

// DirsEnv is CLAUDE_CONFIG_DIR.
func (Source) DirsEnv() string { return "CLAUDE_CONFIG_DIR" }

// IsTranscript reports whether path is a .jsonl file: the sessions' and
// the subagents' alike.
func (Source) IsTranscript(path string) bool { return strings.HasSuffix(path, ".jsonl") }

// TapeName is source.TapeName on the first digits of the session id
// ("claude-5d7e6b2e"): Claude Code's ids are random (UUIDv4).
func (Source) TapeName(s source.Session, long bool) string { return source.TapeName(s, long, false) }

// NewConverter starts a converter of the transcript at path.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// fileSession is the session a transcript's name says it holds: a
// session file is named by its id, a subagent's file agent-<id>.jsonl,
// under <session>/subagents/ since Claude Code 2.1.
func fileSession(path string) source.Session {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	s := source.Session{Source: "claude"}
	if agent, ok := strings.CutPrefix(stem, "agent-"); ok {
		s.Agent = agent
		if dir := filepath.Dir(path); filepath.Base(dir) == "subagents" {
			if id := filepath.Base(filepath.Dir(dir)); source.IsUUID(id) {
				s.ID = id
			}
		}
		return s
	}
	if source.IsUUID(stem) {
		s.ID = stem // else the first line's sessionId (session)
	}
	return s
}

// convState is what a Claude converter carries from line to line, and
// keeps in a checkpoint.
type convState struct {
	Session source.Session  `json:"session"` // the file's session, once known
	Started map[string]bool `json:"started"` // sessions whose first anchor was made, by Session.Key
	CWD     string          `json:"cwd"`     // the last working directory put in a meta
	Branch  string          `json:"branch"`  // and git branch
	// Date is the last timestamp read: a record without one (a title, a
	// snapshot) takes it, so that it sorts where it was written.
	Date string `json:"date"`
}

// converter converts one Claude Code transcript.
type converter struct {
	path  string
	st    convState
	saved convState // st before the first held line (its own Started)
	turn  *openTurn // the assistant turn being read (held)
	bound *boundary
	// members are the members of line membersOf (0 for none) as
	// scanRecord split it: parts of the line, valid while it is read.
	members   []rawjson.Member
	membersOf int
	// slow decodes every line with encoding/json, the way before
	// scanRecord: for the tests and the benchmark that compare the two.
	slow bool
}

func newConverter(path string, state []byte) (*converter, error) {
	c := &converter{path: path}
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	if c.st.Started == nil {
		c.st.Started = map[string]bool{}
	}
	if c.st.Session.Source == "" {
		c.st.Session = fileSession(path)
	}
	return c, nil
}

// hold notes the state before the first held line: a copy, its map
// cloned, so that the held lines, which change st, cannot change it. It
// is encoded only if State is asked for while the lines are held (once a
// transcript): encoding it at each turn was 1% of an import's CPU.
func (c *converter) hold() {
	if c.turn == nil && c.bound == nil {
		c.saved = c.st
		c.saved.Started = maps.Clone(c.st.Started)
	}
}

// held: a turn and a boundary are never held at once, for each ends the
// other (both are records of the conversation).
func (c *converter) Held() (int, int64, bool) {
	switch {
	case c.turn != nil:
		return c.turn.line - 1, c.turn.offset, true
	case c.bound != nil:
		return c.bound.line - 1, c.bound.offset, true
	}
	return 0, 0, false
}

func (c *converter) Flush() []source.Output { return c.closeAll() }

// closeAll emits whatever is held, as a line that ends the turn would.
func (c *converter) closeAll() []source.Output {
	var out []source.Output
	if c.turn != nil {
		out = append(out, c.closeTurn()...)
	}
	if c.bound != nil {
		out = append(out, c.closeBoundary(record{})...)
	}
	return out
}

func (c *converter) State() ([]byte, error) {
	if _, _, ok := c.Held(); ok {
		return source.MustJSON(c.saved), nil
	}
	return json.Marshal(c.st)
}
