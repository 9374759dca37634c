package aider

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// An input history is prompt_toolkit's FileHistory: each input Aider
// read is "\n# <local time>\n" and its lines, each after a "+". The
// whole file is one session, whose tape holds every input with the time
// it was typed (which the chat history does not say).

// inputState is what an input history's converter carries from line to
// line, and keeps in a checkpoint.
type inputState struct {
	Started bool   `json:"started"` // the session's anchor was made
	Date    string `json:"date,omitempty"`
}

// inputConverter holds an input's lines until the line after them.
type inputConverter struct {
	path    string
	tag     string
	session source.Session
	st      inputState
	// The input being read: its first line's number and offset (its
	// "#" line, or its first "+" line), its lines, and the state before.
	first  int
	offset int64
	lines  []string
	held   bool
	saved  inputState
}

func newInputConverter(path string, state []byte) (*inputConverter, error) {
	c := &inputConverter{path: path, tag: fileTag(path), session: source.Session{Source: "aider", ID: strings.ToValidUTF8(path, "\uFFFD") + "#input"}}
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	return c, nil
}

var errInputLine = errors.New(`not a line of an input history: neither "# <time>" nor "+<text>"`)

func (c *inputConverter) Line(l tapelog.RawLine) ([]source.Output, error) {
	if l.Blank() {
		return nil, nil // Aider writes one before each input
	}
	s := string(l.Data)
	switch {
	case strings.HasPrefix(s, "+"):
		if !c.held {
			c.hold(l)
		}
		c.lines = append(c.lines, s[1:])
		return nil, nil
	case strings.HasPrefix(s, "#"):
		out := c.flush()
		c.hold(l)
		date, ok := localDate(strings.TrimSpace(s[1:]), runLayout)
		if ok {
			c.st.Date = date
			return out, nil
		}
		// A comment of someone's: kept as an event of its own.
		c.held = false
		out = append(out, c.start(l.No)...)
		data := rawjson.NewObject().Str("text", s).Done()
		return append(out, c.entry(l.No, tapelog.KindEvent, source.NamedData("aider/comment", data))), nil
	}
	return c.flush(), errInputLine
}

// hold starts an input at line l.
func (c *inputConverter) hold(l tapelog.RawLine) {
	c.saved, c.first, c.offset, c.held = c.st, l.No, l.Offset, true
	c.lines = c.lines[:0]
}

// flush makes the input held an entry: a command ("/add x.py", "!ls") an
// "aider/command" event, anything else (a prompt in a mode, "/ask why",
// too, as in the chat history) a user's message.
func (c *inputConverter) flush() []source.Output {
	if !c.held {
		return nil
	}
	c.held = false
	if len(c.lines) == 0 {
		return nil // a time without an input
	}
	out := c.start(c.first)
	text := strings.Join(c.lines, "\n")
	if _, _, ok := commandCall(text); ok {
		data := rawjson.NewObject().Str("command", text).Done()
		return append(out, c.entry(c.first, tapelog.KindEvent, source.NamedData("aider/command", data)))
	}
	payload := rawjson.NewObject().Str("role", "user").Str("content", text).Done()
	return append(out, c.entry(c.first, tapelog.KindMessage, payload))
}

// start is the session's first anchor, before its first entry.
func (c *inputConverter) start(n int) []source.Output {
	if c.st.Started {
		return nil
	}
	c.st.Started = true
	state := rawjson.NewObject().Str("source", "aider").Str("session_id", c.session.ID).Str("file", c.path).
		Str("cwd", filepath.Dir(c.path)).Str("history", "input").Done()
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", state).Done()
	return []source.Output{{Session: c.session, Anchor: true, Entry: tapelog.Entry{ID: c.session.ID, Kind: tapelog.KindAnchor,
		Date: c.st.Date, Payload: payload, Meta: source.Meta(c.path, n, "", "", nil).Done()}}}
}

func (c *inputConverter) entry(n int, kind string, payload json.RawMessage) source.Output {
	return source.Output{Session: c.session, Entry: tapelog.Entry{ID: lineID(c.tag, n, 0), Kind: kind, Date: c.st.Date,
		Payload: payload, Meta: source.Meta(c.path, n, "", "", nil).Done()}}
}

func (c *inputConverter) Held() (int, int64, bool) {
	if !c.held {
		return 0, 0, false
	}
	return c.first - 1, c.offset, true
}

func (c *inputConverter) Flush() []source.Output { return c.flush() }

func (c *inputConverter) State() ([]byte, error) {
	if c.held {
		return json.Marshal(c.saved)
	}
	return json.Marshal(c.st)
}
