package tui

import (
	"slices"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func TestParseFilters(t *testing.T) {
	t.Parallel()
	f := parseFilters(`flush timeout source:Claude project:tape kind:tool_result,error since:2d until:2026-11-21 http://x`, now)
	if f.text() != "flush timeout http://x" || f.source != "claude" || f.project != "tape" || !slices.Equal(f.kinds, []string{"tool_result", "error"}) ||
		!f.since.Equal(now.Add(-48*time.Hour)) || !f.until.Equal(time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)) || f.bad != "" {
		t.Fatalf("parseFilters = %+v", f)
	}
	if f := parseFilters("since:yesterday word", now); f.bad == "" || f.text() != "word" {
		t.Fatalf("a date that does not parse: %+v; want it said", f)
	}
}

// FuzzParseFilters: any query parses; its words are its own, in order,
// and only those that are not filters.
func FuzzParseFilters(f *testing.F) {
	f.Add("flush source:claude since:2d")
	f.Add("kind:a,b,,c until:-1 :x y:")
	f.Add("构建 project:前端 since:2026-11-01T00:00:00Z")
	f.Fuzz(func(t *testing.T, query string) {
		got := parseFilters(query, now)
		fields := strings.Fields(query)
		i := 0
		for _, w := range got.words {
			for i < len(fields) && fields[i] != w {
				i++
			}
			if i == len(fields) {
				t.Fatalf("parseFilters(%q): word %q is not the query's, in order", query, w)
			}
			i++
		}
		if len(got.words)+countFilters(query) != len(fields) {
			t.Fatalf("parseFilters(%q): %d words and %d filters of %d fields", query, len(got.words), countFilters(query), len(fields))
		}
	})
}

// countFilters counts the name:value fields parseFilters takes as filters.
func countFilters(query string) int {
	n := 0
	for _, w := range strings.Fields(query) {
		name, value, ok := strings.Cut(w, ":")
		if ok && value != "" && slices.Contains([]string{"source", "project", "kind", "since", "until"}, strings.ToLower(name)) {
			n++
		}
	}
	return n
}
