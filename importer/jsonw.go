package importer

import (
	"encoding/json"
	"strconv"

	tapelog "github.com/tape-dev/tape/log"
)

// object writes a JSON object member by member: the payloads and metas of
// the entries an import makes from every line. Strings are escaped as
// encoding/json escapes them (tapelog.AppendJSONString); raw members are
// copied as they are, and must be valid JSON: parts of a line that
// encoding/json decoded.
//
// It exists because mustJSON built them through maps and encoding/json,
// which scans every raw member (a tool's output, tens of KB) again to
// compact it; an import spent a tenth of its time there
// (BenchmarkImportClaude). The converters' tests compare what both make.
type object struct{ b []byte }

func newObject() *object { return &object{b: append(make([]byte, 0, 256), '{')} }

func (o *object) key(k string) {
	if len(o.b) > 1 {
		o.b = append(o.b, ',')
	}
	o.b = append(tapelog.AppendJSONString(o.b, k), ':')
}

// str adds a string member.
func (o *object) str(k, v string) *object {
	o.key(k)
	o.b = tapelog.AppendJSONString(o.b, v)
	return o
}

// strIf adds a string member unless v is empty.
func (o *object) strIf(k, v string) *object {
	if v != "" {
		o.str(k, v)
	}
	return o
}

// raw adds a member whose value is JSON text; empty text is null.
func (o *object) raw(k string, v []byte) *object {
	o.key(k)
	if len(v) == 0 {
		v = []byte("null")
	}
	o.b = append(o.b, v...)
	return o
}

func (o *object) num(k string, v int64) *object {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
	return o
}

func (o *object) flag(k string) *object {
	o.key(k)
	o.b = append(o.b, "true"...)
	return o
}

// done ends the object.
func (o *object) done() json.RawMessage { return append(o.b, '}') }

// array is JSON text of the values given, each JSON text.
func array(values ...[]byte) []byte {
	b := []byte{'['}
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return append(b, ']')
}
