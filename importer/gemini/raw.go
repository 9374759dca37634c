package gemini

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// A line is checked once, by rawjson.SplitObject (encoding/json when that
// gives up: a key with an escape, invalid UTF-8, nesting past its depth),
// and its parts are read after that with rawjson's trusting walkers, which
// skip over values without checking them again: Gemini CLI writes a model
// message three times as it grows, each time with its calls' outputs, and
// decoding each part again with encoding/json ran at a third of the speed
// (BenchmarkConvert). Everything here depends on its input being valid
// JSON: a part of a line or document that was checked.

// field is a member of an object: its key, decoded, and its value's text.
type field struct {
	key   string
	value []byte
}

// fields are the members of a checked object, in order (a repeated key
// twice: the reader keeps the last).
func fields(raw []byte) []field {
	out := make([]field, 0, 12)
	rawjson.ObjectMembers(raw, func(key, value []byte) {
		k := string(key)
		if bytes.IndexByte(key, '\\') >= 0 {
			k, _ = rawjson.String(append(append([]byte{'"'}, key...), '"'))
		}
		out = append(out, field{k, value})
	})
	return out
}

// compact is a checked value without the white space between its tokens
// (rawjson.AppendCompact), in a slice of its size.
func compact(raw []byte) []byte { return rawjson.AppendCompact(make([]byte, 0, len(raw)), raw) }

// items are the items of a checked array; ok is false for any other
// value.
func items(raw []byte) (out [][]byte, ok bool) {
	raw = source.Trim(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	rawjson.ArrayItems(raw, func(item []byte) { out = append(out, item) })
	return out, true
}

// isObject reports whether a checked value is an object.
func isObject(raw []byte) bool {
	raw = source.Trim(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// absent reports whether a member is missing or null.
func absent(raw []byte) bool {
	raw = source.Trim(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// checkedFields splits a line into its members, checking it: SplitObject,
// or encoding/json where that gives up; err is encoding/json's word on a
// line that is no JSON, or no object. The line returned is the one the
// members are parts of.
func checkedFields(line []byte) ([]field, []byte, error) {
	if utf8.Valid(line) {
		if ms, ok := rawjson.SplitObject(line, nil); ok {
			out := make([]field, len(ms))
			for i, m := range ms {
				out[i] = field{string(m.Key), m.Value}
			}
			return out, line, nil
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, nil, err
	}
	// A line SplitObject would not take, and encoding/json did: its
	// members, each valid JSON, in the order written; invalid UTF-8 (in
	// its strings) as encoding/json reads it, U+FFFD.
	if !utf8.Valid(line) {
		line = []byte(strings.ToValidUTF8(string(line), "\uFFFD"))
	}
	return fields(line), line, nil
}

// recordOf reads a checked object's members into a record: each member
// the mapping reads, spelled as Gemini CLI spells it, the last of a
// repeated one.
func recordOf(fs []field) record {
	var r record
	for _, f := range fs {
		v := json.RawMessage(f.value)
		switch f.key {
		case "id":
			r.ID = v
		case "timestamp":
			r.Timestamp = v
		case "type":
			r.Type = v
		case "content":
			r.Content = v
		case "displayContent":
			r.DisplayContent = v
		case "toolCalls":
			r.ToolCalls = v
		case "thoughts":
			r.Thoughts = v
		case "tokens":
			r.Tokens = v
		case "model":
			r.Model = v
		case "sessionId":
			r.SessionID = v
		case "startTime":
			r.StartTime = v
		case "messages":
			r.Messages = v
		case "$set":
			r.Set = v
		case "$rewindTo":
			r.RewindTo = v
		}
	}
	return r
}

// number reads a checked JSON number; ok is false for any other value.
func number(raw []byte) (float64, bool) {
	raw = source.Trim(raw)
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return f, err == nil
}
