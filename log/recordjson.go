package log

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"
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
	dst = appendRaw(append(dst, `,"payload":`...), r.Payload)
	dst = appendRaw(append(dst, `,"meta":`...), r.Meta)
	dst = appendField(dst, `,"file":`, r.File)
	return strconv.AppendInt(append(dst, `,"line":`...), int64(r.Line), 10)
}

// AppendJSONFields appends the record as a JSON object that goes on with
// more fields: '{' and the record's fields, for the caller to add
// `,"name":value` pairs (AppendJSONString, AppendJSONFloat) and '}'.
func (r Record) AppendJSONFields(dst []byte) []byte {
	return r.appendFields(append(dst, '{'))
}

func appendField(dst []byte, name, s string) []byte {
	return AppendJSONString(append(dst, name...), s)
}

// appendRaw appends a JSON value without the white space between its
// tokens, as encoding/json writes a json.RawMessage; an empty one is
// null, as encoding/json writes a nil RawMessage.
func appendRaw(dst, raw []byte) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	for len(raw) > 0 {
		switch c := raw[0]; c {
		case ' ', '\t', '\n', '\r':
			raw = raw[1:]
		case '"':
			n := stringLen(raw)
			dst, raw = append(dst, raw[:n]...), raw[n:]
		default:
			dst, raw = append(dst, c), raw[1:]
		}
	}
	return dst
}

// stringLen is the length of the JSON string at the start of b, quotes
// included (all of b if it is not closed). A quote ends it unless an odd
// number of backslashes comes before it; looking for quotes alone, with
// bytes.IndexByte, skips long text many times faster than stepping
// through its escapes.
func stringLen(b []byte) int {
	for i := 1; i < len(b); {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			break
		}
		i += k
		slashes := 0
		for j := i - 1; j > 0 && b[j] == '\\'; j-- {
			slashes++
		}
		if slashes%2 == 0 {
			return i + 1
		}
		i++
	}
	return len(b)
}

// AppendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it with SetEscapeHTML(false): quotes, backslashes and control
// characters; invalid UTF-8 as U+FFFD; U+2028 and U+2029, which end a
// line in JavaScript.
func AppendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(append(dst, s[start:]...), '"')
}

// AppendJSONFloat appends f as encoding/json writes a float64: the
// shortest decimal that reads back as f, in exponent form below 1e-6 and
// from 1e21, with at least one exponent digit. NaN and the infinities,
// which JSON cannot hold and encoding/json refuses, are written as null.
func AppendJSONFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(dst) - start; n >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}
