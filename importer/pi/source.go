// Package pi imports the sessions of Pi, the coding agent of
// badlogic/pi-mono, and of its fork oh-my-pi (omp): one JSON record a
// line in <agent dir>/sessions/--<cwd>--/<time>_<id>.jsonl, a header
// ({"type": "session"}) and then entries that form a tree by their "id"
// and "parentId" (a user who goes back and tries again starts a branch
// in the same file). docs/IMPORT.md has the mapping, field by field, and
// docs/decisions/0088 how a branch shows on a tape.
//
// Files: source.go (where sessions live, which session a file holds, the
// converter's state), line.go (a line's envelope, the branch it is on,
// and which mapping reads it), header.go (the session's anchor, its
// titles), message.go (message entries by role), blocks.go (an assistant
// message's content blocks, and contents), usage.go (token usage as run
// events), record.go (a record's members as the mapping reads them).
package pi

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// Source is Pi's and oh-my-pi's sessions, as tape imports them: `tape
// import pi`.
type Source struct{}

// Name is "pi".
func (Source) Name() string { return "pi" }

// Agent is "Pi".
func (Source) Agent() string { return "Pi" }

// DefaultDirs are Pi's sessions folder ($PI_CODING_AGENT_DIR/sessions,
// else ~/.pi/agent/sessions), oh-my-pi's ($OMP_CODING_AGENT_DIR/sessions,
// else ~/.omp/agent/sessions), and the folder of Pi's first releases
// (~/.coding-agent/sessions, October 2025).
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	agentDir := func(env, name string) string {
		dir := getenv(env)
		switch {
		case dir == "":
			return filepath.Join(home, name, "agent")
		case dir == "~":
			return home
		case strings.HasPrefix(dir, "~/"):
			return filepath.Join(home, dir[2:]) // as Pi expands it
		}
		return dir
	}
	return []string{
		filepath.Join(agentDir("PI_CODING_AGENT_DIR", ".pi"), "sessions"),
		filepath.Join(agentDir("OMP_CODING_AGENT_DIR", ".omp"), "sessions"),
		filepath.Join(home, ".coding-agent", "sessions"),
	}
}

// DirsEnv is PI_CODING_AGENT_DIR.
func (Source) DirsEnv() string { return "PI_CODING_AGENT_DIR" }

// IsTranscript reports whether path is a .jsonl file outside a
// subagent-artifacts folder, where the pi-subagents extension keeps
// files of its own format (ccusage skips that folder too).
func (Source) IsTranscript(path string) bool {
	if !strings.HasSuffix(path, ".jsonl") {
		return false
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		base := filepath.Base(dir)
		if base == "subagent-artifacts" {
			return false
		}
		if base == dir || base == "." || base == "sessions" {
			return true
		}
	}
}

// TapeName is source.TapeName on the last digits of the session id
// ("pi-5c9f0a31"): oh-my-pi's ids are UUIDv7, whose first digits are the
// time; Pi's are random throughout.
func (Source) TapeName(s source.Session, long bool) string { return source.TapeName(s, long, true) }

// NewConverter starts a converter of the session file at path.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// sessionFile is how Pi names a session's file, and oh-my-pi the folder
// of a session's subagents: the time it started, with ':' and '.' as
// '-', and the session's id.
var sessionFile = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}-[0-9]{3}Z_(.+)$`)

// fileSession is the session a file's path says it holds: for
// <time>_<id>.jsonl, id; for a subagent's file in oh-my-pi's folder of
// its session, <time>_<id>/<agent>.jsonl (at any depth), the session id
// and the agent's path from there. usageID is the id ccusage gives the
// file's usage (the name after its first '_'), which usage ids repeat.
func fileSession(path string) (s source.Session, usageID string) {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	usageID = stem
	if _, after, ok := strings.Cut(stem, "_"); ok {
		usageID = after
	}
	s = source.Session{Source: "pi", ID: stem}
	if m := sessionFile.FindStringSubmatch(stem); m != nil {
		s.ID = m[1]
	}
	agent := stem
	dir := filepath.Dir(path)
	for range 8 {
		base := filepath.Base(dir)
		if m := sessionFile.FindStringSubmatch(base); m != nil {
			return source.Session{Source: "pi", ID: m[1], Agent: filepath.ToSlash(agent)}, usageID
		}
		if base == dir || base == "." || base == "sessions" {
			break
		}
		agent = base + "/" + agent
		dir = filepath.Dir(dir)
	}
	return s, usageID
}

// convState is what a converter carries from line to line, and keeps in
// a checkpoint.
type convState struct {
	Session source.Session `json:"session"`
	UsageID string         `json:"usage_id"` // the file's id in usage ids (fileSession)
	Started bool           `json:"started"`  // the session's first anchor was made
	Header  bool           `json:"header"`   // its header was read (a later one is kept as an event)
	// Positional says the entries' ids are their places in the file, not
	// the ids Pi wrote: a version 1 session, whose entries have none, or
	// one Pi migrated from version 1 by giving each entry a new random id
	// and rewriting the file (a header whose "version" comes after its
	// "id"), so that both make the same entries.
	Positional bool   `json:"positional,omitempty"`
	Leaf       string `json:"leaf,omitempty"`  // the id of the last entry of the tree, where the path is
	Model      string `json:"model,omitempty"` // the model of the last model_change, for usage that names none
	Date       string `json:"date,omitempty"`  // the last timestamp read, for records without one
	// Slot is a title from oh-my-pi's title line, which comes before the
	// header: made once the header has started the tape.
	Slot *slotTitle `json:"slot,omitempty"`
}

// slotTitle is the title of oh-my-pi's title line, waiting for the
// session's anchor.
type slotTitle struct {
	Title string          `json:"title"`
	Line  int             `json:"line"`
	Rest  json.RawMessage `json:"rest,omitempty"` // the line's other members but its padding
}

type converter struct {
	path string
	st   convState
	pre  convState // st before the line being read
	// hold is oh-my-pi's title line while the header it comes before has
	// not come: held, so that a checkpoint stops before it, and the
	// state before it (saved) is the one a checkpoint keeps.
	hold  *tapelog.RawLine
	saved []byte
}

func newConverter(path string, state []byte) (*converter, error) {
	c := &converter{path: path}
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	if c.st.Session.Source == "" {
		c.st.Session, c.st.UsageID = fileSession(path)
	}
	return c, nil
}

// Held says where oh-my-pi's title line starts while the header after it
// has not come; nothing else is held: a record is one line, and Pi
// writes a message whole.
func (c *converter) Held() (int, int64, bool) {
	if c.hold == nil {
		return 0, 0, false
	}
	return c.hold.No - 1, c.hold.Offset, true
}

// Flush starts the session of a file that holds a title line and no
// header, from the file's name, with the title.
func (c *converter) Flush() []source.Output {
	if c.hold == nil {
		return nil
	}
	in := &input{l: tapelog.RawLine{No: c.hold.No}}
	return c.start(in)
}

func (c *converter) State() ([]byte, error) {
	if c.hold != nil {
		return c.saved, nil
	}
	return json.Marshal(c.st)
}
