package codex

import (
	"encoding/json"
	"testing"

	"github.com/tape-dev/tape/importer/source"
)

// checkDates fails unless a dateReader reads each of raws, in turn, as
// source.RecordDate reads it.
func checkDates(t *testing.T, raws ...[]byte) {
	t.Helper()
	var d dateReader
	last := ""
	for _, raw := range raws {
		if !json.Valid(raw) {
			continue // a member's value of a line that decoded
		}
		date, bad := d.read(raw, last)
		wantDate, wantBad := source.RecordDate(raw, last)
		if date != wantDate || bad != wantBad {
			t.Fatalf("after %q, read(%s) = %q %q, want %q %q", last, raw, date, bad, wantDate, wantBad)
		}
		last = date
	}
}

func TestDatesAgreeWithRecordDate(t *testing.T) {
	var raws [][]byte
	for _, l := range goldenLines(t) {
		var cl rolloutLine
		if json.Unmarshal(l, &cl) == nil && cl.RawDate != nil {
			raws = append(raws, cl.RawDate)
		}
	}
	for _, s := range []string{
		`"2025-10-29T00:59:38.317Z"`, `"2025-10-29T00:59:38.4Z"`, `"2025-10-29T00:59:38.123456789Z"`, `"2025-10-29T00:59:38.1234567891Z"`,
		`"2025-10-29T00:59:38.Z"`, `"2025-10-29T00:59:38.31xZ"`, `"2025-10-29T00:59:38.317+01:00"`, `"2025-10-29 00:59:38.317Z"`,
		`"2025-10-29 00:59:38.5Z"`, `"2025-02-29T00:59:38.317Z"`, `"2025-02-29T00:59:38.318Z"`, `"2024-02-29T23:59:59.9Z"`,
		`"2024-02-29T23:59:59.1Z"`, `"2024-02-29T23:59:60.1Z"`, `"2024-02-29T23:59:60.2Z"`, `null`, `""`, `"2024-02-29T23:59:59.3Z"`,
		`7`, `"2024-02-29T23:59:59.3Z"`, `"2024-02-29T23:59:59.03z"`, `"2024-02-29T23:59:59\u002e3Z"`, `"2024-02-29T23:59:59.4Z"`,
	} {
		raws = append(raws, []byte(s))
	}
	checkDates(t, raws...)
	// Most of the golden rollouts' timestamps share their second with the
	// one before: the reader must take them without RecordDate to buy
	// anything.
	var d dateReader
	taken := 0
	for _, raw := range raws {
		before := d.last
		d.read(raw, "")
		if before != "" && d.last != before && len(raw) > 20 && string(raw[1:20]) == before[:19] {
			taken++
		}
	}
	if taken < 10 {
		t.Errorf("%d timestamps of the second before; want the golden rollouts' many", taken)
	}
}

func FuzzDates(f *testing.F) {
	f.Add([]byte(`"2025-10-29T00:59:38.317Z"`), []byte(`"2025-10-29T00:59:38.9Z"`), []byte(`"2025-10-29T00:59:39.9Z"`))
	f.Add([]byte(`"2024-02-29T23:59:59.9Z"`), []byte(`"2024-02-29T23:59:59.123456789Z"`), []byte(`null`))
	f.Add([]byte(`"2025-02-28T10:00:00.5Z"`), []byte(`"2025-02-28T10:00:00.5+00:00"`), []byte(`"2025-02-28T10:00:00.5Z"`))
	f.Fuzz(func(t *testing.T, a, b, c []byte) { checkDates(t, a, b, c, b, a) })
}
