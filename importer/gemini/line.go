package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// record is a line of a recording, or a message of a document, with
// every member the mapping reads as written (recordOf): which record it
// is depends on which members it has and their types, as Gemini CLI's own
// loader tells them (loadConversationRecord).
type record struct {
	// A message.
	ID, Timestamp, Type, Content, DisplayContent, ToolCalls, Thoughts, Tokens, Model json.RawMessage
	// The session's header.
	SessionID, StartTime, Messages json.RawMessage
	// An update of the header ($set), and a rewind ($rewindTo).
	Set, RewindTo json.RawMessage
}

// input is one record being mapped: the line it came from (a document's
// message: the line it starts on), the record, and its raw text.
type input struct {
	l   tapelog.RawLine
	rec record
	raw json.RawMessage
	// fields are the record's members, when the mapping split it.
	fields []field
	date   string          // its timestamp, or the date before it
	bad    json.RawMessage // its timestamp as written, when it is no date
	// from is where the record was: "" a line of its own, "document" a
	// document's message, "set" a $set's message.
	from string
	// synthetic marks the messages of a history the session starts with:
	// the context Gemini CLI sets up, which no one typed.
	synthetic bool
}

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	if c.doc != nil {
		return c.docLine(l)
	}
	data := bytes.TrimSpace(l.Data)
	if string(data) == "{" {
		c.openDocument(l)
		return nil, nil
	}
	if c.st.Closed {
		c.st.Closed = false
		if string(data) == "}" {
			return nil, nil // the closing brace of the document before
		}
	}
	fs, line, err := checkedFields(l.Data)
	switch {
	case err != nil && !source.IsTypeError(err):
		return nil, fmt.Errorf("not a JSON record: %v", source.JSONReason(err))
	case err != nil || !source.IsObject(l.Data):
		return nil, errors.New("not a JSON object")
	}
	rec := recordOf(fs)
	out := c.record(input{l: l, rec: rec, raw: line, fields: fs})
	return out, c.takeWarning()
}

// record maps a record read on a line of its own.
func (c *converter) record(in input) []source.Output {
	in = c.dated(in)
	c.modelOf(in.rec)
	var out []source.Output
	switch kindOf(in.rec) {
	case kindRewind:
		out = c.rewind(in)
	case kindSet:
		out = c.set(in)
	case kindHeader:
		out = c.header(in)
	case kindMessage:
		out = c.message(in)
	default:
		out = append(c.start(in.l, nil), c.event(in, source.LineID(c.path, in.l.No, 0), c.d.name+"/record", in.raw))
	}
	return out
}

// dated reads a record's timestamp: its date, or the date before it, and
// a warning that says why (the line's first: takeWarning).
func (c *converter) dated(in input) input {
	if date, bad := source.RecordDate(in.rec.Timestamp, c.st.Date); bad != "" {
		in.date, in.bad = date, source.Trim(in.rec.Timestamp)
		if c.warn == nil {
			c.warn = source.LineWarning(bad)
		}
	} else {
		in.date = date
	}
	c.st.Date = in.date
	return in
}

// modelOf notes the model a record names: ccusage counts a model's
// message that names none as the last one named before it in the file,
// on any record.
func (c *converter) modelOf(r record) {
	if m := str(r.Model); m != "" {
		c.st.Model = m
	}
}

// takeWarning is the warning of the line just mapped, if any.
func (c *converter) takeWarning() error {
	w := c.warn
	c.warn = nil
	return w
}

// What a record is.
const (
	kindOther = iota
	kindRewind
	kindSet
	kindHeader
	kindMessage
)

// kindOf tells a record by its members, as Gemini CLI's loader does: a
// string $rewindTo is a rewind, an object $set an update of the header,
// a string id (or, as ccusage reads them, a string type and no id) a
// message, a
// string sessionId the header. Anything else is no record the mapping
// knows.
func kindOf(r record) int {
	_, rewind := rawjson.String(source.Trim(r.RewindTo))
	_, id := rawjson.String(source.Trim(r.ID))
	_, typ := rawjson.String(source.Trim(r.Type))
	_, session := rawjson.String(source.Trim(r.SessionID))
	switch {
	case rewind:
		return kindRewind
	case source.IsObject(r.Set):
		return kindSet
	case id || typ && r.SessionID == nil && (r.ID == nil || string(source.Trim(r.ID)) == "null"):
		return kindMessage
	case session:
		return kindHeader
	}
	return kindOther
}

// str is a member that is a JSON string, "" for any other.
func str(raw json.RawMessage) string {
	s, _ := rawjson.String(source.Trim(raw))
	return s
}

// entry is an entry made from a record, with the id given.
func (c *converter) entry(in input, id, kind string, payload json.RawMessage) tapelog.Entry {
	return c.entryAt(in, id, kind, payload, in.date)
}

// entryAt is entry with a date of its own (a thought's, a call's).
func (c *converter) entryAt(in input, id, kind string, payload json.RawMessage, date string) tapelog.Entry {
	m := source.Meta(c.path, in.l.No, "", "", in.bad)
	if in.synthetic && kind == tapelog.KindMessage {
		m.True("synthetic")
	}
	return tapelog.Entry{ID: id, Kind: kind, Payload: payload, Meta: m.Done(), Date: date}
}

// event keeps data whole as an event named name: what the mapping does
// not read.
func (c *converter) event(in input, id, name string, data json.RawMessage) source.Output {
	return source.Output{Session: c.st.Session, Entry: c.entry(in, id, tapelog.KindEvent, source.NamedData(name, data))}
}

// hashID is prefix and the first 8 hex digits of the SHA-256 of data:
// the id of an entry made from a part of a document that has no id of
// its own, which its line number cannot give, for a document's lines
// move when Gemini CLI rewrites it. data is JSON text.
func hashID(prefix string, data []byte) string {
	return prefix + "/" + source.ShortSum(compact(data)) // as a .jsonl writes it, or a document
}
