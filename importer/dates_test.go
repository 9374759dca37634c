package importer

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/claude"
	"github.com/tape-dev/tape/importer/codex"
	"github.com/tape-dev/tape/importer/source"
)

// A record whose timestamp is not a date is imported with the date of
// the line before (none for the first line), as a record without one
// is, and so is every record after it; the timestamp is reported, with
// its file and line, and kept in the entry's meta.
func TestUnreadableDatesLoseNoRecord(t *testing.T) {
	t.Parallel()
	claudeLine := func(n int, date string) string {
		return fmt.Sprintf(`{"type":"user","uuid":"u%d","sessionId":"s1",%s"message":{"role":"user","content":"said %d"}}`, n, date, n)
	}
	codexLine := func(n int, date string) string {
		return fmt.Sprintf(`{%s"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"said %d"}]}}`, date, n)
	}
	for _, tc := range []struct {
		format source.Source
		rel    string
		line   func(n int, date string) string
	}{
		{claude.Source{}, "p/s1.jsonl", claudeLine},
		{codex.Source{}, "s/rollout-2025-10-30T09-00-00-019a3000-0000-7000-8000-00000000beef.jsonl", codexLine},
	} {
		t.Run(tc.format.Name(), func(t *testing.T) {
			b := newBench(t)
			dates := []string{
				`"timestamp":"yesterday",`,            // 1: the first line: no date
				`"timestamp":"2025-11-03T14:05:00Z",`, // 2
				`"timestamp":"2025-11\n-03",`,         // 3: the one before
				``,                                    // 4: none: the one before
				`"timestamp":{"at":"noon"},`,          // 5: not a string
				`"timestamp":"2025-11-03T14:06:00Z",`, // 6
			}
			var lines []string
			for i, d := range dates {
				lines = append(lines, tc.line(i+1, strings.ReplaceAll(d, "\n", `\n`)))
			}
			path := b.write(tc.rel, []byte(strings.Join(lines, "\n")+"\n"))
			st := b.importAt(tc.format, quiet)
			if st[0].BadLines != 0 {
				t.Fatalf("stats %+v; want no bad line", st[0])
			}
			tapes := b.tapes()
			wantDates := []string{"", "2025-11-03T14:05:00Z", "2025-11-03T14:05:00Z", "2025-11-03T14:05:00Z", "2025-11-03T14:05:00Z", "2025-11-03T14:06:00Z"}
			for i, want := range wantDates {
				line := lineOf(tapes, fmt.Sprintf(`"said %d"`, i+1))
				if line == "" {
					t.Fatalf("line %d was not imported:\n%s", i+1, tapes)
				}
				if got := dateOf(line); got != want {
					t.Errorf("line %d: date %q, want %q: %s", i+1, got, want, line)
				}
			}
			for _, kept := range []string{`"timestamp":"yesterday"`, `"timestamp":"2025-11\n-03"`, `"timestamp":{"at":"noon"}`} {
				if !strings.Contains(tapes, strings.ReplaceAll(kept, "\n", `\n`)) {
					t.Errorf("the meta does not keep %s:\n%s", kept, tapes)
				}
			}
			var warned []string
			for _, err := range b.bad {
				var w *Warning
				if !errors.As(err, &w) || w.File != path {
					t.Fatalf("report %v; want a *Warning of %s", err, path)
				}
				warned = append(warned, fmt.Sprint(w.Line))
			}
			if got := strings.Join(warned, " "); got != "1 3 5" {
				t.Errorf("warnings of lines %q, want 1 3 5: %v", got, b.bad)
			}
			if msg := b.bad[1].Error(); !strings.Contains(msg, `"timestamp" "2025-11\n-03" is not an RFC 3339 date; imported with the date of the line before, 2025-11-03T14:05:00Z`) {
				t.Errorf("warning %q", msg)
			}
		})
	}
}

// lineOf is the line of a tape's files that holds s.
func lineOf(tapes, s string) string {
	for _, line := range strings.Split(tapes, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// dateOf is the "date" of an entry's line, "" without one.
func dateOf(line string) string {
	_, after, ok := strings.Cut(line, `"date":"`)
	if !ok {
		return ""
	}
	date, _, _ := strings.Cut(after, `"`)
	return date
}

// A line held back (the last of an unfinished turn) is warned of once,
// by the import that writes it.
func TestHeldLineIsWarnedOfOnce(t *testing.T) {
	t.Parallel()
	b := newBench(t)
	b.write("p/s1.jsonl", []byte(`{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2025-11-03T14:05:00Z","message":{"role":"user","content":"hi"}}`+"\n"+
		`{"type":"assistant","uuid":"a1","sessionId":"s1","timestamp":"soon","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"hello"}]}}`+"\n"))
	if st := b.importAt(claude.Source{}, fresh); st[0].Held != 1 || len(b.bad) != 0 {
		t.Fatalf("stats %+v, reports %v; want the turn held, and no warning yet", st[0], b.bad)
	}
	b.importAt(claude.Source{}, quiet)
	if len(b.bad) != 1 || !strings.Contains(b.bad[0].Error(), `s1.jsonl:2: "timestamp" "soon" is not`) {
		t.Fatalf("reports %v; want one warning of line 2", b.bad)
	}
}
