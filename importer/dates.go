package importer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// recordDate is the date of the entries made from a record, whose
// timestamp is raw as written: the timestamp, when it is a date a tape
// takes (log.ParseTime); else last, the date of the line before (none
// for the first line), as for a record without a timestamp, so that the
// record sorts where it was written. A timestamp that is there and cannot
// be read is no reason to lose the record: bad says why it was not read,
// for a warning, and "" when it was read or is absent.
func recordDate(raw json.RawMessage, last string) (date, bad string) {
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == `""` {
		return last, ""
	}
	if s, ok := rawjson.String(raw); ok {
		if _, err := tapelog.ParseTime(s); err == nil {
			return s, ""
		}
	}
	bad = fmt.Sprintf(`"timestamp" %s is not an RFC 3339 date; imported without a date`, shortJSON(raw, 64))
	if last != "" {
		bad = fmt.Sprintf(`"timestamp" %s is not an RFC 3339 date; imported with the date of the line before, %s`, shortJSON(raw, 64), last)
	}
	return last, bad
}

// shortJSON is a JSON value from a transcript as a message shows it: on
// one line (a JSON string holds no raw control character), and cut to
// about n bytes, for a transcript's value may be of any size.
func shortJSON(raw json.RawMessage, n int) string {
	s := strings.ToValidUTF8(string(rawjson.AppendCompact(nil, raw)), "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// lineWarning is a converter's word on a line it imported with a value
// it could not read (an unreadable date): not a bad line, for the
// line's entries were made, but reported as a Warning.
type lineWarning string

func (w lineWarning) Error() string { return string(w) }

// A Warning is a transcript line that was imported with a value of it
// not read as written (a timestamp that is not a date); the Reason says
// what was done instead.
type Warning struct {
	File   string
	Line   int // 1-based
	Reason string
}

func (w *Warning) Error() string { return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Reason) }
