package codex

import (
	"encoding/json"

	"github.com/tape-dev/tape/importer/source"
)

// dateReader is source.RecordDate for the lines of one rollout, which
// checks a timestamp with tapelog.ParseTime: a timestamp of the form Codex
// writes ("2025-10-29T00:59:38.317Z") that only its fraction of a second
// tells from the last one read is taken as it is. ParseTime took the same
// text up to the second, and takes any digits of a fraction before a "Z"
// (time.Parse's .999999999); a rollout writes several lines a second, and
// ParseTime was a tenth of the converter's time (BenchmarkConvert).
// TestDatesAgreeWithRecordDate and FuzzDates hold it to RecordDate.
type dateReader struct {
	last string // the last timestamp read, when RecordDate took it and it is of Codex's form
}

// read is source.RecordDate(raw, last).
func (d *dateReader) read(raw json.RawMessage, last string) (date, bad string) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		if text := raw[1 : len(raw)-1]; codexForm(text) && len(d.last) > 0 && string(text[:19]) == d.last[:19] {
			d.last = string(text)
			return d.last, ""
		}
	}
	date, bad = source.RecordDate(raw, last)
	if bad == "" && len(raw) >= 2 && raw[0] == '"' && string(raw[1:len(raw)-1]) == date && codexForm(raw[1:len(raw)-1]) {
		d.last = date
	}
	return date, bad
}

// codexForm reports whether text is 19 bytes that carry no quote or
// backslash, then a period, one to nine digits and "Z": the form of
// Codex's timestamps, whose first 19 bytes are the second.
func codexForm(text []byte) bool {
	n := len(text)
	if n < 22 || n > 30 || text[19] != '.' || text[n-1] != 'Z' {
		return false
	}
	for _, c := range text[20 : n-1] {
		if c < '0' || c > '9' {
			return false
		}
	}
	for _, c := range text[:19] {
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}
