package log

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tape-dev/tape/internal/rawjson"
)

// LineError is a line of a tape file that cannot be read as an entry. It is
// not fatal: a reader reports it and goes on with the next line, so one bad
// line never hides the good lines around it.
type LineError struct {
	Path   string // the file, relative to the workspace
	Line   int    // 1-based; 0 when the whole file could not be read
	Offset int64  // byte offset of the line's start
	Reason string
	Err    error // the I/O error behind it, if any
}

// Unwrap returns the I/O error behind a file that could not be read.
func (e *LineError) Unwrap() error { return e.Err }

// IOReason is what an I/O error says without the path it names: a
// LineError's Path names the file already, and "l.jsonl: cannot open:
// statat tapes/main/anchors/001_start/l.jsonl: path escapes from parent"
// said it twice (issue 29).
func IOReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}

func (e *LineError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Reason)
	}
	return fmt.Sprintf("%s:%d: %s (byte offset %d)", e.Path, e.Line, e.Reason, e.Offset)
}

// parsed is what ParseLine finds in one line: the envelope fields, before the
// reader adds the position.
type parsed struct {
	id      string // "" when the line has none
	kind    string
	payload json.RawMessage
	meta    json.RawMessage
	date    string
	time    time.Time // zero when date is absent or unparseable
}

// ErrBlankLine is returned by ParseEntry for a line of only white space,
// which readers skip.
var ErrBlankLine = errors.New("log: blank line")

// ErrTornLine is returned by ParseEntry for a torn write that a later
// writer ended with TornMark, which readers skip too: it wraps
// ErrBlankLine, so that a caller that skips blank lines skips it.
var ErrTornLine = fmt.Errorf("%w: a torn write, ended with %s by a later writer", ErrBlankLine, TornMark)

// TornMark ends a torn line. A writer that finds, holding the file's lock,
// that the file does not end in a newline writes TornMark and a newline
// before its own line (docs/FORMAT.md, section 6): the last line was cut
// short by a writer that died, or whose disk filled, mid-line. Readers read
// a line that ends with TornMark as what comes before the mark: an entry
// if that is one (a writer left a whole line without its newline); a torn
// write if it is not complete JSON, which they skip without reporting it,
// its bytes left in the file; else a bad line. No line of JSON ends with
// '>', so the mark is never part of one.
const TornMark = "<torn>"

// cutTornMark returns line without TornMark at its end, and whether it had
// one.
func cutTornMark(line []byte) ([]byte, bool) {
	return bytes.CutSuffix(line, []byte(TornMark))
}

// tornWrite reports whether a line that ended with TornMark, data before
// the mark, which is no entry, is a torn write: not complete JSON, a line
// cut short. Complete JSON that is no entry is a bad line, as it would be
// with its newline.
func tornWrite(data []byte) bool {
	return !json.Valid(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
}

// ParseEntry reads one line (a trailing newline is allowed) as an entry to
// append: its kind, payload, meta, and its id and date when it has them. It
// applies the reader's lenient rules, so `tape append --jsonl` takes exactly
// the lines a tape file may hold: a line ended with TornMark is read
// without the mark, and is ErrTornLine when that is a torn write. The
// position is left empty.
func ParseEntry(line []byte) (Entry, error) {
	line, marked := cutTornMark(trimNewline(line))
	if isBlank(line) {
		return Entry{}, ErrBlankLine
	}
	p, reason := parseLine(line)
	if reason != "" && marked && tornWrite(line) {
		return Entry{}, ErrTornLine
	}
	if reason != "" {
		return Entry{}, fmt.Errorf("%w: %s", ErrInvalid, reason)
	}
	return Entry{ID: p.id, Kind: p.kind, Payload: p.payload, Meta: p.meta, Date: p.date}, nil
}

// parseLine reads one line (without its newline) as an entry, leniently, as
// agents write by hand:
//
//   - an envelope {"id", "kind", "payload", "meta", "date"} where only kind is
//     required; id may be a string or a number;
//   - a bare chat message, an object with a string "role" and no "kind", is a
//     message entry whose payload is the whole object.
//
// The reason it returns for a line it cannot read is one short sentence for
// a LineError.
func parseLine(line []byte) (parsed, string) {
	line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // a byte-order mark, as some editors write
	if !utf8.Valid(line) {
		return parsed{}, "line is not valid UTF-8"
	}
	var buf [8]rawjson.Member
	members, ok := rawjson.SplitObject(line, buf[:0])
	if !ok {
		return parseLineSlow(line)
	}
	var p parsed
	rawKind, hasKind := rawjson.Lookup(members, "kind")
	if !hasKind {
		raw, _ := rawjson.Lookup(members, "role")
		if role, err := decodeString(raw); err != nil || role == "" {
			return parsed{}, noKind
		}
		p.kind = KindMessage
		p.payload = bytes.Clone(bytes.TrimSpace(line)) // the reader reuses line's buffer
		return p, ""
	}
	kind, err := decodeString(rawKind)
	if err != nil || kind == "" {
		return parsed{}, kindNotString
	}
	p.kind = kind
	id, _ := rawjson.Lookup(members, "id")
	p.id = parseID(id)
	payload, _ := rawjson.Lookup(members, "payload")
	p.payload = bytes.Clone(payload)
	if meta, _ := rawjson.Lookup(members, "meta"); string(meta) != "null" {
		p.meta = bytes.Clone(meta)
	}
	if raw, ok := rawjson.Lookup(members, "date"); ok {
		if date, err := decodeString(raw); err == nil {
			p.date = date
			p.time, _ = ParseTime(date)
		}
	}
	return p, ""
}

// decodeString decodes a JSON string (null gives ""), without
// encoding/json for the usual one without escapes.
func decodeString(raw []byte) (string, error) {
	if s, ok := rawjson.PlainString(raw); ok {
		return s, nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// The reasons parseLine gives for lines it cannot read.
const (
	noKind        = `object has no "kind" (want {"kind": ..., "payload": {...}}, or a chat message with "role")`
	kindNotString = `"kind" is not a non-empty string`
)

// parseLineSlow is parseLine through encoding/json, for the lines
// rawjson.SplitObject leaves to it: invalid ones, for encoding/json's explanation,
// and unusual ones. FuzzParseLine checks that both paths agree.
func parseLineSlow(line []byte) (parsed, string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		if len(bytes.TrimSpace(line)) > 0 && bytes.TrimSpace(line)[0] != '{' {
			return parsed{}, "line is not a JSON object"
		}
		return parsed{}, "invalid JSON: " + err.Error()
	}
	if fields == nil { // the line was `null`
		return parsed{}, "line is not a JSON object"
	}
	var p parsed
	rawKind, hasKind := fields["kind"]
	if !hasKind {
		var role string
		if json.Unmarshal(fields["role"], &role) != nil || role == "" {
			return parsed{}, noKind
		}
		p.kind = KindMessage
		// A copy: the reader reuses line's buffer for the next line.
		p.payload = bytes.Clone(bytes.TrimSpace(line))
		return p, ""
	}
	if json.Unmarshal(rawKind, &p.kind) != nil || p.kind == "" {
		return parsed{}, kindNotString
	}
	p.id = parseID(fields["id"])
	p.payload = fields["payload"]
	if meta := fields["meta"]; string(meta) != "null" {
		p.meta = meta
	}
	if raw, ok := fields["date"]; ok && json.Unmarshal(raw, &p.date) == nil {
		p.time, _ = ParseTime(p.date)
	}
	return p, ""
}

// parseID returns a string id as it is, a number in its JSON text, and ""
// for a missing id or one of another type (the reader then derives one).
func parseID(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// timeLayouts are the date forms ParseTime accepts: RFC 3339 as tape writes
// it, and Python's datetime.isoformat() with or without a zone, as Bub and
// hand-written scripts write it. A date without a zone is UTC.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02",
}

// ParseTime parses an entry's date.
func ParseTime(s string) (time.Time, error) {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("log: date %q is not RFC 3339", s)
}

// ParseWhen reads a time bound as a person or an agent writes one: RFC
// 3339 or a date (as ParseTime), or a duration before now (90m, 2h, 3d,
// 1w). "" is no bound, the zero time.
func ParseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := ParseTime(s); err == nil {
		return t, nil
	}
	unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if n := len(s); n > 1 {
		if u, ok := unit[s[n-1]]; ok {
			if v, err := strconv.ParseFloat(s[:n-1], 64); err == nil && v >= 0 {
				return now.Add(-time.Duration(v * float64(u))), nil
			}
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is neither RFC 3339 (2026-11-22T10:00:00Z) nor a duration ago (2h, 3d)", s)
}

// FormatTime is the date form tape writes: RFC 3339 in UTC with
// microseconds, which sorts as text in time order.
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}

func itoa(n int) string { return strconv.Itoa(n) }
