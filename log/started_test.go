package log

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A tape started at the date of its first anchor, by seq; without one,
// at the zero time; an anchor.json that cannot be read is an error.
func TestStarted(t *testing.T) {
	t.Parallel()
	anchor := func(date string) string {
		if date == "" {
			return `{"kind":"anchor","payload":{"name":"a"}}`
		}
		return `{"kind":"anchor","payload":{"name":"a"},"date":"` + date + `"}`
	}
	tests := []struct {
		name  string
		files map[string]string
		want  time.Time
		err   string // what the error says; "" for none
		bad   bool   // the error is a *LineError
	}{
		{name: "no tape", files: map[string]string{"tapes/other/anchors/001_a/anchor.json": anchor("2026-01-01T00:00:00Z")}},
		{name: "no anchors", files: map[string]string{"tapes/t/anchors/notes.txt": "not an anchor"}},
		{name: "first by seq", files: map[string]string{
			"tapes/t/anchors/9_first/anchor.json":  anchor("2026-03-01T10:00:00+02:00"),
			"tapes/t/anchors/10_later/anchor.json": anchor("2020-01-01T00:00:00Z"),
			"tapes/t/anchors/.tmp-1/anchor.json":   anchor("2019-01-01T00:00:00Z"),
		}, want: time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)},
		{name: "a date without a zone", files: map[string]string{"tapes/t/anchors/001_a/anchor.json": anchor("2026-03-01T10:00:00.5")},
			want: time.Date(2026, 3, 1, 10, 0, 0, 5e8, time.UTC)},
		{name: "no anchor.json", files: map[string]string{
			"tapes/t/anchors/001_a/messages.jsonl": `{"kind":"message","payload":{},"date":"2026-01-01T00:00:00Z"}` + "\n",
			"tapes/t/anchors/002_b/anchor.json":    anchor("2026-01-01T00:00:00Z"),
		}},
		{name: "no date", files: map[string]string{
			"tapes/t/anchors/001_a/anchor.json": anchor(""),
			"tapes/t/anchors/002_b/anchor.json": anchor("2026-01-01T00:00:00Z"),
		}},
		{name: "not JSON", files: map[string]string{"tapes/t/anchors/001_a/anchor.json": `{"kind":`},
			err: "tapes/t/anchors/001_a/anchor.json:1", bad: true},
		{name: "a date that does not parse", files: map[string]string{"tapes/t/anchors/001_a/anchor.json": anchor("yesterday")},
			err: `start of tape t: log: date "yesterday" is not RFC 3339`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := openHandMade(t, tt.files)
			got, err := mustTape(t, ws, "t").Started()
			if !got.Equal(tt.want) {
				t.Errorf("Started() = %v; want %v", got, tt.want)
			}
			var le *LineError
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("Started(): %v; want no error", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("Started(): %v; want an error that says %q", err, tt.err)
			case errors.As(err, &le) != tt.bad:
				t.Errorf("Started(): %v (%T); *LineError: %v", err, err, tt.bad)
			}
		})
	}
}
