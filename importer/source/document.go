package source

import (
	"bytes"

	tapelog "github.com/tape-dev/tape/log"
)

// HeldDocument is a JSON document a converter holds while its lines come,
// written pretty-printed with two spaces an indent (JSON.stringify(value,
// null, 2)), as Gemini CLI up to 0.38 and Amp write a session, whole, at
// each change. Saved is the converter's state before it: what a
// checkpoint keeps while it is held (Converter.Held).
type HeldDocument struct {
	Line   int    // the line of its "{"
	Offset int64  // where that line starts
	Saved  []byte // the converter's state before it
	Buf    []byte // its lines, each with its newline
}

// OpenDocument starts holding the document whose "{" line is l.
func OpenDocument(l tapelog.RawLine, saved []byte) *HeldDocument {
	return &HeldDocument{Line: l.No, Offset: l.Offset, Saved: saved, Buf: append(make([]byte, 0, 64<<10), "{\n"...)}
}

// Add adds a line of the document and reports whether it closes it: a
// line that starts with "}", or the end of its last member (a line at an
// indent of two spaces that does not end in ",", "[" or "{"), after which
// only the "}" remains, which is never written with a newline: atLast
// says so, and the "}" is added to Buf.
func (d *HeldDocument) Add(data []byte) (closed, atLast bool) {
	if need := len(data) + 2; cap(d.Buf)-len(d.Buf) < need {
		// Twice the size: append grows a large slice by a quarter, and
		// copied a document of megabytes five times over.
		d.Buf = append(make([]byte, 0, 2*cap(d.Buf)+need), d.Buf...)
	}
	d.Buf = append(append(d.Buf, data...), '\n')
	line := bytes.TrimRight(data, " \t\r")
	switch {
	case len(line) > 0 && line[0] == '}':
		return true, false
	case lastMember(line):
		d.Buf = append(d.Buf, '}')
		return true, true
	}
	return false, false
}

// lastMember reports whether a line of a document is the end of its last
// member: at an indent of two spaces, not ending in ",", "[" or "{".
func lastMember(b []byte) bool {
	if len(b) < 3 || b[0] != ' ' || b[1] != ' ' || b[2] == ' ' {
		return false
	}
	switch b[len(b)-1] {
	case ',', '[', '{':
		return false
	}
	return true
}
