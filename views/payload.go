package views

import (
	"bytes"
	"cmp"
	"encoding/json"
)

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

// CallParts is what a call object says, in any of the shapes agents write
// one: OpenAI's {"id", "type": "function", "function": {"name",
// "arguments"}}, a custom tool's {"id", "custom": {"name", "input"}}, or a
// flat {"id", "name", "arguments" or "input"}. Bub's context and the
// commands that show a call read calls with ParseCall; Extract reads the
// same keys of the payload it decoded already (callRef), and FuzzExtract
// checks that the two agree.
type CallParts struct {
	ID, Name string // "" when the call has no non-empty string of it
	// Arguments are the first of function.arguments, custom.input,
	// arguments and input that the call has, as written: OpenAI's are a
	// JSON document in a string. nil when it has none.
	Arguments json.RawMessage
}

// ParseCall reads a call object (an item of Calls). Its keys are read as
// Extract reads them from the decoded payload: as they are spelled (where
// encoding/json would fill a struct's fields whatever their case).
func ParseCall(call json.RawMessage) CallParts {
	top := members(call)
	fn, custom := members(top["function"]), members(top["custom"])
	p := CallParts{ID: stringOf(top["id"]), Name: cmp.Or(stringOf(fn["name"]), stringOf(custom["name"]), stringOf(top["name"]))}
	for _, a := range []json.RawMessage{fn["arguments"], custom["input"], top["arguments"], top["input"]} {
		if len(a) > 0 && p.Arguments == nil {
			p.Arguments = a
		}
	}
	return p
}

// members are the members of a JSON object; none for any other value.
func members(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	return m
}

// stringOf is a JSON string's value; "" for any other value.
func stringOf(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}
