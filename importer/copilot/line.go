package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// input is one line being mapped.
type input struct {
	l       tapelog.RawLine
	ev      envelope
	f       fields
	s       source.Session // the session (or subagent) the line belongs to
	date    string         // the date of its entries
	dated   bool           // the line's own timestamp is a date
	badDate json.RawMessage
}

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	if c.doc != nil || isDocument(c.path) {
		return c.docLine(l)
	}
	data := l.Data
	var torn error
	// One pass checks the line and splits its members (encoding/json's
	// check and then its decode read it twice); a line it leaves (not
	// JSON, a key with an escape, deep nesting) is checked by
	// encoding/json, and its members walked.
	split, ok := rawjson.SplitObject(data, c.members[:0])
	switch {
	case ok:
		c.members = split
	case !json.Valid(data):
		// Copilot sometimes leaves a torn event with the whole one after
		// it on one line (issue github/copilot-cli#4098): the whole one is
		// read, and the torn bytes are reported.
		at, ok := lastWholeEvent(data)
		if !ok {
			return nil, fmt.Errorf("not a JSON record: %v", source.JSONReason(json.Unmarshal(data, new(json.RawMessage))))
		}
		data, torn = data[at:], source.LineWarning(fmt.Sprintf("the line starts with %d bytes of a torn event, skipped; the event after them was imported", at))
	}
	if !source.IsObject(data) {
		return nil, errors.New("not a JSON object")
	}
	if hugeNumber(data) {
		return nil, errors.New("not a JSON record: a number too large for a float64")
	}
	in := input{l: l}
	each := func(fn func(key, value []byte)) { rawjson.ObjectMembers(data, fn) }
	if split != nil {
		each = func(fn func(key, value []byte)) {
			for _, m := range split {
				fn(m.Key, m.Value)
			}
		}
	}
	ev, ok := readEnvelope(each)
	if !ok {
		// An envelope of another shape than Copilot writes (an id that is
		// a number, no type): the record is kept whole.
		ev = envelope{Type: "record", Data: data, Timestamp: ev.Timestamp}
	}
	in.ev = ev
	warn := c.date(&in)
	if torn != nil {
		warn = torn
	}
	return c.mapLine(&in), warn
}

// lastWholeEvent finds, in a line that is not JSON, the last
// {"type": after its start from which the rest of the line is one object.
// It tries the last wholeEventTries of them: each try reads the rest of
// the line, and a line of nothing but {"type": (an untrusted file's) would
// otherwise cost the square of its length.
func lastWholeEvent(data []byte) (int, bool) {
	for end, try := len(data), 0; end > 0 && try < wholeEventTries; try++ {
		at := bytes.LastIndex(data[:end], []byte(`{"type":`))
		if at <= 0 {
			return 0, false
		}
		if json.Valid(data[at:]) && source.IsObject(data[at:]) {
			return at, true
		}
		end = at
	}
	return 0, false
}

// wholeEventTries bounds lastWholeEvent: a whole event has a few objects
// of its own with a "type" (its data's), and a torn line one whole event.
const wholeEventTries = 32

// date reads the line's timestamp: the date of its entries, else the one
// before it, with a warning when it is there and no date.
func (c *converter) date(in *input) error {
	date, bad := source.RecordDate(in.ev.Timestamp, c.st.Date)
	c.st.Date, in.date = date, date
	if bad != "" {
		in.badDate = source.Trim(in.ev.Timestamp)
		return source.LineWarning(bad)
	}
	s, ok := rawjson.String(source.Trim(in.ev.Timestamp))
	in.dated = ok && s != ""
	return nil
}

// mapLine maps a line whose envelope was read: to the session, or to the
// subagent it names.
func (c *converter) mapLine(in *input) []source.Output {
	in.s = c.st.Session
	if in.ev.Type == "record" {
		return append(c.start(in), c.event(in, 0, "copilot/record", in.ev.Data)...)
	}
	in.s.Agent = in.ev.AgentID
	if !source.IsObject(in.ev.Data) {
		// A data of another shape than Copilot writes: kept as it is.
		return append(c.start(in), c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)...)
	}
	in.f = readFields(in.ev.Data)
	p, ok := optString(in.f.ParentCall)
	if !ok {
		return append(c.start(in), c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)...)
	}
	if in.s.Agent == "" {
		in.s.Agent = p // before agentId (1.0.32), a subagent's events named the call that started it
	}
	if in.ev.Type == "session.start" && !c.st.Started[""] && in.s.Agent == "" {
		return c.sessionStart(in)
	}
	out := c.start(in)
	return append(out, c.mapEvent(in)...)
}

// mapEvent maps an event by its type.
func (c *converter) mapEvent(in *input) []source.Output {
	switch in.ev.Type {
	case "user.message":
		return c.userMessage(in)
	case "assistant.message":
		return c.assistantMessage(in)
	case "assistant.reasoning":
		return c.reasoning(in)
	case "system.message":
		return c.systemMessage(in)
	case "assistant.turn_start", "assistant.turn_end":
		return nil // a turn's bounds: ids, which the messages' order says
	case "tool.user_requested":
		return c.userRequested(in)
	case "tool.execution_start":
		return c.executionStart(in)
	case "tool.execution_complete":
		return c.executionComplete(in)
	case "session.compaction_complete":
		return c.compaction(in)
	case "session.shutdown":
		return c.shutdown(in)
	case "session.error":
		return c.sessionError(in)
	case "session.title_changed":
		if t, ok := rawjson.String(in.f.Title); ok {
			payload := rawjson.NewObject().Str("name", "title").Raw("data", rawjson.NewObject().Str("title", t).Str("from", in.ev.Type).Done()).Done()
			return c.one(in, 0, tapelog.KindEvent, payload)
		}
	case "session.resume", "session.context_changed":
		return c.contextEvent(in)
	}
	return c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)
}

// id is the id of the k-th entry made from a line: its event's id, else
// its place.
func (c *converter) id(in *input, k int) string {
	if in.ev.ID != "" {
		return source.WithPart(in.ev.ID, k)
	}
	return source.LineID(c.path, in.l.No, k)
}

// meta starts the meta of an entry made from a line.
func (c *converter) meta(in *input) *rawjson.Object {
	return source.Meta(c.path, in.l.No, in.ev.ID, in.ev.ParentID, in.badDate)
}

// entry is the k-th entry made from a line.
func (c *converter) entry(in *input, k int, kind string, payload json.RawMessage) source.Output {
	return source.Output{Session: in.s, Entry: tapelog.Entry{ID: c.id(in, k), Kind: kind, Payload: payload, Meta: c.meta(in).Done(), Date: in.date}}
}

// one is the k-th entry of a line, as the only output.
func (c *converter) one(in *input, k int, kind string, payload json.RawMessage) []source.Output {
	return []source.Output{c.entry(in, k, kind, payload)}
}

// event keeps data as an event called name.
func (c *converter) event(in *input, k int, name string, data json.RawMessage) []source.Output {
	return c.one(in, k, tapelog.KindEvent, source.NamedData(name, data))
}

// compact is a member's value as an entry keeps it.
func compact(raw json.RawMessage) []byte { return rawjson.AppendCompact(nil, source.Trim(raw)) }

// given reports whether a member is there and not null.
func given(raw json.RawMessage) bool {
	raw = source.Trim(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// optString reads a member the mapping reads as a string: absent or null
// is "", ok; any other value is not ok.
func optString(raw json.RawMessage) (string, bool) {
	if !given(raw) {
		return "", true
	}
	return rawjson.String(source.Trim(raw))
}
