package views

import (
	"bytes"
	"encoding/json"

	tapelog "github.com/tape-dev/tape/log"
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
//     with the pending call at the same position (see Pair); then no call
//     is pending;
//   - any other kind (system, event, error, unknown kinds): nothing.
//
// Entries whose meta.context is false are left out, as if they were not on
// the tape: they neither add messages nor change the pending calls.
func Context(entries []tapelog.Entry) []Message {
	msgs := []Message{}
	var pending []json.RawMessage
	for _, e := range entries {
		if !InContext(e) {
			continue
		}
		switch e.Kind {
		case tapelog.KindAnchor:
			msgs = append(msgs, anchorMessage(e))
		case tapelog.KindMessage:
			if isObject(e.Payload) {
				msgs = append(msgs, Message{Raw: bytes.TrimSpace(e.Payload), EntryID: e.ID})
			}
		case tapelog.KindToolCall:
			pending = Calls(e.Payload)
			if len(pending) > 0 {
				msgs = append(msgs, Message{Role: "assistant", ToolCalls: pending, EntryID: e.ID})
			}
		case tapelog.KindToolResult:
			results, _ := Results(e.Payload)
			for i, r := range results {
				m := Message{Role: "tool", Content: resultText(r), EntryID: e.ID}
				m.ToolCallID, m.Name = Pair(pending, i)
				msgs = append(msgs, m)
			}
			pending = nil
		}
	}
	return msgs
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
	return Message{Role: "assistant", Content: "[Anchor created: " + name + "]: " + state, EntryID: e.ID}
}

// Calls returns the calls of a tool_call entry's payload: the JSON objects
// of its "calls" array, in order. Anything else in the array is dropped,
// and a payload without such an array has no calls.
func Calls(payload json.RawMessage) []json.RawMessage {
	var p struct {
		Calls []json.RawMessage `json:"calls"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return nil
	}
	var calls []json.RawMessage
	for _, c := range p.Calls {
		if isObject(c) {
			calls = append(calls, bytes.TrimSpace(c))
		}
	}
	return calls
}

// Results returns the items of a tool_result entry's "results" array, and
// false when the payload has no such array.
func Results(payload json.RawMessage) ([]json.RawMessage, bool) {
	var p struct {
		Results *[]json.RawMessage `json:"results"`
	}
	if json.Unmarshal(payload, &p) != nil || p.Results == nil {
		return nil, false
	}
	return *p.Results, true
}

// Pair returns the id and function name of the pending call at position i
// of a result: results are matched to calls by position, not by id, as Bub
// matches them. Either is "" when there is no call at i, or the call has no
// non-empty string id or function.name.
func Pair(pending []json.RawMessage, i int) (id, name string) {
	if i < 0 || i >= len(pending) {
		return "", ""
	}
	var c struct {
		ID       any `json:"id"`
		Function struct {
			Name any `json:"name"`
		} `json:"function"`
	}
	_ = json.Unmarshal(pending[i], &c) // fields of another type are left out
	id, _ = c.ID.(string)
	name, _ = c.Function.Name.(string)
	return id, name
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

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}
