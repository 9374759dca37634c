// Package amp imports the threads of Amp, Sourcegraph's coding agent:
// <data home>/amp/threads/T-<id>.json, one JSON document a thread,
// pretty-printed and written whole again (to a temporary file renamed over
// it) at every change, as the Amp CLI kept them locally until the spring
// of 2026. docs/IMPORT.md has the mapping, field by field, and decision
// 0095 how a document that is rewritten, not appended to, is read again.
//
// Files: source.go (where threads live, the converter's state),
// document.go (a document's lines, held until it closes, and read whole),
// thread.go (a thread's own members: its anchor, title, links to other
// threads), message.go (messages and their blocks), tools.go (tool calls
// and their results), usage.go (token counts to run events, as ccusage
// counts them), ids.go (ids and dates).
package amp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
)

// Source is Amp's threads, as tape imports them: `tape import amp`.
type Source struct{}

// Name is "amp".
func (Source) Name() string { return "amp" }

func (Source) Agent() string { return "Amp" }

// DefaultDirs are $XDG_DATA_HOME/amp/threads and ~/.local/share/amp/threads.
// The Amp CLI keeps its threads under $XDG_DATA_HOME, else
// ~/.local/share, on Linux and macOS alike (its versions of 2026 ignore
// XDG_DATA_HOME on macOS); it has no variable of its own for the folder.
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	var dirs []string
	if x := getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		dirs = append(dirs, filepath.Join(x, "amp", "threads"))
	}
	if home != "" {
		if d := filepath.Join(home, ".local", "share", "amp", "threads"); len(dirs) == 0 || dirs[0] != d {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// DirsEnv is XDG_DATA_HOME.
func (Source) DirsEnv() string { return "XDG_DATA_HOME" }

// IsTranscript reports whether path is a thread: T-*.json. Amp writes a
// thread to T-<id>.json.amptmp first, and renames it; other files of its
// data folder (history.jsonl, session.json) are not under threads/.
func (Source) IsTranscript(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "T-") && strings.HasSuffix(base, ".json")
}

// TapeName is source.TapeName on the last digits of the thread id
// ("amp-89abcdef"): Amp's thread ids are T- and a UUIDv7, whose first
// digits are the time, the same for threads started within a minute.
func (Source) TapeName(s source.Session, long bool) string { return source.TapeName(s, long, true) }

// NewConverter starts a converter of the thread file at path.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// convState is what a converter carries from line to line, and keeps in
// a checkpoint. A thread's document is mapped whole, so little goes from
// one to the next.
type convState struct {
	Date string `json:"date,omitempty"` // the last date read, for what has none
	// Closed says a document ended at its last member, the line before
	// its closing brace, which Amp writes without a newline: a "}" that
	// comes after all is that brace.
	Closed bool `json:"closed,omitempty"`
}

type converter struct {
	path string
	tag  string // the file's tag (source.LineID's), for ids of what has none
	stem string // the file's name without .json: the thread id it says
	st   convState
	doc  *document // the lines of a document, held until it closes
	warn error     // the first warning of the document being mapped
}

func newConverter(path string, state []byte) (*converter, error) {
	base := filepath.Base(path)
	sum := sha256.Sum256([]byte(base))
	c := &converter{path: path, tag: hex.EncodeToString(sum[:3]), stem: strings.TrimSuffix(base, ".json")}
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	return c, nil
}

// Held names the first line of a document still held: one that has not
// closed, or one that closed with a message Amp is still streaming.
func (c *converter) Held() (int, int64, bool) {
	if c.doc == nil {
		return 0, 0, false
	}
	return c.doc.Line - 1, c.doc.Offset, true
}

// Flush maps a document held back: one that never closed (the file ends
// in the middle of it) as far as it is whole, or one whose streaming
// message has been quiet long enough (Amp stopped mid-answer).
func (c *converter) Flush() []source.Output {
	if c.doc == nil {
		return nil
	}
	out, _ := c.closeDocument(true)
	return out
}

func (c *converter) State() ([]byte, error) {
	if c.doc != nil {
		return c.doc.Saved, nil
	}
	return json.Marshal(c.st)
}
