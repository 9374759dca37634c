package droid

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// A session's <id>.settings.json is one JSON document, which Droid writes
// over at every turn: {"assistantActiveTimeMs", "model",
// "reasoningEffort", "autonomyMode", "tags", "providerLock",
// "providerLockTimestamp", "apiProviderLock", "tokenUsage": {...}, ...},
// pretty-printed with two spaces, its closing "}" without a newline. A
// document's lines are held until one closes it, and it is read whole
// then: the session's settings as an event, its token counts as a run
// (decision 0090).

// heldDoc is a settings document while its lines come.
type heldDoc struct {
	line   int   // its first line
	offset int64 // and that line's offset
	indent []byte
	text   []byte
	saved  []byte // the converter's state before it
}

// docLine takes a line of a settings document: the document's entries
// when the line closes it, else nothing yet. A line closes it when it
// starts with "}", or is the whole document; or when it is the last
// member's last line (at the first member's indent, not ending in ",",
// "[" or "{"), after which only the "}" remains that never gets its
// newline: the document is read with it, and that line, should it come,
// makes nothing.
func (c *converter) docLine(l tapelog.RawLine) ([]source.Output, error) {
	line := l.Data
	if c.doc == nil {
		if c.st.Brace && string(bytes.TrimSpace(line)) == "}" {
			c.st.Brace = false
			return nil, nil
		}
		c.st.Brace = false
		c.doc = &heldDoc{line: l.No, offset: l.Offset, saved: source.MustJSON(c.st)}
	}
	d := c.doc
	d.text = append(append(d.text, line...), '\n')
	if l.No == d.line+1 {
		d.indent = line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
	}
	trimmed := bytes.TrimSpace(line)
	switch {
	case (l.No == d.line || len(trimmed) > 0 && trimmed[0] == '}') && json.Valid(d.text):
		c.doc = nil
		return c.document(d, d.text)
	case d.lastMember(line) && json.Valid(closed(d.text)):
		c.doc = nil
		c.st.Brace = true
		return c.document(d, closed(d.text))
	}
	return nil, nil
}

// lastMember reports whether line may be the end of the document's last
// member: at the indent of its first, and not the start of a value or a
// member with more after it.
func (d *heldDoc) lastMember(line []byte) bool {
	if len(d.indent) == 0 || !bytes.HasPrefix(line, d.indent) {
		return false
	}
	rest := bytes.TrimRight(line[len(d.indent):], " \t\r")
	if len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' {
		return false
	}
	last := rest[len(rest)-1]
	return last != ',' && last != '[' && last != '{'
}

// closed is a document's text with the "}" its file has not written yet.
func closed(text []byte) []byte { return append(text[:len(text):len(text)], '}') }

// flushDoc reads a document its quiet file never closed: with the "}" it
// lacks, when that makes it whole; else its text is kept, as an event.
func (c *converter) flushDoc() []source.Output {
	d := c.doc
	if d == nil {
		return nil
	}
	c.doc = nil
	var out []source.Output
	switch {
	case json.Valid(closed(d.text)):
		c.st.Brace = true
		out, _ = c.document(d, closed(d.text))
	case json.Valid(d.text):
		out, _ = c.document(d, d.text)
	default:
		in := c.docInput(d, c.st.Date)
		data := rawjson.NewObject().Str("text", string(d.text)).Done()
		out = append(in.start("", "", nil), in.event("droid/settings_text", data)...)
	}
	return out
}

// docInput is the input of a document's entries: the line it starts at.
func (c *converter) docInput(d *heldDoc, date string) *input {
	return &input{c: c, l: tapelog.RawLine{No: d.line, Offset: d.offset}, r: record{Timestamp: date}, lineIDs: true}
}

// document is what a settings document makes: the session's first anchor
// when this converter made none yet (the transcript's, whose id is the
// same, comes first when the transcript is read first); an event
// "droid/settings" of the whole document; a run of its tokenUsage. Their
// ids are the session's and a sum of what they hold, so that the document
// read again makes nothing, and written over makes an entry of what
// changed. They are dated by providerLockTimestamp.
func (c *converter) document(d *heldDoc, text []byte) ([]source.Output, error) {
	if !utf8.Valid(text) {
		text = bytes.ToValidUTF8(text, []byte("\uFFFD"))
	}
	doc := rawjson.AppendCompact(nil, text)
	var warn error
	var raw []byte
	if source.IsObject(doc) {
		raw = source.Trim(lookup(doc, "providerLockTimestamp"))
	}
	date, bad := source.RecordDate(raw, c.st.Date)
	in := c.docInput(d, date)
	if bad != "" {
		in.r.badDate, warn = raw, source.LineWarning(bad)
	}
	c.st.Date = date
	id := c.st.Session.ID
	out := in.start("", "", nil)
	o := in.entry(tapelog.KindEvent, source.NamedData("droid/settings", doc), in.meta())
	o.Entry.ID = id + "/settings/" + source.ShortSum(doc)
	out = append(out, o)
	if run := runOf(doc, id); run != nil {
		o := in.entry(tapelog.KindEvent, run, in.meta())
		o.Entry.ID = id + "/usage/" + source.ShortSum([]byte(date+"\x00"+string(run)))
		out = append(out, o)
	}
	return out, warn
}

// lookup is the value of obj's member key (the last written), nil when
// absent.
func lookup(obj []byte, key string) []byte {
	var v []byte
	rawjson.ObjectMembers(obj, func(k, value []byte) {
		if string(k) == key {
			v = value
		}
	})
	return v
}
