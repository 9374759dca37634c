package views

import (
	"bytes"
	"cmp"
	"encoding/json"
	"strings"

	"github.com/tape-dev/tape/internal/rawjson"
)

// Calls returns the calls of a tool_call entry's payload: the JSON objects
// of its "calls" array, in order. Anything else in the array is dropped,
// and a payload without such an array has no calls.
func Calls(payload json.RawMessage) []json.RawMessage {
	items, _ := arrayMember(payload, "calls")
	var calls []json.RawMessage
	for _, c := range items {
		if isObject(c) {
			calls = append(calls, bytes.TrimSpace(c))
		}
	}
	return calls
}

// Results returns the items of a tool_result entry's "results" array, and
// false when the payload has no such array.
func Results(payload json.RawMessage) ([]json.RawMessage, bool) {
	return arrayMember(payload, "results")
}

// arrayMember is the items of the array that is member name of the object
// payload, read as encoding/json reads it into a struct field of that
// name: the last member whose key is name ignoring case; false when there
// is none, it is null, or one of them is not an array.
//
// payload must be valid JSON, as every entry's is (log.ParseEntry checks
// it): it is read with rawjson, which skips over the values, rather than
// encoding/json, which checked and scanned every tool output once more
// for each reader (a sixth of an HTML export of 10,000 entries).
// FuzzArrayMember holds it to encoding/json.
func arrayMember(payload json.RawMessage, name string) ([]json.RawMessage, bool) {
	var value []byte
	bad := false
	rawjson.ObjectMembers(payload, func(key, v []byte) {
		if !keyIs(key, name) {
			return
		}
		value = v
		bad = bad || v[0] != '[' && string(v) != "null"
	})
	if bad || len(value) == 0 || value[0] != '[' {
		return nil, false
	}
	items := []json.RawMessage{}
	rawjson.ArrayItems(value, func(item []byte) { items = append(items, item) })
	return items, true
}

// keyIs reports whether an object's key, as written between its quotes,
// names the field name as encoding/json matches them: ignoring case.
func keyIs(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return bytes.EqualFold(key, []byte(name))
	}
	s, ok := rawjson.String([]byte(`"` + string(key) + `"`))
	return ok && strings.EqualFold(s, name)
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
