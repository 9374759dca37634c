package copilot

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// The Copilot CLI up to 0.0.341 (October 2025) kept each session in
// history-session-state/session_<id>_<time>.json: one JSON document,
// pretty-printed over many lines and rewritten whole, of the session's id
// and start, its chat as OpenAI messages (chatMessages), and the timeline
// the CLI showed (timeline). A document's lines are held until the line
// that closes it, and it is read whole then (decision 0087).

// chatDate is how a chat message's date is written: to the microsecond.
const chatDate = "2006-01-02T15:04:05.000000Z07:00"

// heldDoc is a legacy document while its lines come.
type heldDoc struct {
	line   int   // its first line
	offset int64 // and that line's offset
	text   []byte
	saved  []byte // the converter's state before it
}

// docLine takes a line of a legacy document: the entries of the document
// when the line closes it (a line that starts with its closing bracket,
// or a document on one line), else nothing yet.
func (c *converter) docLine(l tapelog.RawLine) ([]source.Output, error) {
	if c.doc == nil {
		c.doc = &heldDoc{line: l.No, offset: l.Offset, saved: source.MustJSON(c.st)}
	}
	d := c.doc
	d.text = append(append(d.text, l.Data...), '\n')
	if (l.No == d.line || l.Data[0] == '}' || l.Data[0] == ']') && json.Valid(d.text) {
		c.doc = nil
		return c.document(d)
	}
	return nil, nil
}

// flushDoc ends a document that its file, quiet, never closed: its text
// is kept as an event (as is a document that holds a number no float64
// holds).
func (c *converter) flushDoc() []source.Output {
	d := c.doc
	if d == nil {
		return nil
	}
	c.doc = nil
	return c.docText(d)
}

// docText keeps a document's text as an event.
func (c *converter) docText(d *heldDoc) []source.Output {
	in := c.docInput(d, c.st.Date)
	data := rawjson.NewObject().Str("text", string(d.text)).Done()
	return append(c.start(in), c.event(in, 0, "copilot/history", data)...)
}

// docInput is the input of a document's entries.
func (c *converter) docInput(d *heldDoc, date string) *input {
	return &input{l: tapelog.RawLine{No: d.line, Offset: d.offset}, s: c.st.Session, date: date}
}

// document is what a session document makes: the session's first anchor,
// whose state keeps the document's other members ("history"); an entry or
// two for each chat message; an event for each timeline item.
func (c *converter) document(d *heldDoc) ([]source.Output, error) {
	if hugeNumber(d.text) {
		return c.docText(d), nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(d.text, &top) != nil || top == nil {
		in := c.docInput(d, c.st.Date)
		return append(c.start(in), c.event(in, 0, "copilot/history", d.text)...), nil
	}
	var warn error
	date, bad := source.RecordDate(top["startTime"], c.st.Date)
	if bad != "" {
		warn = source.LineWarning(bad)
	}
	c.st.Date = date
	if id, ok := rawjson.String(source.Trim(top["sessionId"])); ok && id != "" && !c.st.Named {
		c.st.Session.ID = id
	}
	in := c.docInput(d, date)
	chat, timeline := top["chatMessages"], top["timeline"]
	delete(top, "chatMessages")
	delete(top, "timeline")
	var out []source.Output
	if !c.st.Started[""] {
		state := rawjson.NewObject().Str("source", "copilot").Str("session_id", in.s.ID).Str("file", c.path).Raw("history", source.MustJSON(top)).Done()
		out = c.anchor(in, state)
	} else {
		out = c.event(in, 0, "copilot/history", source.MustJSON(top))
	}
	prefix := in.s.ID + "/"
	start, err := tapelog.ParseTime(date)
	for i, item := range items(chat) {
		msg := *in
		if err == nil {
			// The chat holds no dates: each message is the session's start
			// and its place in microseconds, so that they keep their order
			// (a tape's folder merges its files by date).
			msg.date = start.Add(time.Duration(i) * time.Microsecond).Format(chatDate)
		}
		out = append(out, c.chatMessage(&msg, prefix+"chat/"+strconv.Itoa(i), item)...)
	}
	for i, item := range items(timeline) {
		var t struct {
			Timestamp json.RawMessage `json:"timestamp"`
		}
		at := date
		if source.IsObject(item) && json.Unmarshal(item, &t) == nil {
			if d, bad := source.RecordDate(t.Timestamp, date); bad == "" {
				at = d
			}
		}
		e := c.docEntry(in, prefix+"timeline/"+strconv.Itoa(i), tapelog.KindEvent, source.NamedData("copilot/timeline", item))
		e.Entry.Date = at
		out = append(out, e)
	}
	return out, warn
}

// items are the items of a list; anything else is one item (or none, when
// absent).
func items(raw json.RawMessage) []json.RawMessage {
	var list []json.RawMessage
	if !given(raw) {
		return nil
	}
	if raw = source.Trim(raw); raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
		return []json.RawMessage{raw}
	}
	return list
}

// docEntry is an entry of a document, with the id given.
func (c *converter) docEntry(in *input, id, kind string, payload []byte) source.Output {
	return source.Output{Session: in.s, Entry: tapelog.Entry{ID: id, Kind: kind, Payload: payload, Meta: c.meta(in).Done(), Date: in.date}}
}

// chatMessage maps an OpenAI chat message: a user's or an assistant's
// message (and the assistant's tool calls, as written), a tool's result, a
// system prompt; anything else, or of another shape, an event.
func (c *converter) chatMessage(in *input, id string, item json.RawMessage) []source.Output {
	var m struct {
		Role       json.RawMessage `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCalls  json.RawMessage `json:"tool_calls"`
		ToolCallID json.RawMessage `json:"tool_call_id"`
		Name       json.RawMessage `json:"name"`
	}
	odd := []source.Output{c.docEntry(in, id, tapelog.KindEvent, source.NamedData("copilot/chat_message", item))}
	if !source.IsObject(item) || json.Unmarshal(item, &m) != nil {
		return odd
	}
	role, _ := rawjson.String(source.Trim(m.Role))
	content := source.Trim(m.Content)
	text := len(content) > 0 && (content[0] == '"' || content[0] == '[')
	switch {
	case role == "tool":
		callID, ok := rawjson.String(source.Trim(m.ToolCallID))
		name, ok2 := optString(m.Name)
		if !ok || !ok2 {
			return odd
		}
		r := rawjson.NewObject().Str("tool_call_id", callID).Raw("content", compact(content)).StrIf("name", name).Done()
		return []source.Output{c.docEntry(in, id, tapelog.KindToolResult, rawjson.NewObject().Raw("results", rawjson.Array(r)).Done())}
	case role == "system" && len(content) > 0 && content[0] == '"':
		return []source.Output{c.docEntry(in, id, tapelog.KindSystem, rawjson.NewObject().Raw("content", compact(content)).Done())}
	case role == "user" && text:
		return []source.Output{c.docEntry(in, id, tapelog.KindMessage, rawjson.NewObject().Str("role", "user").Raw("content", compact(content)).Done())}
	case role == "assistant" && (text || !given(content)):
		calls := source.Trim(m.ToolCalls)
		if given(calls) && calls[0] != '[' {
			return odd
		}
		var out []source.Output
		if text {
			out = append(out, c.docEntry(in, id, tapelog.KindMessage, rawjson.NewObject().Str("role", "assistant").Raw("content", compact(content)).Done()))
		}
		if given(calls) && string(calls) != "[]" {
			out = append(out, c.docEntry(in, source.WithPart(id, len(out)), tapelog.KindToolCall, rawjson.NewObject().Raw("calls", compact(calls)).Done()))
		}
		return out
	}
	return odd
}
