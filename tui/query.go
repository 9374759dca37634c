package tui

import (
	"strings"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

// filters are what a query's name:value words ask, beside its other
// words: source:claude project:tape kind:tool_result since:2d until:1d.
type filters struct {
	words        []string // the rest: the search text, or words a session's facts must hold
	source       string
	project      string
	kinds        []string
	since, until time.Time
	bad          string // a filter that did not parse, and why
}

// parseFilters reads a query's filters; now is what since:2d counts
// back from. A word in quotes is kept whole for the search.
func parseFilters(query string, now time.Time) filters {
	var f filters
	for _, w := range strings.Fields(query) {
		name, value, ok := strings.Cut(w, ":")
		if !ok || value == "" {
			f.words = append(f.words, w)
			continue
		}
		switch strings.ToLower(name) {
		case "source":
			f.source = strings.ToLower(value)
		case "project":
			f.project = strings.ToLower(value)
		case "kind":
			f.kinds = append(f.kinds, strings.Split(value, ",")...)
		case "since", "until":
			t, err := tapelog.ParseWhen(value, now)
			if err != nil {
				f.bad = w + ": " + err.Error()
				continue
			}
			if strings.EqualFold(name, "since") {
				f.since = t
			} else {
				f.until = t
			}
		default:
			f.words = append(f.words, w) // a word with a colon (a URL, a time)
		}
	}
	return f
}

// text is the search text: the words that are not filters.
func (f filters) text() string { return strings.Join(f.words, " ") }
