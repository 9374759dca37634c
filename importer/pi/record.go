package pi

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/tape-dev/tape/internal/rawjson"
)

// object is a JSON object's members, as written: a line's record, or a
// record's message. Its values are valid JSON (the line was checked
// whole), so that rawjson's trusting readers walk them.
type object []rawjson.Member

// members splits the JSON object raw (valid JSON) into its members.
func members(raw []byte) object {
	o := make(object, 0, 8)
	rawjson.ObjectMembers(raw, func(key, value []byte) {
		o = append(o, rawjson.Member{Key: key, Value: value})
	})
	return o
}

// raw is the value of the last member named key (as encoding/json keeps
// the last of repeated names), nil when there is none.
func (o object) raw(key string) []byte {
	v, _ := rawjson.Lookup(o, key)
	return v
}

// str is the member key when it is a string.
func (o object) str(key string) (string, bool) {
	v := o.raw(key)
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return rawjson.String(v)
}

// isTrue reports whether the member key is true.
func (o object) isTrue(key string) bool { return string(o.raw(key)) == "true" }

// has reports whether the member key is there, and not null.
func (o object) has(key string) bool {
	v := o.raw(key)
	return len(v) > 0 && string(v) != "null"
}

// count is the member key as a count of tokens: a whole number from 0
// (anything else counts 0, as ccusage reads it).
func (o object) count(key string) int64 {
	v := o.raw(key)
	if len(v) == 0 || v[0] < '0' || v[0] > '9' {
		return 0
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(string(v), 64); err == nil && f >= 0 && f < 1<<62 {
		return int64(f)
	}
	return 0
}

// rest is the object without the members named in skip (which are read
// elsewhere), compact; nil when nothing is left.
func (o object) rest(skip ...string) json.RawMessage {
	var b []byte
	for _, m := range o {
		if slices.Contains(skip, string(m.Key)) {
			continue
		}
		if b == nil {
			b = append(make([]byte, 0, 64), '{')
		} else {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, m.Key...)
		b = append(b, '"', ':')
		b = rawjson.AppendCompact(b, m.Value)
	}
	if b == nil {
		return nil
	}
	return append(b, '}')
}

// whole is the object, compact.
func (o object) whole() json.RawMessage {
	if r := o.rest(); r != nil {
		return r
	}
	return json.RawMessage("{}")
}

// compact is raw (valid JSON) without white space between its tokens.
func compact(raw []byte) json.RawMessage {
	return rawjson.AppendCompact(make([]byte, 0, len(raw)), raw)
}
