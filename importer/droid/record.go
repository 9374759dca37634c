package droid

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// record is the part of a transcript line the mapping reads: its
// envelope ({"type", "id", "timestamp", "parentId"}) and its members. Its
// raw members are parts of the line, valid while the line is converted.
type record struct {
	Type      string
	hasType   bool   // type is a string
	ID        string // id: the record's uuid
	Parent    string // parentId
	RawDate   []byte // timestamp as written: Timestamp is what source.RecordDate reads of it
	Timestamp string
	badDate   []byte           // RawDate, when it is no date
	members   []rawjson.Member // the line's members, each key once (the last written)
	mismatch  bool             // an envelope member of another type than Droid writes
}

// decode reads a line's members: in one pass that checks the line
// (rawjson.SplitObject), or with encoding/json the lines it leaves, which
// decides whether the line is JSON, and an object. Invalid UTF-8 in a
// string is read as encoding/json reads it, as U+FFFD.
func (c *converter) decode(line []byte) (record, error) {
	if !utf8.Valid(line) {
		line = bytes.ToValidUTF8(line, []byte("\uFFFD"))
	}
	members, ok := rawjson.SplitObject(line, c.members[:0])
	if !ok {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			if source.IsTypeError(err) {
				return record{}, errors.New("not a JSON object")
			}
			return record{}, fmt.Errorf("not a JSON record: %v", source.JSONReason(err))
		}
		if m == nil {
			return record{}, errors.New("not a JSON object") // null
		}
		members = members[:0]
		for _, k := range slices.Sorted(maps.Keys(m)) {
			members = append(members, rawjson.Member{Key: []byte(k), Value: m[k]})
		}
	}
	c.members = members
	r := record{members: lastOfEach(members)}
	for _, mb := range r.members {
		r.read(string(mb.Key), source.Trim(mb.Value))
	}
	return r, nil
}

// lastOfEach is members with each key once, where it was last written
// (encoding/json keeps the last of repeated names), in the line's order.
func lastOfEach(members []rawjson.Member) []rawjson.Member {
	for i, m := range members {
		if _, later := rawjson.Lookup(members[i+1:], string(m.Key)); later {
			return dropRepeated(members)
		}
	}
	return members // the usual line: no key twice, nothing to copy
}

func dropRepeated(members []rawjson.Member) []rawjson.Member {
	out := make([]rawjson.Member, 0, len(members))
	for i, m := range members {
		if _, later := rawjson.Lookup(members[i+1:], string(m.Key)); !later {
			out = append(out, m)
		}
	}
	return out
}

// read takes one envelope member of the line into r.
func (r *record) read(key string, v []byte) {
	str := func(dst *string) {
		if string(v) == "null" {
			return
		}
		s, ok := stringOf(v)
		r.mismatch = r.mismatch || !ok
		*dst = s
	}
	switch key {
	case "type":
		r.Type, r.hasType = stringOf(v)
	case "id":
		str(&r.ID)
	case "parentId":
		str(&r.Parent)
	case "timestamp":
		r.RawDate = v
	}
}

// stringOf is the text of a JSON string value (a member of a line that
// was checked); ok is false for any other value.
func stringOf(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return rawjson.String(v)
}

// envelope are the members that place a record rather than say what it
// holds: what an event that keeps a record leaves out, for its entry's
// id, date and meta say them (docs/IMPORT.md).
var envelope = map[string]bool{"type": true, "id": true, "timestamp": true, "parentId": true}

// withoutEnvelope is the record's members but the envelope's, and those
// named in also, as a JSON object.
func (r record) withoutEnvelope(also ...string) []byte {
	o := rawjson.NewObject()
	for _, m := range r.members {
		if k := string(m.Key); !envelope[k] && !slices.Contains(also, k) {
			o.Raw(k, rawjson.AppendCompact(nil, m.Value))
		}
	}
	return o.Done()
}

// whole is the record, every member of it, as a JSON object.
func (r record) whole() []byte {
	o := rawjson.NewObject()
	for _, m := range r.members {
		o.Raw(string(m.Key), rawjson.AppendCompact(nil, m.Value))
	}
	return o.Done()
}

// member is the value of the record's member key (nil when absent).
func (r record) member(key string) []byte {
	v, _ := rawjson.Lookup(r.members, key)
	return source.Trim(v)
}

// str is the record's member key when it is a string.
func (r record) str(key string) (string, bool) { return stringOf(r.member(key)) }
