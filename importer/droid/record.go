package droid

import (
	"slices"

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

// decode reads a line's members (source.LineMembers, which checks the
// line) and the envelope's from them.
func (c *converter) decode(line []byte) (record, error) {
	members, err := source.LineMembers(line, c.members)
	if err != nil {
		return record{}, err
	}
	c.members = members
	r := record{members: members}
	for _, mb := range r.members {
		r.read(string(mb.Key), source.Trim(mb.Value))
	}
	return r, nil
}

// read takes one envelope member of the line into r.
func (r *record) read(key string, v []byte) {
	str := func(dst *string) {
		if string(v) == "null" {
			return
		}
		s, ok := source.StringValue(v)
		r.mismatch = r.mismatch || !ok
		*dst = s
	}
	switch key {
	case "type":
		r.Type, r.hasType = source.StringValue(v)
	case "id":
		str(&r.ID)
	case "parentId":
		str(&r.Parent)
	case "timestamp":
		r.RawDate = v
	}
}

// envelope are the members that place a record rather than say what it
// holds: what an event that keeps a record leaves out, for its entry's
// id, date and meta say them (docs/IMPORT.md).
var envelope = map[string]bool{"type": true, "id": true, "timestamp": true, "parentId": true}

// withoutEnvelope is the record's members but the envelope's, and those
// named in also, as a JSON object.
func (r record) withoutEnvelope(also ...string) []byte {
	return source.MembersObject(r.members, func(k string) bool { return envelope[k] || slices.Contains(also, k) })
}

// whole is the record, every member of it, as a JSON object.
func (r record) whole() []byte { return source.MembersObject(r.members, nil) }

// member is the value of the record's member key (nil when absent).
func (r record) member(key string) []byte {
	v, _ := rawjson.Lookup(r.members, key)
	return source.Trim(v)
}

// str is the record's member key when it is a string.
func (r record) str(key string) (string, bool) { return source.StringValue(r.member(key)) }
