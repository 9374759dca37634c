package aider

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// headerPrefix starts a run: Aider writes "\n# aider chat started at
// <time>\n\n" when it starts (v0.5.0 and every release since; "Aider",
// capitalised, in the commits just before it).
const headerPrefix = "# aider chat started at "

// chatState is what a chat history's converter carries from line to
// line, and keeps in a checkpoint.
type chatState struct {
	// Last is the number of the last line read: the driver skips blank
	// lines, and a gap in the numbers is where they were.
	Last int `json:"last"`
	// Header is the last run's start as written, and Dup how many runs
	// before it in a row started at the same second: the run's session id
	// tells them apart.
	Header string    `json:"header,omitempty"`
	Dup    int       `json:"dup,omitempty"`
	Run    *runState `json:"run,omitempty"`
}

// runState is the run being read.
type runState struct {
	Session source.Session `json:"session"`
	Date    string         `json:"date,omitempty"` // its start, RFC 3339; every entry of the run has it
	Model   string         `json:"model,omitempty"`
	// Spaces says that the run's blockquotes end in the two spaces Aider
	// writes after each of its messages: a file whose trailing spaces an
	// editor stripped does not, and its lines are read without the rules
	// that need them (blockKind, continues).
	Spaces bool `json:"spaces,omitempty"`
	// Command is the call of the command just typed ("/add x.py"), which
	// the output after it answers.
	Command string `json:"command,omitempty"`
	// Edits are the edit calls of the last answer that no output has
	// answered yet.
	Edits []editCall `json:"edits,omitempty"`
}

// editCall is a SEARCH/REPLACE block's call, waiting for Aider to say
// whether it applied it.
type editCall struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// The kinds of a line, and of a block of lines.
const (
	kindUser     = iota + 1 // "#### " a line the user typed
	kindQuote               // "> " Aider's output
	kindText                // the model's answer
	kindPreamble            // a run's header and the output right after it
)

// line is one line of a block: its number, and its text without Aider's
// prefix and trailing spaces; a gap's blank lines are lines of no text.
type line struct {
	no   int
	text string
}

// block is the lines of one kind in a row: what a converter holds until
// a line of another kind (or a run's start) ends it, or the file is
// quiet. A tool output block holds messages: a quoted line and the lines
// that go on with it (continues).
type block struct {
	kind   int
	first  int   // its first line's number
	offset int64 // and offset
	lines  []line
	// open says that the last message does not end yet: Aider quoted the
	// first line of a message of several lines only, and its last line
	// ends in two spaces.
	open  bool
	msgs  []int     // for output: the index in lines where each message starts
	saved chatState // the state before the block, as State returns it while it is held
}

type chatConverter struct {
	path string
	tag  string
	st   chatState
	blk  *block
	// start is the run's start as a time, read from startOf (its Date).
	start   time.Time
	startOf string
}

func newChatConverter(path string, state []byte) (*chatConverter, error) {
	c := &chatConverter{path: path, tag: fileTag(path)}
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	return c, nil
}

// errNoRun is the error of a line before the first run's start: it
// belongs to no session.
var errNoRun = errors.New(`a line before the first "# aider chat started at" line belongs to no run`)

func (c *chatConverter) Line(l tapelog.RawLine) ([]source.Output, error) {
	if l.Blank() {
		return nil, nil // the driver skips them; a gap in the numbers says where they were
	}
	gap := max(0, l.No-c.st.Last-1)
	c.st.Last = l.No
	s := string(l.Data)
	if strings.HasPrefix(s, headerPrefix) || strings.HasPrefix(s, "# Aider chat started at ") {
		return c.header(l, s)
	}
	run := c.st.Run
	if run == nil {
		return nil, errNoRun
	}
	kind, text := c.classify(s)
	if b := c.blk; b != nil && b.open {
		if kind == kindText {
			c.continues(b, gap, l.No, s)
			return nil, nil
		}
		b.open = false
	}
	if b := c.blk; b != nil && joins(b.kind, kind, gap) {
		if kind == kindQuote {
			b.addGap(gap, l.No)
			b.msgs = append(b.msgs, len(b.lines))
			b.lines = append(b.lines, line{l.No, text})
			b.open = c.opens(b, s, text)
			return nil, nil
		}
		b.addGap(gap, l.No)
		b.lines = append(b.lines, line{l.No, text})
		return nil, nil
	}
	out := c.close()
	c.open(kind, l, c.snapshot(l.No))
	b := c.blk
	b.lines = append(b.lines, line{l.No, text})
	if kind == kindQuote {
		b.msgs = append(b.msgs, 0)
		b.open = c.opens(b, s, text)
	}
	return out, nil
}

// header ends the run before, and starts a run (held, with the output
// right after it, until a line of another kind: Aider's announcements
// name its version and model, which the run's first anchor says).
func (c *chatConverter) header(l tapelog.RawLine, s string) ([]source.Output, error) {
	out := c.close()
	saved := c.snapshot(l.No)
	written := strings.ToValidUTF8(strings.TrimSpace(s[len(headerPrefix):]), "\uFFFD") // as the anchor's state says it
	if written == c.st.Header && c.st.Run != nil {
		c.st.Dup++
	} else {
		c.st.Header, c.st.Dup = written, 0
	}
	id := strings.ToValidUTF8(c.path, "\uFFFD") + "#" + written
	if c.st.Dup > 0 {
		id += "#" + strconv.Itoa(c.st.Dup+1)
	}
	var warn error
	date, ok := localDate(written, runLayout)
	if !ok {
		if c.st.Run != nil {
			date = c.st.Run.Date
		}
		warn = source.LineWarning(`the run's start "` + written + `" is not a date Aider writes; imported with the date of the run before`)
		if date == "" {
			warn = source.LineWarning(`the run's start "` + written + `" is not a date Aider writes; imported without a date`)
		}
	}
	c.st.Run = &runState{Session: source.Session{Source: "aider", ID: id}, Date: date}
	c.open(kindPreamble, l, saved)
	return out, warn
}

// classify is a line's kind, and its text without Aider's prefix and the
// two spaces it ends its lines with.
func (c *chatConverter) classify(s string) (int, string) {
	spaces := strings.HasSuffix(s, "  ")
	switch {
	case strings.HasPrefix(s, "#### ") || s == "####":
		// A heading of the model's own ("#### Step 1") does not end in
		// two spaces; a line the user typed does.
		if !c.st.Run.Spaces || spaces {
			return kindUser, trimBreak(strings.TrimPrefix(strings.TrimPrefix(s, "####"), " "))
		}
	case strings.HasPrefix(s, "> ") || s == ">":
		if spaces {
			c.st.Run.Spaces = true
		}
		return kindQuote, trimBreak(strings.TrimPrefix(strings.TrimPrefix(s, ">"), " "))
	}
	return kindText, s
}

// trimBreak takes away the two spaces Aider ends a line with (Markdown's
// line break).
func trimBreak(s string) string { return strings.TrimSuffix(s, "  ") }

// joins reports whether a line of kind, after gap blank lines, goes on
// the block of kind b: the lines a user typed at once (Aider writes a
// blank line before each input), Aider's output in a row, an answer's
// lines and paragraphs.
func joins(b, kind, gap int) bool {
	switch kind {
	case kindUser:
		return b == kindUser && gap == 0
	case kindQuote:
		return b == kindQuote || b == kindPreamble
	}
	return b == kindText && kind == kindText
}

// opens reports whether the quoted line s, the last message of b, goes on
// over the lines after it. Aider quotes only the first line of a message
// of several (tool_output: "> " + text, then "  \n"), so such a message's
// first line does not end in two spaces and its last does. That is taken
// for a message of several lines only where Aider writes them: the
// "Tokens:" line whose "Cost:" is on the next line, and a message after
// another of Aider's (an edit's error); a quote in the model's answer
// does not end in two spaces either, and its text is the answer's.
func (c *chatConverter) opens(b *block, s, text string) bool {
	if !c.st.Run.Spaces || strings.HasSuffix(s, "  ") {
		return false
	}
	return strings.HasPrefix(text, "Tokens: ") || len(b.msgs) > 1
}

// continues adds to b's open message the line s, after gap blank lines;
// a line ending in two spaces is its last.
func (c *chatConverter) continues(b *block, gap, no int, s string) {
	b.addGap(gap, no)
	if strings.HasSuffix(s, "  ") {
		b.open = false
		s = trimBreak(s)
	}
	b.lines = append(b.lines, line{no, s})
}

// addGap adds gap blank lines, which end before line no.
func (b *block) addGap(gap, no int) {
	for i := gap; i > 0; i-- {
		b.lines = append(b.lines, line{no - i, ""})
	}
}

// open starts a block of kind at line l, which a checkpoint taken while
// it is held reads again from the state saved.
func (c *chatConverter) open(kind int, l tapelog.RawLine, saved chatState) {
	c.blk = &block{kind: kind, first: l.No, offset: l.Offset, saved: saved}
}

// snapshot is the state before line no, as a checkpoint keeps it.
func (c *chatConverter) snapshot(no int) chatState {
	saved := c.st
	saved.Last = no - 1
	if c.st.Run != nil {
		r := *c.st.Run
		r.Edits = append([]editCall(nil), r.Edits...)
		saved.Run = &r
	}
	return saved
}

func (c *chatConverter) Held() (int, int64, bool) {
	if c.blk == nil {
		return 0, 0, false
	}
	return c.blk.first - 1, c.blk.offset, true
}

func (c *chatConverter) Flush() []source.Output { return c.close() }

func (c *chatConverter) State() ([]byte, error) {
	if c.blk != nil {
		return json.Marshal(c.blk.saved)
	}
	return json.Marshal(c.st)
}

// meta is the meta of an entry made from line n.
func (c *chatConverter) meta(n int) json.RawMessage {
	return source.Meta(c.path, n, "", "", nil).Done()
}

// cwd is the project's folder: the one the history is in.
func (c *chatConverter) cwd() string { return filepath.Dir(c.path) }
