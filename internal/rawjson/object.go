package rawjson

import (
	"encoding/json"
	"strconv"
)

// Object writes a JSON object member by member, in the order they are
// added: the payloads and metas of the entries an import makes from every
// line. Keys and strings are escaped by AppendString; raw members are
// copied as they are.
//
// It buys a tenth of an import's time: the importer built them through
// maps and encoding/json, which scans every raw member (a tool's output,
// tens of KB) again to compact it. BenchmarkObject (medians of 6): a tool
// result's payload around a 10 KB output in 12 µs, against 40 µs for
// encoding/json's Encoder of the same maps (and BenchmarkImportClaude in
// importer). It depends on the raw members being valid JSON, as parts of
// a line that encoding/json decoded are, and on the caller adding each key
// once. FuzzObject holds it to encoding/json, and the importer's converter
// tests compare what both make.
type Object struct{ b []byte }

// NewObject starts an empty object.
func NewObject() *Object { return &Object{b: append(make([]byte, 0, 256), '{')} }

// NewObjectSize starts an empty object with room for about n bytes: one
// that holds a long text, grown once rather than doubled to its size.
func NewObjectSize(n int) *Object { return &Object{b: append(make([]byte, 0, max(n, 16)), '{')} }

func (o *Object) key(k string) {
	if len(o.b) > 1 {
		o.b = append(o.b, ',')
	}
	o.b = append(AppendString(o.b, k), ':')
}

// Str adds a string member.
func (o *Object) Str(k, v string) *Object {
	o.key(k)
	o.b = AppendString(o.b, v)
	return o
}

// StrIf adds a string member unless v is empty.
func (o *Object) StrIf(k, v string) *Object {
	if v != "" {
		o.Str(k, v)
	}
	return o
}

// Raw adds a member whose value is JSON text; empty text is null.
func (o *Object) Raw(k string, v []byte) *Object {
	o.key(k)
	if len(v) == 0 {
		v = []byte("null")
	}
	o.b = append(o.b, v...)
	return o
}

// Int adds an integer member.
func (o *Object) Int(k string, v int64) *Object {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
	return o
}

// True adds a member whose value is true.
func (o *Object) True(k string) *Object {
	o.key(k)
	o.b = append(o.b, "true"...)
	return o
}

// Done ends the object and returns its text; the Object is not to be used
// after.
func (o *Object) Done() json.RawMessage { return append(o.b, '}') }

// Array is the JSON text of an array of the values given, each JSON text.
func Array(values ...[]byte) []byte {
	b := []byte{'['}
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return append(b, ']')
}
