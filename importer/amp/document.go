package amp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// A thread file is one JSON document, JSON.stringify(thread, null, 2):
// two spaces an indent, {"v", "id", "created", "messages": [...], and the
// thread's other members after its messages}, the closing brace without a
// newline after it. Amp writes it whole at every change, to T-<id>.json.amptmp,
// renamed over T-<id>.json: a reader never sees half a document, and each
// version is a new file (a new inode), which the driver reads from its
// start, skipping the entries its tapes hold (decision 0095).
//
// The converter holds a document's lines, from its "{" line, until it
// closes, and maps it whole. It closes at its last member: in this layout
// a line at one indent that does not end in "," (or open a list or an
// object) ends the last member, and the next line is the closing brace,
// which never comes with a newline. A closing brace at the start of a
// line closes it too (a document another program wrote), and a line that
// starts with "{" and is not "{" alone is a document on one line.
type document struct {
	*source.HeldDocument
	// streaming says it closed, but is held: a message in it is still
	// being streamed, and is mapped when it is done or the file has been
	// quiet long enough (Flush).
	streaming bool
}

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	data := bytes.TrimSpace(l.Data)
	var out []source.Output
	if c.doc != nil {
		if !c.doc.streaming {
			return c.docLine(l)
		}
		if string(data) == "}" {
			return nil, nil // the held document's closing brace
		}
		out, _ = c.closeDocument(true) // a line after it: that stream has ended
	}
	if c.st.Closed {
		c.st.Closed = false
		if string(data) == "}" {
			return out, nil // the closing brace of the document before
		}
	}
	if string(data) == "{" {
		c.openDocument(l)
		return out, nil
	}
	if len(data) == 0 || data[0] != '{' {
		if json.Valid(data) {
			return out, errors.New("not a JSON object")
		}
		return out, errors.New("not a line of a thread's JSON document")
	}
	c.openDocument(l)
	c.doc.Buf = append(c.doc.Buf[:0], l.Data...)
	more, err := c.closeDocument(false)
	return append(out, more...), err
}

func (c *converter) openDocument(l tapelog.RawLine) {
	c.st.Closed = false
	c.doc = &document{HeldDocument: source.OpenDocument(l, source.MustJSON(c.st))}
}

// docLine adds a line to the held document, and maps the document when
// the line closes it.
func (c *converter) docLine(l tapelog.RawLine) ([]source.Output, error) {
	closed, atLast := c.doc.Add(l.Data)
	if !closed {
		return nil, nil
	}
	if atLast {
		c.st.Closed = true
	}
	return c.closeDocument(false)
}

// closeDocument maps the held document. final says the file has been
// quiet (Flush), or a line came after it: a document that did not close
// is mapped as far as it is whole, and a streaming message as it stands.
// One that does not decode whole makes what decoded (the members and
// messages before the fault); when it closed, that is a bad line,
// reported at the line that closed it.
func (c *converter) closeDocument(final bool) ([]source.Output, error) {
	d := c.doc
	if !utf8.Valid(d.Buf) { // as encoding/json reads its strings
		d.Buf = bytes.ToValidUTF8(d.Buf, []byte("\uFFFD"))
	}
	p, err := splitDocument(d.Buf, d.Line)
	if err != nil {
		p, err = decodeDocument(d.Buf, d.Line)
	}
	out, streaming := c.thread(d, p, final)
	if streaming && !final {
		d.streaming = true
		c.warn = nil
		return nil, nil
	}
	c.doc = nil
	if err != nil && !final {
		c.warn = nil
		return out, fmt.Errorf("not a JSON document (the one from line %d): %v", d.Line, err)
	}
	return out, c.takeWarning()
}

// parsed is a document read: the thread's members but its messages (keys
// decoded, each once, where it was last written), and its messages, each
// with the line it starts on.
type parsed struct {
	members  []rawjson.Member
	messages []item
}

type item struct {
	raw  []byte
	line int
}

// splitDocument reads a whole, valid document in one pass
// (rawjson.SplitObject); err says it is not one SplitObject takes.
func splitDocument(buf []byte, first int) (parsed, error) {
	ms, ok := rawjson.SplitObject(buf, nil)
	if !ok {
		return parsed{}, errors.New("not a JSON object SplitObject reads")
	}
	var p parsed
	lines := newLineCounter(buf, first)
	for _, m := range source.LastOfEach(ms) {
		if string(m.Key) == "messages" && m.Value[0] == '[' {
			rawjson.ArrayItems(m.Value, func(v []byte) {
				off := int64(cap(buf) - cap(v)) // v is a part of buf
				p.messages = append(p.messages, item{raw: v, line: lines.at(off)})
			})
			continue
		}
		p.members = append(p.members, m)
	}
	return p, nil
}

// decodeDocument reads a document splitDocument does not take, with
// encoding/json, as far as it goes: its members in order, and its
// messages apart, each with its line; err says where it stopped, when it
// did.
func decodeDocument(buf []byte, first int) (parsed, error) {
	var p parsed
	dec := json.NewDecoder(bytes.NewReader(buf))
	lines := newLineCounter(buf, first)
	fail := func(err error) (parsed, error) {
		p.members = source.LastOfEach(p.members)
		return p, reason(err, lines, dec, buf)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		if err == nil {
			err = errors.New("not a JSON object")
		}
		return fail(err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		k, _ := t.(string)
		if k == "messages" && bytes.HasPrefix(next(buf, dec.InputOffset()), []byte("[")) {
			p.messages = nil
			if _, err := dec.Token(); err != nil {
				return fail(err)
			}
			for dec.More() {
				start := int64(len(buf) - len(next(buf, dec.InputOffset())))
				var v json.RawMessage
				if err := dec.Decode(&v); err != nil {
					return fail(err)
				}
				p.messages = append(p.messages, item{raw: v, line: lines.at(start)})
			}
			if _, err := dec.Token(); err != nil {
				return fail(err)
			}
			continue
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fail(err)
		}
		p.members = append(p.members, rawjson.Member{Key: []byte(k), Value: v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return fail(err)
	}
	if rest := next(buf, dec.InputOffset()); len(rest) > 0 {
		return fail(fmt.Errorf("text after the document: %q", shorten(rest)))
	}
	p.members = source.LastOfEach(p.members)
	return p, nil
}

// next is buf from off, past white space, ":" and ",": where the next
// value starts.
func next(buf []byte, off int64) []byte {
	b := buf[min(off, int64(len(buf))):]
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t' || b[0] == ':' || b[0] == ',') {
		b = b[1:]
	}
	return b
}

func shorten(b []byte) string {
	if len(b) > 32 {
		b = b[:32]
	}
	return string(b)
}

// reason is a decoding error as a bad line says it: what, and on which
// line of the file the value it is in starts (a decoder's offsets are
// not the file's).
func reason(err error, lines *lineCounter, dec *json.Decoder, buf []byte) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("it ends before it is whole")
	}
	what := err.Error() // a syntax error's offset is not the file's: the line says where
	if source.IsTypeError(err) {
		what = source.JSONReason(err)
	}
	return fmt.Errorf("%s, in the value on line %d", what, lines.at(int64(len(buf)-len(next(buf, dec.InputOffset())))))
}

// lineCounter tells the line of a byte of a document, counting newlines
// from the last one asked (most are asked in order).
type lineCounter struct {
	buf  []byte
	off  int64
	line int
}

func newLineCounter(buf []byte, first int) *lineCounter { return &lineCounter{buf: buf, line: first} }

func (lc *lineCounter) at(off int64) int {
	off = max(0, min(off, int64(len(lc.buf))))
	if off < lc.off {
		lc.off, lc.line = 0, lc.line-bytes.Count(lc.buf[:lc.off], []byte{'\n'})
	}
	lc.line += bytes.Count(lc.buf[lc.off:off], []byte{'\n'})
	lc.off = off
	return lc.line
}
