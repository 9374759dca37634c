package openclaw

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// record is a transcript line as the mapping reads it: pi's session
// entry (or the header) by its envelope, and its other members raw. Its
// raw members are parts of the line, valid while the line is converted.
type record struct {
	Type       string
	ID, Parent string // id, parentId
	RawDate    []byte // timestamp as written: Timestamp is what source.RecordDate reads of it
	Timestamp  string
	badDate    []byte           // RawDate, when it is no date
	members    []rawjson.Member // the line's members, each key once (the last written), in the line's order
	hasType    bool             // type is a string
	mismatch   bool             // id or parentId is there and not a string (or null)
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
	for i := range r.members {
		m := &r.members[i]
		m.Value = source.Trim(m.Value)
		r.read(string(m.Key), m.Value)
	}
	return r, nil
}

// read takes one member of the envelope into r.
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

// member is the value of the record's member key (nil when absent).
func (r record) member(key string) []byte {
	v, _ := rawjson.Lookup(r.members, key)
	return v
}

// envelope are the members that place an entry (its type, id, parent and
// date) rather than say what it holds: what an event that keeps a record
// leaves out (docs/IMPORT.md).
var envelope = map[string]bool{"type": true, "id": true, "parentId": true, "timestamp": true}

// withoutEnvelope is the record's members but the envelope's, as a JSON
// object.
func (r record) withoutEnvelope() []byte {
	return source.MembersObject(r.members, func(k string) bool { return envelope[k] })
}

// whole is the record, every member of it, as a JSON object.
func (r record) whole() []byte { return source.MembersObject(r.members, nil) }

// fields are the places the members of an object the mapping reads go:
// strings, booleans, and raw values of any type, by key.
type fields struct {
	str  map[string]*string
	raw  map[string]*[]byte
	flag map[string]*bool
}

// objectKey is a key of an object as ObjectMembers gives it (escapes and
// all), decoded.
func objectKey(k []byte) string { return string(source.DecodeKey(k)) }

// read reads the members of the object v into f's places. ok is false
// when v is not an object, or a string or boolean member is of another
// type (null is absent); rest are the members f does not name, in order,
// each key once (the last written), decoded.
func (f fields) read(v []byte) (rest []rawjson.Member, ok bool) {
	if len(v) == 0 || v[0] != '{' {
		return nil, false
	}
	ok = true
	var all []rawjson.Member
	rawjson.ObjectMembers(v, func(key, value []byte) {
		all = append(all, rawjson.Member{Key: []byte(objectKey(key)), Value: source.Trim(value)})
	})
	for _, m := range source.LastOfEach(all) {
		k, val := string(m.Key), m.Value
		null := string(val) == "null"
		if p, found := f.str[k]; found {
			s, isString := source.StringValue(val)
			ok = ok && (isString || null)
			*p = s
			continue
		}
		if p, found := f.flag[k]; found {
			*p = string(val) == "true"
			ok = ok && (null || string(val) == "true" || string(val) == "false")
			continue
		}
		if p, found := f.raw[k]; found {
			if !null {
				*p = val
			}
			continue
		}
		rest = append(rest, m)
	}
	return rest, ok
}

// withExtra adds members, the members of a record or a part the mapping
// does not read, to o as "extra": an object of them as written, so that
// none is lost and none takes the place of a key o has.
func withExtra(o *rawjson.Object, members []rawjson.Member) *rawjson.Object {
	if len(members) > 0 {
		o.Raw("extra", source.MembersObject(members, nil))
	}
	return o
}
