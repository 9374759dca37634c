package tui

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tape-dev/tape/internal/searchlang"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views/sessions"
)

// searchPage is how many hits a search lists at first, and how many more
// scrolling to the last asks for: more than two screens of 200×50, few
// enough to read in milliseconds (200 hits of "build" took 57 ms at
// 10,000 sessions, 60 took 27).
const searchPage = 60

// debounce is how long typing must pause before the search runs: a
// search per key of a fast typist would queue behind each other.
const debounce = 15 * time.Millisecond

// searchState is the search screen's state.
type searchState struct {
	input  input
	scope  string // the tape searched; "" for every tape
	newest bool   // newest first, not best first
	keep   bool   // the next answer keeps the selection on its hit: a look's, or more of the same
	forced bool   // enter asked for this text's search, one character or not
	asked  int    // the number of the last search asked
	limit  int    // hits asked for: searchPage, more once scrolled to the last
	hits   []projector.Hit
	more   bool
	shown  string // the query the hits are of
	err    string
	cursor int
	top    int
}

func newSearch() searchState {
	return searchState{input: input{prompt: "/ ", placeholder: "words, \"a phrase\", prefix*  ·  source: project: kind: since: until:"}}
}

// query is the search the input asks: nothing when it has no words.
// Filters of source and project narrow it to the tapes of the sessions
// they keep; none kept asks for nothing either.
func (s *searchState) query(all []sessions.Session, now time.Time) (projector.SearchQuery, string, bool) {
	f := parseFilters(s.input.Value(), now)
	if f.bad != "" {
		return projector.SearchQuery{}, f.bad, false
	}
	q := projector.SearchQuery{Text: f.text(), Kinds: f.kinds, Since: f.since, Until: f.until, Limit: max(s.limit, searchPage), Newest: s.newest, Relax: true}
	if strings.TrimSpace(q.Text) == "" {
		return q, "", false
	}
	if utf8.RuneCountInString(strings.TrimSpace(q.Text)) == 1 && !s.forced {
		return q, "one character finds too much to search as you type: type another, or press enter", false
	}
	if s.scope != "" {
		q.Tapes = []string{s.scope}
	}
	if f.source != "" || f.project != "" {
		kept := filters{source: f.source, project: f.project}
		var tapes []string
		for _, ses := range all {
			if (s.scope == "" || ses.Name == s.scope) && keeps(kept, ses) {
				tapes = append(tapes, ses.Name)
			}
		}
		if len(tapes) == 0 {
			return q, "no session is of " + strings.Join(slices.DeleteFunc([]string{"source " + f.source, "project " + f.project}, func(s string) bool { return strings.HasSuffix(s, " ") }), " and "), false
		}
		q.Tapes = tapes
	}
	return q, "", true
}

func (s *searchState) selected() (projector.Hit, bool) {
	if s.cursor < 0 || s.cursor >= len(s.hits) {
		return projector.Hit{}, false
	}
	return s.hits[s.cursor], true
}

func (s *searchState) move(n, rows int) {
	s.cursor = max(0, min(s.cursor+n, len(s.hits)-1))
	s.top = scrollTo(s.top, s.cursor, rows)
}

// marked is a snippet with its **matches** in the mark style (a ** of the
// text's own, Markdown's bold, stays text), made one printable line.
func marked(snippet string, t theme) string {
	var b strings.Builder
	for _, span := range searchlang.SnippetSpans(snippet) {
		text := flat(span.Text)
		if span.Match {
			text = t.mark.Render(text)
		}
		b.WriteString(text)
	}
	return b.String()
}
