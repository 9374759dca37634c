package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tape-dev/tape/internal/rawjson"
)

// Trim is raw without surrounding white space.
func Trim(raw json.RawMessage) json.RawMessage { return bytes.TrimSpace(raw) }

// OrNull is raw, or the JSON null when raw is empty (a member that was
// absent), so that an entry's payload is valid JSON.
func OrNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// IsObject reports whether a line's JSON text is an object.
func IsObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
}

// IsTypeError reports whether a line decoded as JSON but not into the
// shape a mapping reads: a JSON object it keeps whole, as an event.
func IsTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// JSONReason is a JSON error as a reader wants it, without Go's type
// names: the reason of a bad line.
func JSONReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%q is a JSON %s, not the %s expected", te.Field, te.Value, kindName(te.Type.Kind().String()))
	}
	return err.Error()
}

func kindName(k string) string {
	switch k {
	case "struct", "map":
		return "object"
	case "slice":
		return "array"
	}
	return k
}

// NamedData is the payload of an event that keeps a record or a part of
// one whole, {"data": data, "name": name}, as MustJSON writes it of a map
// (keys sorted, compact, HTML not escaped), without its reflection: data
// is valid JSON (a line that decoded, or a part of one), or empty for
// null.
func NamedData(name string, data []byte) json.RawMessage {
	b := make([]byte, 0, len(data)+len(name)+20)
	b = append(b, `{"data":`...)
	b = rawjson.AppendCompact(b, data)
	b = append(b, `,"name":`...)
	b = rawjson.AppendString(b, name)
	return append(b, '}')
}
