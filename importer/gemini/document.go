package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// Up to Gemini CLI 0.38 a session was one JSON document, pretty-printed
// (JSON.stringify(conversation, null, 2)) and rewritten whole, in place,
// at every change: {"sessionId", "projectHash", "startTime",
// "lastUpdated", "messages": [...], "summary", "directories", "kind"},
// two spaces an indent, the closing brace without a newline after it.
//
// The converter holds a document's lines, from its "{" line, until it
// closes, and then maps it whole: its header, then each message, whose
// entries take the message's id, so that the document read again (a
// rewrite changes the lines before the checkpoint, and the driver reads
// the file from its start, skipping the ids its tapes hold) makes
// nothing twice. A document closes at its last member: in this layout a
// line at one indent that does not end in "," (or open a list or an
// object) is the last member's end, and the next line is the closing
// brace, which never comes with a newline. A closing brace at the start
// of a line closes it too (a document written by something else).
type document struct {
	*source.HeldDocument
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
	return c.closeDocument(true)
}

// docItem is a message of a document, and the line it starts on.
type docItem struct {
	raw  []byte
	line int
}

// closeDocument maps the held document. One that does not decode whole
// makes what decoded (the members and messages before the fault); when
// it closed, that is a bad line, reported at the line that closed it.
func (c *converter) closeDocument(closed bool) ([]source.Output, error) {
	doc := c.doc
	c.doc = nil
	if !utf8.Valid(doc.Buf) { // as encoding/json reads its strings
		doc.Buf = []byte(strings.ToValidUTF8(string(doc.Buf), "\uFFFD"))
	}
	fs, items, err := splitDocument(doc)
	if err != nil {
		fs, items, err = decodeDocument(doc)
	}
	first := tapelog.RawLine{No: doc.Line, Offset: doc.Offset}
	out := c.headerFields(c.docInput(first), fs)
	for _, it := range items {
		out = append(out, c.item(c.docInput(tapelog.RawLine{No: it.line}), it.raw, fromDocument)...)
	}
	if err != nil && closed {
		return out, fmt.Errorf("not a JSON document (the one from line %d): %v", doc.Line, err)
	}
	return out, c.takeWarning()
}

// docInput is the input of a document's member or message at line l.
func (c *converter) docInput(l tapelog.RawLine) input {
	return input{l: l, date: c.st.Date, from: fromDocument}
}

// splitDocument reads a whole, valid document: checked in one pass
// (rawjson.SplitObject), its members but its messages, and its messages
// apart, each with its line, all parts of the document (with its white
// space: what goes into a payload is compacted there). err says it is
// not one.
func splitDocument(doc *document) ([]field, []docItem, error) {
	ms, ok := rawjson.SplitObject(doc.Buf, nil)
	if !ok {
		return nil, nil, errors.New("not a JSON object SplitObject reads")
	}
	lines := newLineCounter(doc.Buf, doc.Line)
	var fs []field
	var list []docItem
	for _, m := range ms {
		key := string(m.Key)
		if key == "messages" && m.Value[0] == '[' {
			rawjson.ArrayItems(m.Value, func(item []byte) {
				off := int64(cap(doc.Buf) - cap(item)) // item is a part of buf
				list = append(list, docItem{raw: item, line: lines.at(off)})
			})
			continue
		}
		fs = append(fs, field{key, m.Value})
	}
	return fs, list, nil
}

// decodeDocument reads a document that splitDocument does not take, with
// encoding/json, as far as it goes: its members in order, and its
// messages apart, each with its line; err says where it stopped, when it
// did.
func decodeDocument(doc *document) (fs []field, items []docItem, err error) {
	dec := json.NewDecoder(bytes.NewReader(doc.Buf))
	lines := newLineCounter(doc.Buf, doc.Line)
	if _, err := dec.Token(); err != nil { // the "{" its first line is
		return nil, nil, reason(err, lines, dec, doc.Buf)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fs, items, reason(err, lines, dec, doc.Buf)
		}
		k, _ := t.(string)
		if k == "messages" && bytes.HasPrefix(next(doc.Buf, dec.InputOffset()), []byte("[")) {
			if items, err = decodeItems(dec, doc.Buf, lines, items); err != nil {
				return fs, items, err
			}
			continue
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fs, items, reason(err, lines, dec, doc.Buf)
		}
		fs = append(fs, field{k, compact(v)})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return fs, items, reason(err, lines, dec, doc.Buf)
	}
	return fs, items, nil
}

// decodeItems reads the messages of a document, the decoder at their "[".
func decodeItems(dec *json.Decoder, buf []byte, lines *lineCounter, items []docItem) ([]docItem, error) {
	if _, err := dec.Token(); err != nil {
		return items, reason(err, lines, dec, buf)
	}
	for dec.More() {
		start := int64(len(buf) - len(next(buf, dec.InputOffset())))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return items, reason(err, lines, dec, buf)
		}
		items = append(items, docItem{raw: compact(v), line: lines.at(start)})
	}
	if _, err := dec.Token(); err != nil { // the "]"
		return items, reason(err, lines, dec, buf)
	}
	return items, nil
}

// next is buf from off, past white space, ":" and ",": where the next
// value starts.
func next(buf []byte, off int64) []byte {
	b := buf[off:]
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t' || b[0] == ':' || b[0] == ',') {
		b = b[1:]
	}
	return b
}

// reason is a decoding error as a bad line says it: what, and on which
// line of the file the value it is in starts (a decoder's offsets are
// not the stream's).
func reason(err error, lines *lineCounter, dec *json.Decoder, buf []byte) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("it ends before it is whole")
	}
	what := err.Error() // a syntax error's offset is not the file's: the line says where
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
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
