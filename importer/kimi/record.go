package kimi

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// record is a transcript line as the mapping reads it. Its raw values are
// parts of the line, valid while the line is converted.
type record struct {
	members []rawjson.Member // each key once (the last written), in the line's order
	typ     string           // "type", when a string: Kimi Code's record type, or "metadata"
	hasType bool
	message []byte // "message", when an object: Kimi CLI's {"type", "payload"}
	date    string // the date of its entries (dateOf)
	badDate []byte // its timestamp as written, when it is not a date
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
		switch string(m.Key) {
		case "type":
			r.typ, r.hasType = source.StringValue(m.Value)
		case "message":
			if isObject(m.Value) {
				r.message = m.Value
			}
		}
	}
	return r, nil
}

// dateKeys are the members a record's date is read from, with the unit
// of each: Kimi CLI's timestamp in seconds (Python's time.time()), Kimi
// Code's time in milliseconds, and its metadata line's created_at.
var dateKeys = []struct {
	key  string
	unit float64 // milliseconds in one of its units
}{{"timestamp", 1000}, {"time", 1}, {"created_at", 1}}

// dateOf is the date of a record's entries: the first of dateKeys it has,
// when that is a number; else last, the date of the line before (none for
// the first line), so that the record sorts where it was written. A
// timestamp that is there and is not a date is no reason to lose the
// record: bad says why, for a warning, and raw is the member as written.
//
// A date is in milliseconds, truncated as ccusage truncates it (a
// timestamp of 1767225600.9999 is 1767225600999 ms), so that a run's day
// is ccusage's day.
func dateOf(r record, last string) (date string, raw []byte, bad string) {
	for _, k := range dateKeys {
		v, ok := rawjson.Lookup(r.members, k.key)
		if !ok || string(v) == "null" {
			continue
		}
		if ms, ok := millis(v, k.unit); ok {
			return formatMillis(ms), nil, ""
		}
		bad = fmt.Sprintf("%q %s is not a date", k.key, shortJSON(v, 64))
		if last == "" {
			return last, v, bad + "; imported without a date"
		}
		return last, v, bad + "; imported with the date of the line before, " + last
	}
	return last, nil, ""
}

// formatMillis is ms since 1970 as time.Time's Format with the layout
// "2006-01-02T15:04:05.000Z" writes it, in UTC, without its parse of the
// layout (a tenth of a Kimi CLI line's conversion).
func formatMillis(ms int64) string {
	t := time.UnixMilli(ms).UTC()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	b := make([]byte, 0, 24)
	pad := func(n, width int) {
		for w := width - 1; w >= 0; w-- {
			div := 1
			for range w {
				div *= 10
			}
			b = append(b, byte('0'+n/div%10))
		}
	}
	pad(y, 4)
	b = append(b, '-')
	pad(int(mo), 2)
	b = append(b, '-')
	pad(d, 2)
	b = append(b, 'T')
	pad(h, 2)
	b = append(b, ':')
	pad(mi, 2)
	b = append(b, ':')
	pad(s, 2)
	b = append(b, '.')
	pad(int(ms%1000), 3)
	return string(append(b, 'Z'))
}

// maxMillis is the last millisecond of the year 9999: the dates a tape
// takes.
const maxMillis = 253402300799999

// millis reads a JSON number in units of unit milliseconds as whole
// milliseconds since 1970; ok is false for any other value, and for a
// date before 1970 or after 9999.
func millis(v []byte, unit float64) (int64, bool) {
	if len(v) == 0 || v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0, false
	}
	ms := math.Trunc(f * unit)
	if ms < 0 || ms > maxMillis {
		return 0, false
	}
	return int64(ms), true
}

// shortJSON is a JSON value from a transcript as a message shows it, cut
// to about n bytes.
func shortJSON(raw []byte, n int) string {
	s := string(rawjson.AppendCompact(nil, raw))
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

func isObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }

func isArray(v []byte) bool { return len(v) > 0 && v[0] == '[' }

func isNull(v []byte) bool { return v == nil || string(v) == "null" }

func isBool(v []byte) bool { return string(v) == "true" || string(v) == "false" }

// fields are an object's members, each key once (the last written), with
// their values trimmed.
type fields []rawjson.Member

// fieldsOf reads the members of the object v (nil for a value that is not
// one).
func fieldsOf(v []byte) fields { return fields(source.ObjectOf(v)) }

// get is the value of the member key (nil when absent).
func (f fields) get(key string) []byte {
	v, _ := rawjson.Lookup(f, key)
	return v
}

// str is the member key when it is a string; ok is false when it is
// absent, null, or of another type.
func (f fields) str(key string) (string, bool) { return source.StringValue(f.get(key)) }

// only reports whether every member's key is one of keys.
func (f fields) only(keys ...string) bool {
	for _, m := range f {
		if !slices.Contains(keys, string(m.Key)) {
			return false
		}
	}
	return true
}

// without is the object of f's members but those named keys.
func (f fields) without(keys ...string) []byte {
	return source.MembersObject(f, func(k string) bool { return slices.Contains(keys, k) })
}

// rest are f's members but those named keys (nil for none).
func (f fields) rest(keys ...string) fields {
	var out fields
	for _, m := range f {
		if !slices.Contains(keys, string(m.Key)) {
			out = append(out, m)
		}
	}
	return out
}

// object is f as a JSON object.
func (f fields) object() []byte { return f.without() }
