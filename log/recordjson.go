package log

import (
	"strconv"

	"github.com/tape-dev/tape/internal/rawjson"
)

// AppendJSON appends the record as one line of JSON, and the newline:
// byte for byte what an encoding/json Encoder with SetEscapeHTML(false)
// writes of it (FuzzRecordJSON holds it to that).
//
// It exists because encoding/json re-validates and compacts a payload
// byte by byte through its scanner, which was most of the time `tape
// search --json` spent printing twenty hits with long tool output. A
// record's Payload and Meta must be valid JSON, as they are in every
// Entry read from a tape (ParseEntry validates the line); they are
// copied with the white space between tokens left out.
func (r Record) AppendJSON(dst []byte) []byte {
	dst = r.appendFields(append(dst, '{'))
	return append(dst, '}', '\n')
}

// appendFields appends the record's fields, without braces, for types that
// add fields after them (AppendJSONFields).
func (r Record) appendFields(dst []byte) []byte {
	dst = appendField(dst, `"id":`, r.ID)
	dst = appendField(dst, `,"tape":`, r.Tape)
	dst = appendField(dst, `,"anchor":`, r.Anchor)
	dst = strconv.AppendInt(append(dst, `,"anchor_seq":`...), r.AnchorSeq, 10)
	dst = appendField(dst, `,"kind":`, r.Kind)
	if r.Date == nil {
		dst = append(dst, `,"date":null`...)
	} else {
		dst = appendField(dst, `,"date":`, *r.Date)
	}
	dst = rawjson.AppendCompact(append(dst, `,"payload":`...), r.Payload)
	dst = rawjson.AppendCompact(append(dst, `,"meta":`...), r.Meta)
	dst = appendField(dst, `,"file":`, r.File)
	return strconv.AppendInt(append(dst, `,"line":`...), int64(r.Line), 10)
}

// AppendJSONFields appends the record as a JSON object that goes on with
// more fields: '{' and the record's fields, for the caller to add
// `,"name":value` pairs (rawjson.AppendString, rawjson.AppendFloat) and '}'.
func (r Record) AppendJSONFields(dst []byte) []byte {
	return r.appendFields(append(dst, '{'))
}

func appendField(dst []byte, name, s string) []byte {
	return rawjson.AppendString(append(dst, name...), s)
}
