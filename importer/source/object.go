package source

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/tape-dev/tape/internal/rawjson"
)

// Object is a JSON object's members, each key once (LineMembers,
// ObjectOf), read by name: what a converter reads a record or a row
// through.
type Object []rawjson.Member

// Raw is the value of the member key as written; nil when there is none.
func (o Object) Raw(key string) []byte {
	v, _ := rawjson.Lookup(o, key)
	return v
}

// Has reports whether the object has a member key.
func (o Object) Has(key string) bool {
	_, ok := rawjson.Lookup(o, key)
	return ok
}

// Str is the member key when it is a string, else "".
func (o Object) Str(key string) string {
	s, _ := StringValue(o.Raw(key))
	return s
}

// Int is the member key when it is an integer written as one, else 0.
func (o Object) Int(key string) int64 {
	n, _ := strconv.ParseInt(string(o.Raw(key)), 10, 64)
	return n
}

// True reports whether the member key is true.
func (o Object) True(key string) bool { return string(o.Raw(key)) == "true" }

// Sub is the member key's members when it is an object, else nil.
func (o Object) Sub(key string) Object { return Object(ObjectOf(o.Raw(key))) }

// Without is the object, compact, but the members whose keys are listed.
func (o Object) Without(keys ...string) json.RawMessage {
	return MembersObject(o, func(k string) bool { return slices.Contains(keys, k) })
}
