package amp

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// Every entry's id starts with its thread's id, and says what part of the
// thread it comes from: "<thread>/<message key>/<part>", the message key
// its messageId (see keyOf), the part a block's index or a tool call's id.
// A document Amp writes again makes the same ids, so the driver, which
// reads a rewritten file from its start, skips what the tape holds.

// str is the text of a JSON string value; ok is false for anything else.
func str(v []byte) (string, bool) { return source.StringValue(source.Trim(v)) }

// nonEmpty is the text of a JSON string that is not "" (as ccusage reads
// an id, a model, a timestamp).
func nonEmpty(v []byte) (string, bool) {
	s, ok := str(v)
	return s, ok && s != ""
}

// member is the value of the member key of the object v (the last, when
// it is repeated), trimmed; nil when v is no object or has none.
func member(v []byte, key string) []byte {
	var found []byte
	rawjson.ObjectMembers(source.Trim(v), func(k, value []byte) {
		if string(source.DecodeKey(k)) == key {
			found = source.Trim(value)
		}
	})
	return found
}

// absent reports whether a member is missing or null.
func absent(v []byte) bool { return len(v) == 0 || string(v) == "null" }

// dateLayout is how tape writes the dates it reads: UTC, to the millisecond.
const dateLayout = "2006-01-02T15:04:05.000Z"

// maxMillis is the last millisecond of the year 9999: a later date is
// none a tape takes.
const maxMillis = 253402300799999

// millisDate reads milliseconds since 1970 (Amp's created, sentAt,
// createdAt): a number, whose fraction is cut.
func millisDate(v []byte) (string, bool) {
	ms, err := strconv.ParseFloat(string(source.Trim(v)), 64)
	if err != nil || ms < 0 || ms > maxMillis || math.IsNaN(ms) {
		return "", false
	}
	return time.UnixMilli(int64(ms)).UTC().Format(dateLayout), true
}

// usageDate reads the timestamp of a usage or a ledger event as ccusage
// 20.0.24 reads it (ccusageTime), which counts no usage of one it does
// not read.
func usageDate(v []byte) (string, bool) {
	if s, ok := nonEmpty(v); !ok || !ccusageTime(s) {
		return "", false
	}
	return isoDate(v)
}

// isoDate reads an RFC 3339 date (an assistant message's date, its
// usage's timestamp).
func isoDate(v []byte) (string, bool) {
	s, ok := nonEmpty(v)
	if !ok {
		return "", false
	}
	if len(s) == len(dateLayout) && s[19] == '.' && s[23] == 'Z' && s[0] != '0' {
		// What JavaScript's toISOString writes, and tape too: as it is,
		// when it is a date.
		if _, err := time.Parse(dateLayout, s); err == nil {
			return s, true
		}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", false
	}
	if t = t.UTC(); t.Year() < 1 || t.Year() > 9999 {
		return "", false
	}
	if _, err := tapelog.ParseTime(t.Format(dateLayout)); err != nil {
		return "", false
	}
	return t.Format(dateLayout), true
}

// ccusageTime reports whether s is a date as ccusage 20.0.24 reads one:
// RFC 3339 with a T and a Z in capitals, and seconds with no fraction or
// one of three digits (what JavaScript's toISOString writes); it counts
// no usage of a timestamp it does not read.
func ccusageTime(s string) bool {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return false
	}
	rest := s[19:]
	if rest[0] == '.' {
		if len(rest) < 5 || !digits(rest[1:4]) {
			return false
		}
		rest = rest[4:]
	}
	switch {
	case rest == "Z":
		return true
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		return digits(rest[1:3]) && digits(rest[4:])
	}
	return false
}

func digits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// dateOf reads the date v says, with read (millisDate or isoDate); a
// value that is there and is no date is warned of, and the date before it
// is taken.
func (m *mapping) dateOf(v []byte, read func([]byte) (string, bool), what string) (string, bool) {
	if absent(v) {
		return "", false
	}
	if d, ok := read(v); ok {
		return d, true
	}
	if m.c.warn == nil {
		was := "imported without a date"
		if m.date != "" {
			was = "imported with the date before it, " + m.date
		}
		m.c.warn = source.LineWarning(fmt.Sprintf("%s %s of thread %s is not a date; %s", what, shortValue(v), m.tid, was))
	}
	return "", false
}

func shortValue(v []byte) string {
	s := string(rawjson.AppendCompact(nil, v))
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return s
}

func (c *converter) takeWarning() error {
	w := c.warn
	c.warn = nil
	return w
}

// count reads a token count as ccusage 20 reads it (serde_json's as_u64):
// a whole number written without a sign, a fraction or an exponent;
// anything else, or a count absent, is 0.
func count(v []byte) uint64 {
	v = source.Trim(v)
	if len(v) == 0 {
		return 0
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0
		}
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return 0
	}
	return min(n, maxCount)
}

// maxCount bounds a count, so that sums cannot overflow: far above any
// request's (tape's views read a count above 2^40 as no count at all).
const maxCount = 1 << 60

// compact is a value of the document as an entry's payload holds it.
func compact(v []byte) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage("null")
	}
	return rawjson.AppendCompact(nil, v)
}
