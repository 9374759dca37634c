package rawjson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// DecodeObject decodes a JSON object, an entry's payload, into the map
// encoding/json's Unmarshal makes of it: objects as map[string]any (the
// last of repeated names wins), arrays as []any, numbers as float64. Its
// error is encoding/json's.
//
// It buys a tenth of a rebuild's CPU time: a rebuild decodes every payload
// to find its search text and facts, and encoding/json's Unmarshal into a
// map checks the text in one pass and decodes it by reflection in another.
// BenchmarkDecodeObject (medians of 6): a short message in 1.3 µs against
// encoding/json's 3.1 µs, a 10 KB tool output in 34 µs against 64 µs.
//
// It decodes in one pass what is usual and leaves the rest to
// encoding/json: escapes of surrogate pairs, invalid UTF-8 (which
// encoding/json replaces), numbers out of float64's range, nesting deeper
// than maxDecodeDepth, and anything that is not valid JSON or not an
// object. So it depends on nothing about b: what it does not decode,
// encoding/json decides. FuzzDecodeObject holds it to encoding/json.
func DecodeObject(b []byte) (map[string]any, error) {
	if m, ok := decodeObjectFast(b); ok {
		return m, nil
	}
	var m map[string]any
	err := json.Unmarshal(b, &m)
	return m, err
}

// DecodeValue is DecodeObject for any JSON value: a JSON text that a
// string of a payload holds (a tool call's arguments). The fast path
// leaves text that ends in white space to encoding/json: trim it first.
func DecodeValue(b []byte) (any, error) {
	if v, ok := decodeValueFast(b); ok {
		return v, nil
	}
	var v any
	err := json.Unmarshal(b, &v)
	return v, err
}

// decodeValueFast is DecodeValue's own path: ok is false when it leaves
// the text to encoding/json.
func decodeValueFast(b []byte) (any, bool) {
	d := decoder{b: b}
	v, ok := d.value(0)
	return v, ok && d.i == len(d.b)
}

// decodeObjectFast is DecodeObject's own path: ok is false when it
// leaves the text to encoding/json.
func decodeObjectFast(b []byte) (map[string]any, bool) {
	d := decoder{b: b}
	d.space()
	if d.i >= len(b) || b[d.i] != '{' {
		return nil, false
	}
	m, ok := d.object(0)
	if d.space(); !ok || d.i != len(b) {
		return nil, false
	}
	return m, true
}

// maxDecodeDepth is the nesting the decoder follows before it leaves the
// text to encoding/json.
const maxDecodeDepth = 64

// decoder decodes JSON text at b[i:] into the values encoding/json's
// Unmarshal into an any makes.
type decoder struct {
	b []byte
	i int
}

func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// value decodes the value at d.i, after white space.
func (d *decoder) value(depth int) (any, bool) {
	d.space()
	if d.i >= len(d.b) {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		m, ok := d.object(depth + 1)
		return m, ok
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.word("true")
	case c == 'f':
		return false, d.word("false")
	case c == 'n':
		return nil, d.word("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, false
}

func (d *decoder) word(w string) bool {
	if len(d.b)-d.i < len(w) || string(d.b[d.i:d.i+len(w)]) != w {
		return false
	}
	d.i += len(w)
	return true
}

// object decodes an object whose '{' is at d.i.
func (d *decoder) object(depth int) (map[string]any, bool) {
	if depth > maxDecodeDepth {
		return nil, false
	}
	d.i++
	m := map[string]any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		m[k] = v
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, true
		default:
			return nil, false
		}
	}
}

// array decodes an array whose '[' is at d.i; an empty one is an empty,
// not a nil, slice, as encoding/json makes it.
func (d *decoder) array(depth int) ([]any, bool) {
	if depth > maxDecodeDepth {
		return nil, false
	}
	d.i++
	a := []any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// str decodes a string whose opening quote is at d.i.
func (d *decoder) str() (string, bool) {
	d.i++
	start := d.i
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if !utf8.Valid(s) {
				return "", false
			}
			return string(s), true
		case c == '\\':
			return d.escapedStr(start)
		case c < 0x20:
			return "", false
		default:
			d.i++
		}
	}
	return "", false
}

// escapedStr decodes the rest of a string that has escapes, from start,
// just after its opening quote; d.i is at its first backslash.
//
// It finds the closing quote first: no escape decodes to more bytes than
// it takes, so the string is written into one buffer of the raw length,
// in runs between backslashes. Appending byte by byte to a buffer that
// doubled, then copying it into a string, was three copies of every
// tool output with a newline in it, and the page faults of fresh memory
// for each.
func (d *decoder) escapedStr(start int) (string, bool) {
	end, ok := d.stringEnd()
	if !ok {
		return "", false
	}
	var b strings.Builder
	b.Grow(end - start)
	b.Write(d.b[start:d.i])
	for d.i < end {
		if d.b[d.i] != '\\' {
			run := d.b[d.i:end]
			if k := bytes.IndexByte(run, '\\'); k >= 0 {
				run = run[:k]
			}
			b.Write(run)
			d.i += len(run)
			continue
		}
		e := d.b[d.i+1] // stringEnd saw a byte after every backslash
		d.i += 2
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := d.hex4(d.i)
			if !ok {
				return "", false
			}
			d.i += 4
			if utf16.IsSurrogate(r) {
				// A pair, as Python's json.dumps writes every character
				// beyond the BMP (an emoji); anything else, encoding/json's.
				low, ok := d.hex4(d.i + 2)
				r = utf16.DecodeRune(r, low)
				if !ok || d.b[d.i] != '\\' || d.b[d.i+1] != 'u' || r == utf8.RuneError {
					return "", false
				}
				d.i += 6
			}
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	d.i = end + 1
	if !utf8.ValidString(b.String()) {
		return "", false
	}
	return b.String(), true
}

// stringEnd finds the closing quote of the string d.i is in, skipping
// the byte after each backslash; ok is false if there is none, or if a
// control character comes first (JSON wants them escaped).
func (d *decoder) stringEnd() (int, bool) {
	for i := d.i; i < len(d.b); i++ {
		switch c := d.b[i]; {
		case c == '"':
			return i, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			if i+1 >= len(d.b) || d.b[i+1] < 0x20 {
				return 0, false
			}
			i++
		}
	}
	return 0, false
}

// hex4 reads the four hex digits at i of a \u escape.
func (d *decoder) hex4(i int) (rune, bool) {
	if i < 0 || len(d.b)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number decodes -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? as a
// float64.
func (d *decoder) number() (any, bool) {
	start := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case d.digits() == 0:
		return nil, false
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if d.digits() == 0 {
			return nil, false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if d.digits() == 0 {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(string(d.b[start:d.i]), 64)
	if err != nil { // out of range: encoding/json fails the whole text
		return nil, false
	}
	return f, true
}

func (d *decoder) digits() int {
	n := 0
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
		n++
	}
	return n
}
