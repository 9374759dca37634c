package bub

import (
	"bytes"
	"encoding/json"
	"strings"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// Message is one chat message of a context, in the OpenAI shape. A message
// entry's payload is kept as it is, in Raw; the other messages are built
// from their fields, which MarshalJSON writes in the order Bub writes them.
type Message struct {
	Raw        json.RawMessage // a message entry's payload, as it is; nil otherwise
	Role       string
	Content    string
	ToolCalls  []json.RawMessage // an assistant message's tool calls
	ToolCallID string            // a tool message's call id, "" when unpaired
	Name       string            // a tool message's function name, "" when unpaired
	EntryID    string            // the entry the message was built from
	Kind       string            // that entry's kind: anchor, message, tool_call or tool_result

	// CallEntryID is, for a tool message that answers a call, the EntryID
	// of the tool_call entry that made the call; "" when it answers none.
	// It ties a result to its call, which FitTokens keeps together, even
	// where the call has no id.
	CallEntryID string
}

// MarshalJSON writes the message as it is sent to a model.
func (m Message) MarshalJSON() ([]byte, error) {
	if m.Raw != nil {
		return m.Raw, nil
	}
	var b bytes.Buffer
	b.WriteString(`{"role":`)
	writeString(&b, m.Role)
	b.WriteString(`,"content":`)
	writeString(&b, m.Content)
	if m.ToolCalls != nil {
		b.WriteString(`,"tool_calls":[`)
		for i, c := range m.ToolCalls {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(c)
		}
		b.WriteByte(']')
	}
	if m.ToolCallID != "" {
		b.WriteString(`,"tool_call_id":`)
		writeString(&b, m.ToolCallID)
	}
	if m.Name != "" {
		b.WriteString(`,"name":`)
		writeString(&b, m.Name)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a Go string always encodes
	b.Truncate(b.Len() - 1)
}

// Context builds the messages an agent sends to its model from a tape's
// entries, in tape order, as Bub's default tape context builds them:
//
//   - anchor: an assistant message "[Anchor created: NAME]: STATE", STATE as
//     Python's json.dumps writes it (see PythonJSON);
//   - message: its payload as it is, when it is a JSON object;
//   - tool_call: an assistant message with empty content and the entry's
//     calls (the objects of payload.calls), which become the pending calls;
//   - tool_result: one tool message per item of payload.results, paired
//     with a pending call by the pairing rule (views/pairing.go): by the call id the result
//     carries, else by position; a result object that carries an id says
//     its "content" (see resultContent);
//   - any other kind (system, event, error, unknown kinds): nothing.
//
// Entries whose meta.context is false are left out, as if they were not on
// the tape: they neither add messages nor change the pending calls.
func Context(entries []tapelog.Entry) []Message {
	msgs := []Message{}
	var pending []contextCall
	lastTool := "" // the kind of the last tool entry, for the pairing rule
	toolCalls := 0 // tool_call entries so far
	for _, e := range entries {
		if !InContext(e) {
			continue
		}
		prevTool := lastTool
		if views.IsToolKind(e.Kind) {
			lastTool = e.Kind
		}
		switch e.Kind {
		case tapelog.KindAnchor:
			msgs = append(msgs, anchorMessage(e))
		case tapelog.KindMessage:
			if isObject(e.Payload) {
				msgs = append(msgs, Message{Raw: bytes.TrimSpace(e.Payload), EntryID: e.ID, Kind: e.Kind})
			}
		case tapelog.KindToolCall:
			calls := views.Calls(e.Payload)
			if views.RestartsFold(prevTool) {
				pending = nil
			}
			toolCalls++
			for i, c := range calls {
				p := views.ParseCall(c)
				pending = append(pending, contextCall{id: p.ID, name: p.Name, index: i, entry: toolCalls, entryID: e.ID})
			}
			if len(calls) > 0 {
				msgs = append(msgs, Message{Role: "assistant", ToolCalls: calls, EntryID: e.ID, Kind: e.Kind})
			}
		case tapelog.KindToolResult:
			var added []Message
			added, pending = toolMessages(e, pending, toolCalls)
			msgs = append(msgs, added...)
		}
	}
	return msgs
}

// contextCall is a pending call of the context: its id and name
// (views.ParseCall), and its position in its tool_call entry.
type contextCall struct {
	id, name string
	index    int
	entry    int    // the number of its tool_call entry in the context
	entryID  string // and that entry's id
}

// toolMessages is one tool message per result of a tool_result entry,
// each paired with its call by the pairing rule, and the calls still
// pending after it. A result that carries an id keeps it, even when it
// answers no call: it is not attached to another.
func toolMessages(e tapelog.Entry, pending []contextCall, latest int) ([]Message, []contextCall) {
	results, _ := views.Results(e.Payload)
	refs := make([]views.ResultRef, len(results))
	for i, r := range results {
		refs[i] = views.ParseResult(r) // an item that does not decode has no id
	}
	pend := make([]views.PendingRef, len(pending))
	for j, c := range pending {
		pend[j] = views.PendingRef{ID: c.id, Index: c.index, Latest: c.entry == latest}
	}
	answers, _, ends := views.Match(pend, refs)
	var msgs []Message
	answered := make([]bool, len(pending))
	for i, r := range results {
		m := Message{Role: "tool", Content: resultText(r), EntryID: e.ID, Kind: e.Kind, ToolCallID: refs[i].CallID}
		if refs[i].CallID != "" {
			m.Content = partsText(resultContent(r))
		}
		if j := answers[i]; j >= 0 {
			answered[j] = true
			if m.ToolCallID == "" {
				m.ToolCallID = pending[j].id
			}
			m.Name = pending[j].name
			m.CallEntryID = pending[j].entryID
		}
		msgs = append(msgs, m)
	}
	if ends {
		return msgs, nil
	}
	var rest []contextCall
	for j, c := range pending {
		if !answered[j] {
			rest = append(rest, c)
		}
	}
	return msgs, rest
}

// InContext reports whether an entry goes into a context: every entry but
// those whose meta.context is false.
func InContext(e tapelog.Entry) bool {
	var meta struct {
		Context *bool `json:"context"`
	}
	if json.Unmarshal(e.Meta, &meta) != nil || meta.Context == nil {
		return true
	}
	return *meta.Context
}

// anchorMessage renders an anchor as Bub does; a missing name reads "None"
// and a missing state "null", as Python's str and json.dumps render None.
func anchorMessage(e tapelog.Entry) Message {
	var p struct {
		Name  *string         `json:"name"`
		State json.RawMessage `json:"state"`
	}
	_ = json.Unmarshal(e.Payload, &p) // a payload that is not an object has neither
	name := "None"
	if p.Name != nil {
		name = *p.Name
	}
	state := "null"
	if len(p.State) > 0 {
		if s, err := PythonJSON(p.State); err == nil {
			state = s
		}
	}
	return Message{Role: "assistant", Content: "[Anchor created: " + name + "]: " + state, EntryID: e.ID, Kind: e.Kind}
}

// resultText is a result as a tool message's content: a string as it is,
// anything else as Python's json.dumps writes it.
func resultText(r json.RawMessage) string {
	var s string
	if r = bytes.TrimSpace(r); len(r) > 0 && r[0] == '"' && json.Unmarshal(r, &s) == nil {
		return s
	}
	if text, err := PythonJSON(r); err == nil {
		return text
	}
	return string(r)
}

// resultContent is what a tool message says of a result object that
// carries its call's id: its "content" (or "output"), else all of it.
func resultContent(r json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(r, &m) != nil {
		return r
	}
	for _, k := range []string{"content", "output"} {
		if c, ok := m[k]; ok {
			return c
		}
	}
	return r
}

// partsText is a content as text: a list of parts whose every item is a
// text part ({"type": "text", "text": ...}) is their texts joined by
// newlines, as a tool message's string content holds them; anything else
// is resultText's.
func partsText(content json.RawMessage) string {
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if json.Unmarshal(content, &parts) != nil || len(parts) == 0 {
		return resultText(content)
	}
	texts := make([]string, len(parts))
	for i, p := range parts {
		if p.Type != "text" || p.Text == nil {
			return resultText(content)
		}
		texts[i] = *p.Text
	}
	return strings.Join(texts, "\n")
}

// isObject reports whether raw is a JSON object: a message entry's payload
// goes into the context only then.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}
