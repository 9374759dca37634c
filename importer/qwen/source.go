// Package qwen imports Qwen Code's chat transcripts: one ChatRecord a
// line in <runtime dir>/projects/<sanitized cwd>/chats/<session>.jsonl
// (and chats/archive/ once a session is archived), a background
// subagent's in <runtime dir>/projects/<sanitized cwd>/subagents/
// <session>/agent-<id>.jsonl. The whole-document session-*.json files
// Qwen Code wrote before December 2025 (under <runtime dir>/tmp/<hash>/
// chats) are not read: decision 0086. docs/IMPORT.md has the mapping, field by field.
//
// Files: source.go (where transcripts live, their sessions, the
// converter's state, the lines held at a transcript's start), record.go
// (a line's members as the mapping reads them), convert.go (records to
// entries), parts.go (a message's parts), usage.go (usageMetadata to run
// events, as ccusage counts it), system.go (system records: compactions,
// titles, the session's parent).
package qwen

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tape-dev/tape/importer/gemini"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// Source is Qwen Code's chat transcripts, as tape imports them: `tape
// import qwen`.
type Source struct{}

// Name is "qwen".
func (Source) Name() string { return "qwen" }

func (Source) Agent() string { return "Qwen Code" }

// DefaultDirs are the projects folder of Qwen Code's runtime folder, and
// its tmp folder of the documents Qwen Code wrote before December 2025:
// $QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen (Qwen Code's
// Storage.getRuntimeBaseDir, which reads a leading ~ as the home folder; a
// runtimeOutputDir set in its settings is not seen here: name that
// folder's projects/ on the command line).
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	for _, env := range []string{"QWEN_RUNTIME_DIR", "QWEN_HOME"} {
		dir := strings.TrimSpace(getenv(env))
		if rest, ok := strings.CutPrefix(dir, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == '\\') {
			dir = home + rest
		}
		if dir != "" {
			return []string{filepath.Join(dir, "projects"), filepath.Join(dir, "tmp")}
		}
	}
	return []string{filepath.Join(home, ".qwen", "projects"), filepath.Join(home, ".qwen", "tmp")}
}

// DirsEnv is QWEN_RUNTIME_DIR.
func (Source) DirsEnv() string { return "QWEN_RUNTIME_DIR" }

// IsTranscript reports whether path is a chat transcript: a .jsonl file
// in a chats/ folder or its archive/, or a subagent's agent-<id>.jsonl in
// subagents/<session>/, or a session-*.json document in a chats/ folder
// (isDocument). Qwen Code keeps other files beside them (the sessions'
// .runtime.json, the subagents' .meta.json and .jsonl.stream).
func (Source) IsTranscript(path string) bool {
	if isDocument(path) {
		return true
	}
	if !strings.HasSuffix(path, ".jsonl") {
		return false
	}
	dir := filepath.Dir(path)
	switch filepath.Base(dir) {
	case "chats":
		return true
	case "archive":
		return filepath.Base(filepath.Dir(dir)) == "chats"
	}
	return strings.HasPrefix(filepath.Base(path), "agent-") && filepath.Base(filepath.Dir(dir)) == "subagents"
}

// TapeName is source.TapeName on the first digits of the session id
// ("qwen-1f0c9a3e": Qwen Code's ids are random UUIDs); a subagent's adds
// "-agent-" and the last 8 letters and digits of its id, whose first
// characters name the kind of agent ("explore-7f3c"), the same for every
// agent of a kind.
func (Source) TapeName(s source.Session, long bool) string {
	if s.Agent == "" || long {
		return source.TapeName(s, long, false)
	}
	return source.TapeName(source.Session{Source: s.Source, ID: s.ID}, false, false) + "-agent-" + lastAlnum(s.Agent, 8)
}

// lastAlnum is the last n ASCII letters and digits of id ("x" for none).
func lastAlnum(id string, n int) string {
	var b []byte
	for i := len(id) - 1; i >= 0 && len(b) < n; i-- {
		if c := id[i]; c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return "x"
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// NewConverter starts a converter of the transcript at path: a document
// of Qwen Code before December 2025 is the Gemini CLI's format, whose fork
// Qwen Code is, with "qwen" for the model's messages, and is read by the
// gemini source's converter in that dialect (decision 0086).
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	if isDocument(path) {
		return gemini.NewDialectConverter(gemini.Dialect{Source: "qwen", Model: "qwen"}, path, state)
	}
	return source.NewConverter(newConverter(path, state))
}

// isDocument reports whether path is a session-*.json document in a
// chats/ folder: ~/.qwen/tmp/<project hash>/chats/session-<time>-<id>.json,
// rewritten whole as the session went, as the Gemini CLI's were.
func isDocument(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "session-") && strings.HasSuffix(base, ".json") && filepath.Base(filepath.Dir(path)) == "chats"
}

// sessionFile is how Qwen Code names a session's file: its id, 32 to 36
// hex digits and dashes (SessionService's SESSION_FILE_PATTERN).
var sessionFile = regexp.MustCompile(`^[0-9a-fA-F-]{32,36}$`)

// fileSession is the session a transcript's path says it holds: a
// session's file is named by its id; a subagent's is agent-<id>.jsonl in
// the folder of its session's id. An ID left empty is the first record's
// sessionId.
func fileSession(path string) source.Session {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	s := source.Session{Source: "qwen"}
	dir := filepath.Dir(path)
	if agent, ok := strings.CutPrefix(stem, "agent-"); ok && filepath.Base(filepath.Dir(dir)) == "subagents" {
		s.Agent = agent
		if id := filepath.Base(dir); sessionFile.MatchString(id) {
			s.ID = id
		}
		return s
	}
	if sessionFile.MatchString(stem) {
		s.ID = stem
	}
	return s
}

// convState is what a Qwen converter carries from line to line, and
// keeps in a checkpoint.
type convState struct {
	Session source.Session  `json:"session"` // the file's session, once known
	Started map[string]bool `json:"started"` // sessions whose first anchor was made, by Session.Key
	CWD     string          `json:"cwd"`     // the last working directory put in a meta
	Branch  string          `json:"branch"`  // and git branch
	// Date is the last timestamp read: a record without one takes it, so
	// that it sorts where it was written.
	Date string `json:"date"`
}

// converter converts one Qwen Code transcript.
type converter struct {
	path    string
	st      convState
	saved   []byte // st before the held lines, as State writes it
	hold    *opening
	members []rawjson.Member // the members of the line being read, reused
	parts   []part           // the parts of its message, reused
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

// opening is the system records a transcript starts with, held until the
// first record of the conversation comes: one of them may name the
// session's parent (parent_session, written just after a sub-session is
// made), which the session's first anchor must say.
type opening struct {
	line   int
	offset int64
	start  startInfo       // what the first held record says of the session
	outs   []source.Output // the held records' entries, after the anchor
}

func (c *converter) Held() (int, int64, bool) {
	if c.hold == nil {
		return 0, 0, false
	}
	return c.hold.line - 1, c.hold.offset, true
}

func (c *converter) Flush() []source.Output { return c.release() }

// release emits what is held: the session's first anchor, then the held
// records' entries.
func (c *converter) release() []source.Output {
	h := c.hold
	if h == nil {
		return nil
	}
	c.hold, c.saved = nil, nil
	return append(c.start(c.st.Session, h.start), h.outs...)
}

func (c *converter) State() ([]byte, error) {
	if c.hold != nil {
		return c.saved, nil
	}
	return json.Marshal(c.st)
}
