package cline

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

// A task file is one JSON document, written over whole at each change:
// JSON.stringify of an array (the messages) or an object (the metadata),
// with no newline after it, compact (Cline, Roo Code, Kilo Code) or
// pretty-printed (Cline's task_metadata.json). Its last line is given to
// LastLine (decision 0094); a document of several lines is held from its
// first until that one, or until a line that closes it (a "]" or "}" at
// its start, or a whole document on one line: a file written with a
// newline at its end).
//
// A document that is whole is mapped item by item. One that ends before
// it is whole is a writer caught mid-write (Cline before 3.40 and Claude
// Dev wrote in place, not by a rename): it is held, read again by the next
// import, and, if the file stays so until it is quiet, its whole items are
// mapped (Flush). One that is not JSON is a bad line: its items before
// the fault are mapped, and the error says where the fault is.

// document is a document's lines while they come.
type document struct {
	line   int    // the line it starts on
	offset int64  // where that line starts
	saved  []byte // the converter's state before it
	buf    []byte // its lines so far, each but the last with its newline
}

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) { return c.take(l, false) }

// LastLine takes the file's last line, after which no newline was
// written: the end of its document, if the document is whole.
func (c *converter) LastLine(l tapelog.RawLine) ([]source.Output, error) { return c.take(l, true) }

// take adds a line to the document being read, and maps the document
// when the line may end it.
func (c *converter) take(l tapelog.RawLine, last bool) ([]source.Output, error) {
	if c.doc == nil {
		d := &document{line: l.No, offset: l.Offset}
		if last || wholeLine(l.Data) {
			// The usual case, a document on one line: read where it is.
			out, torn, err := c.read(d, l.Data)
			if torn {
				d.saved = source.MustJSON(c.st)
				d.buf = append(bytes.Clone(l.Data), newline(last)...)
				c.doc = d
			}
			return out, err
		}
		d.saved = source.MustJSON(c.st)
		c.doc = d
	}
	d := c.doc
	d.buf = append(append(d.buf, l.Data...), newline(last)...)
	if !last && !closing(l.Data) {
		return nil, nil
	}
	out, torn, err := c.read(d, d.buf)
	if !torn {
		c.doc = nil
	}
	return out, err
}

// newline is what follows a line in a held document: a newline, but
// after the file's last line.
func newline(last bool) []byte {
	if last {
		return nil
	}
	return []byte{'\n'}
}

// wholeLine reports whether a line may be a whole document: one that
// starts with "[" and ends with "]", or with "{" and "}".
func wholeLine(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) >= 2 && (b[0] == '[' && b[len(b)-1] == ']' || b[0] == '{' && b[len(b)-1] == '}')
}

// closing reports whether a line may close a pretty-printed document: a
// "]" or "}" at its start.
func closing(b []byte) bool { return len(b) > 0 && (b[0] == ']' || b[0] == '}') }

// read maps a document that may be whole. torn says it ends before it is
// whole: nothing is made, and the caller holds it.
func (c *converter) read(d *document, text []byte) (out []source.Output, torn bool, err error) {
	text = validUTF8(text)
	items, array, whole := split(text)
	if !whole {
		items, array, err = decodeItems(text)
		if errors.Is(err, errTorn) {
			return nil, true, nil
		}
	}
	out = c.mapItems(d, items, array)
	if err != nil {
		return out, false, fmt.Errorf("not a JSON document: %v", err)
	}
	return out, false, c.takeWarning()
}

// mapDocument maps what is whole of a document that did not end: its
// items before where it stops (Flush).
func (c *converter) mapDocument(d *document, text []byte) ([]source.Output, error) {
	text = validUTF8(text)
	items, array, err := decodeItems(text)
	out := c.mapItems(d, items, array)
	if err != nil && !errors.Is(err, errTorn) {
		return out, fmt.Errorf("not a JSON document: %v", err)
	}
	return out, c.takeWarning()
}

// validUTF8 is text with invalid UTF-8 read as encoding/json reads it,
// as U+FFFD.
func validUTF8(text []byte) []byte {
	if utf8.Valid(text) {
		return text
	}
	return bytes.ToValidUTF8(text, []byte("\uFFFD"))
}

// split splits a whole, valid document in one pass: an array's items, or
// an object as its one item. whole is false for anything else, which
// decodeItems reads.
func split(text []byte) (items [][]byte, array, whole bool) {
	t := bytes.TrimLeft(text, " \t\r\n")
	switch {
	case len(t) > 0 && t[0] == '[':
		items, whole = rawjson.SplitArray(t, make([][]byte, 0, 64))
		return items, true, whole
	case len(t) > 0 && t[0] == '{' && json.Valid(t):
		return [][]byte{bytes.TrimRight(t, " \t\r\n")}, false, true
	}
	return nil, false, false
}

// errTorn says a document ends before it is whole.
var errTorn = errors.New("the document ends before it is whole")

// decodeItems reads a document that split did not take, with
// encoding/json, as far as it goes: an array's items, each whole, or an
// object; err says why it stopped: errTorn when the text ended, else
// where the text is not JSON.
func decodeItems(text []byte) (items [][]byte, array bool, err error) {
	t := bytes.TrimLeft(text, " \t\r\n")
	if len(t) == 0 {
		return nil, false, errTorn
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	if t[0] != '[' {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false, decodeError(err, dec)
		}
		if v[0] != '{' {
			return nil, false, errors.New("not a JSON array or object")
		}
		return [][]byte{v}, false, trailing(dec)
	}
	if _, err := dec.Token(); err != nil {
		return nil, true, decodeError(err, dec)
	}
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return items, true, decodeError(err, dec)
		}
		items = append(items, v)
	}
	if _, err := dec.Token(); err != nil { // the "]"
		return items, true, decodeError(err, dec)
	}
	return items, true, trailing(dec)
}

// trailing is the error of text after a document's end.
func trailing(dec *json.Decoder) error {
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("text after the document's end, at byte %d", dec.InputOffset())
	}
	return nil
}

// decodeError is errTorn for a decoder that ran out of text, else the
// error as a bad line says it.
func decodeError(err error, dec *json.Decoder) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errTorn
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s at byte %d", se.Error(), se.Offset)
	}
	return fmt.Errorf("%v at byte %d", err, dec.InputOffset())
}
