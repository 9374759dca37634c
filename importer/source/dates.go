package source

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// RecordDate is the date of the entries made from a record, whose
// timestamp is raw as written: the timestamp, when it is a date a tape
// takes (log.ParseTime); else last, the date of the line before (none
// for the first line), as for a record without a timestamp, so that the
// record sorts where it was written. A timestamp that is there and cannot
// be read is no reason to lose the record: bad says why it was not read,
// for a warning, and "" when it was read or is absent.
func RecordDate(raw json.RawMessage, last string) (date, bad string) {
	raw = Trim(raw)
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

// LineWarning is a converter's word on a line it imported with a value
// it could not read (an unreadable date): not a bad line, for the line's
// entries were made, but reported (as an importer.Warning).
type LineWarning string

func (w LineWarning) Error() string { return string(w) }
