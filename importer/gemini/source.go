// Package gemini imports the Gemini CLI's chat recordings:
// ~/.gemini/tmp/<project>/chats/session-<time>-<short id>.jsonl, one
// record a line, appended as the session goes (Gemini CLI 0.39 and
// later), and the session-*.json of the versions before, one JSON
// document that Gemini CLI rewrote whole at every change. A subagent's
// recording is chats/<parent session id>/<its id>.json[l]. docs/IMPORT.md
// has the mapping, field by field, and decision 0085 how rewrites and
// rewinds, which tape cannot follow by appending, show.
//
// Files: source.go (where recordings live, the converter's state),
// line.go (a line: a record, or a line of a document), document.go (a
// pretty-printed document, held until it closes), session.go (the
// session's anchor, its header, $set and $rewindTo), message.go
// (messages), parts.go (a content's parts), calls.go (tool calls and
// their results), usage.go (tokens to run events), seen.go (what the
// converter knows of the messages it made), raw.go (a line checked once,
// and read after without checking again).
package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
)

// Source is the Gemini CLI's chat recordings, as tape imports them:
// `tape import gemini`.
type Source struct{}

// Name is "gemini".
func (Source) Name() string { return "gemini" }

func (Source) Agent() string { return "Gemini CLI" }

// DefaultDirs are $GEMINI_CLI_HOME/.gemini/tmp, else ~/.gemini/tmp: Gemini
// CLI keeps its folder in the home folder GEMINI_CLI_HOME names, when set.
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	if dir := getenv("GEMINI_CLI_HOME"); dir != "" {
		home = dir
	}
	return []string{filepath.Join(home, ".gemini", "tmp")}
}

// DirsEnv is GEMINI_CLI_HOME.
func (Source) DirsEnv() string { return "GEMINI_CLI_HOME" }

// IsTranscript reports whether path is a chat recording: a .json or
// .jsonl file in a chats folder, or in a folder of one (a subagent's).
// The other JSON files under ~/.gemini/tmp (logs.json, checkpoints, tool
// outputs) are in no chats folder.
func (Source) IsTranscript(path string) bool {
	ext := filepath.Ext(path)
	if ext != ".json" && ext != ".jsonl" {
		return false
	}
	dir := filepath.Dir(path)
	return filepath.Base(dir) == "chats" || filepath.Base(filepath.Dir(dir)) == "chats"
}

// TapeName is source.TapeName on the first digits of the session id
// ("gemini-1a2b3c4d"; a subagent's "gemini-1a2b3c4d-agent-5e6f7a8b"):
// Gemini CLI's session ids are random UUIDs.
func (Source) TapeName(s source.Session, long bool) string { return source.TapeName(s, long, false) }

// NewConverter starts a converter of the recording at path.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// convState is what a converter carries from line to line, and keeps in
// a checkpoint.
type convState struct {
	Session source.Session `json:"session"`
	Started bool           `json:"started"` // the session's first anchor was made
	Date    string         `json:"date"`    // the last date read, for records without one
	// Model is the last model a record named, which a model's message
	// without one was made by (as ccusage reads it).
	Model string `json:"model,omitempty"`
	// Messages counts the message records read: a $set of the history
	// before any is the history the session starts with, not a new one.
	Messages int `json:"messages,omitempty"`
	// Closed says a document ended at its last member, the line before
	// its closing brace, which Gemini CLI writes without a newline: a
	// "}" that comes after all is that brace.
	Closed bool  `json:"closed,omitempty"`
	Last   *last `json:"last,omitempty"` // the last message read, and what of it was made
	Seen   seen  `json:"seen,omitempty"` // the ids of the messages read (a Bloom filter)
}

type converter struct {
	d      dialect
	path   string
	tag    string // the file's tag (source.LineID's), which a run's ids carry
	isJSON bool   // a .json file: a document's messages count their tokens, as ccusage counts them
	st     convState
	doc    *document // the lines of a document, held until it closes
	warn   error     // the first warning of the line being mapped
}

// Dialect is a fork's name for what the Gemini CLI's recordings call
// "gemini": Qwen Code, a fork of the Gemini CLI, wrote the same documents
// before December 2025, with "qwen" for the model's messages.
type Dialect struct {
	Source string // the source's name: its sessions', its events' ("<name>/<type>"), its anchors' "source"
	Model  string // the type of the model's messages
}

// NewDialectConverter is the converter of a recording written in d's
// dialect of the Gemini CLI's format (importer/qwen reads Qwen Code's
// older documents with it).
func NewDialectConverter(d Dialect, path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newDialectConverter(dialect{name: d.Source, model: d.Model}, path, state))
}

// dialect is Dialect, as the converter reads it.
type dialect struct{ name, model string }

func newConverter(path string, state []byte) (*converter, error) {
	return newDialectConverter(dialect{name: "gemini", model: "gemini"}, path, state)
}

func newDialectConverter(d dialect, path string, state []byte) (*converter, error) {
	sum := sha256.Sum256([]byte(filepath.Base(path)))
	c := &converter{d: d, path: path, tag: hex.EncodeToString(sum[:3]), isJSON: strings.HasSuffix(path, ".json")}
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	if c.st.Session.Source == "" {
		c.st.Session = fileSession(c.d.name, path, "")
	}
	return c, nil
}

// fileSession is the session a recording's place says it holds, with id
// its header's sessionId ("" when it has none: the id its name gives). A
// recording in a folder of a chats folder is a subagent's, and that
// folder is named by its parent session's id.
func fileSession(name, path, id string) source.Session {
	stem := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".jsonl"), ".json")
	if id == "" {
		id = stem
		if rest, ok := strings.CutPrefix(stem, "session-"); ok && strings.LastIndexByte(rest, '-') >= 0 {
			id = rest[strings.LastIndexByte(rest, '-')+1:] // session-<time>-<the id's first 8 digits>
		}
	}
	dir := filepath.Dir(path)
	if parent := filepath.Base(dir); parent != "chats" && filepath.Base(filepath.Dir(dir)) == "chats" && parent != id {
		return source.Session{Source: name, ID: parent, Agent: id}
	}
	return source.Session{Source: name, ID: id}
}

func (c *converter) Held() (int, int64, bool) {
	if c.doc == nil {
		return 0, 0, false
	}
	return c.doc.Line - 1, c.doc.Offset, true
}

// Flush imports a document that never closed (its writer stopped
// mid-write): the members and messages that are whole. The rest is a
// torn tail, as a last line without its newline is.
func (c *converter) Flush() []source.Output {
	if c.doc == nil {
		return nil
	}
	out, _ := c.closeDocument(false)
	return out
}

func (c *converter) State() ([]byte, error) {
	if c.doc != nil {
		return c.doc.Saved, nil
	}
	return json.Marshal(c.st)
}
