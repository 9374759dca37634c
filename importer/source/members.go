package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/tape-dev/tape/internal/rawjson"
)

// LineMembers reads the members of a transcript line that should be a
// JSON object, in the line's order, each key once, where it was last
// written (encoding/json keeps the last of repeated names). One pass
// checks and splits the line (rawjson.SplitObject); the lines it leaves
// go to encoding/json, which decides whether they are JSON, and objects:
// the error is the bad line's reason, worded as every source words it.
// Invalid UTF-8 in a string is read as encoding/json reads it, as U+FFFD.
// buf is reused for the members when it has room.
func LineMembers(line []byte, buf []rawjson.Member) ([]rawjson.Member, error) {
	if !utf8.Valid(line) {
		line = bytes.ToValidUTF8(line, []byte("\uFFFD"))
	}
	members, ok := rawjson.SplitObject(line, buf[:0])
	if !ok {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			if IsTypeError(err) {
				return nil, errors.New("not a JSON object")
			}
			return nil, fmt.Errorf("not a JSON record: %v", JSONReason(err))
		}
		if m == nil {
			return nil, errors.New("not a JSON object") // null
		}
		members = members[:0]
		for _, k := range slices.Sorted(maps.Keys(m)) {
			members = append(members, rawjson.Member{Key: []byte(k), Value: m[k]})
		}
		return members, nil // a map holds each key once
	}
	return LastOfEach(members), nil
}

// LastOfEach is members with each key once, where it was last written, in
// the line's order: members itself when no key is repeated, as agents
// never repeat one.
func LastOfEach(members []rawjson.Member) []rawjson.Member {
	repeated := false
	for i := 1; i < len(members) && !repeated; i++ {
		_, repeated = rawjson.Lookup(members[:i], string(members[i].Key))
	}
	if !repeated {
		return members
	}
	out := members[:0:0]
	for i, m := range members {
		if _, later := rawjson.Lookup(members[i+1:], string(m.Key)); !later {
			out = append(out, m)
		}
	}
	return out
}

// StringValue is the text of a JSON string value of a line LineMembers
// checked; ok is false for any other value.
func StringValue(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return rawjson.String(v)
}

// MembersObject is members as a compact JSON object, but those whose key
// skip reports (nil skips none): what an event keeps of a record whose
// envelope its entry's id, date and meta say already.
func MembersObject(members []rawjson.Member, skip func(key string) bool) json.RawMessage {
	o := rawjson.NewObject()
	for _, m := range members {
		if skip == nil || !skip(string(m.Key)) {
			o.Raw(string(m.Key), rawjson.AppendCompact(nil, m.Value))
		}
	}
	return o.Done()
}

// ObjectOf is the members of the JSON object v (a value of a line
// LineMembers checked), each key decoded and once, where it was last
// written, as encoding/json reads an object; nil when v is not an object.
func ObjectOf(v []byte) []rawjson.Member {
	v = Trim(v)
	if !IsObject(v) {
		return nil
	}
	all := make([]rawjson.Member, 0, 8)
	rawjson.ObjectMembers(v, func(key, value []byte) {
		all = append(all, rawjson.Member{Key: DecodeKey(key), Value: Trim(value)})
	})
	return LastOfEach(all)
}

// DecodeKey is a key of an object as rawjson.ObjectMembers gives it
// (escapes and all), decoded.
func DecodeKey(k []byte) []byte {
	if bytes.IndexByte(k, '\\') < 0 {
		return k
	}
	s, _ := rawjson.String(append(append([]byte{'"'}, k...), '"'))
	return []byte(s)
}
