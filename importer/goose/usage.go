package goose

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// What ccusage 20.0.24 (`ccusage goose daily`) counts of a session, read
// from its binary's query and tried on databases made for it, and what
// this package counts so that `tape usage` equals it:
//
//   - a session whose model_config_json is JSON with a string model_name
//     (trimmed, not empty); one without (a session of a schema before 6,
//     Goose's JSON files before the database) is not counted;
//   - on the day of its created_at in UTC: a whole number of seconds (of
//     milliseconds past 10^12), as a number or as text, above 0; or text
//     (trimmed) "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DDTHH:MM:SS" (UTC),
//     "YYYY-MM-DDTHH:MM:SS[.mmm](Z|±HH:MM)", or "YYYY-MM-DD". A session
//     dated otherwise (fractions of a second but those of three digits
//     with a zone, a zone after a space) is not counted;
//   - input the accumulated_input_tokens when above 0, else input_tokens
//     (0 below 0); output likewise; total the larger of the in and out
//     and accumulated_total_tokens when above 0, else total_tokens; no
//     cache tokens (the accumulated cache counts of schema 14 are not
//     read); a session of a total of 0 is not counted.

// counts are a session's tokens as ccusage counts them.
type counts struct{ in, out, total int64 }

// sessionUsage is what ccusage counts of a session's row: its model, its
// day, its counts; ok is false when it counts none.
func sessionUsage(row obj) (model string, at time.Time, c counts, ok bool) {
	model, ok = modelName(row.Raw("model_config_json"))
	if !ok {
		return "", at, c, false
	}
	at, ok = ccusageTime(row.Raw("created_at"))
	if !ok {
		return "", at, c, false
	}
	pick := func(acc, last string) int64 {
		if n := sqliteInt(row.Raw(acc)); n > 0 {
			return n
		}
		return max(sqliteInt(row.Raw(last)), 0)
	}
	c.in, c.out = pick("accumulated_input_tokens", "input_tokens"), pick("accumulated_output_tokens", "output_tokens")
	c.total = max(pick("accumulated_total_tokens", "total_tokens"), c.in+c.out)
	return model, at, c, c.total > 0
}

// modelName is model_config_json's model_name, as the mirror keeps the
// column: the JSON object, when it was JSON.
func modelName(cfg []byte) (string, bool) {
	members := source.ObjectOf(cfg)
	if members == nil {
		return "", false
	}
	v, _ := rawjson.Lookup(members, "model_name")
	s, ok := rawjson.String(v)
	s = strings.TrimSpace(s)
	return s, ok && s != ""
}

// sqliteInt is a column's value as SQLite reads a whole number of it: a
// number without its fraction, a text's leading digits, 0 for anything
// else.
func sqliteInt(v []byte) int64 {
	if s, ok := rawjson.String(v); ok {
		v = []byte(strings.TrimSpace(s))
		end := 0
		for end < len(v) && (v[end] >= '0' && v[end] <= '9' || end == 0 && (v[end] == '-' || v[end] == '+')) {
			end++
		}
		v = v[:end]
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(string(v), 64); err == nil && f > -9e18 && f < 9e18 {
		return int64(f)
	}
	return 0
}

var (
	digits   = regexp.MustCompile(`^[0-9]+$`)
	naive    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}$`)
	zoned    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?(Z|[+-]\d{2}:\d{2})$`)
	dateOnly = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
)

// ccusageTime is the time ccusage reads in a session's created_at (above).
func ccusageTime(v []byte) (time.Time, bool) {
	s, isText := rawjson.String(v)
	if !isText {
		s = string(v)
		if !digits.MatchString(s) {
			return time.Time{}, false // null, a fraction, a negative number
		}
	}
	s = strings.TrimSpace(s)
	var t time.Time
	var err error
	switch {
	case digits.MatchString(s):
		n, perr := strconv.ParseInt(s, 10, 64)
		if perr != nil || n <= 0 {
			return t, false
		}
		if n > 1_000_000_000_000 {
			return time.UnixMilli(n).UTC(), true
		}
		return time.Unix(n, 0).UTC(), true
	case naive.MatchString(s):
		t, err = time.Parse("2006-01-02T15:04:05", s[:10]+"T"+s[11:])
	case zoned.MatchString(s):
		t, err = time.Parse(time.RFC3339, s)
	case dateOnly.MatchString(s):
		t, err = time.Parse("2006-01-02", s)
	default:
		return t, false
	}
	return t.UTC(), err == nil
}
