package tui

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tape-dev/tape/views/sessions"
)

// sortOrder is how the sessions list is sorted; s moves to the next.
type sortOrder int

const (
	byLast sortOrder = iota
	byFirst
	byEntries
	byProject
	byTitle
	sortOrders
)

var sortNames = [sortOrders]string{"last written", "first written", "most entries", "project", "title"}

// sessionList is the sessions screen's state: every session, the ones the
// filter keeps in the order asked, and the row selected.
type sessionList struct {
	all    []sessions.Session
	total  int   // sessions in the index: all holds the first of them until the rest is read
	shown  []int // indexes into all
	cursor int
	top    int // the first row on screen
	sort   sortOrder
	filter string // as typed
	loaded bool
}

// project is a session's project: its working directory's last part.
func project(s sessions.Session) string {
	if s.CWD == "" {
		return ""
	}
	return filepath.Base(filepath.Clean(s.CWD))
}

// title is a session's title, else its tape's name.
func title(s sessions.Session) string { return cmp.Or(oneLine(s.Title), s.Name) }

// apply keeps the sessions the filter keeps, sorted; the selection stays
// on the session it was on, where it is still shown.
func (l *sessionList) apply(now time.Time) {
	was := ""
	if s, ok := l.selected(); ok {
		was = s.Name
	}
	f := parseFilters(l.filter, now)
	l.shown = l.shown[:0]
	for i, s := range l.all {
		if keeps(f, s) {
			l.shown = append(l.shown, i)
		}
	}
	l.sortShown()
	l.cursor = max(0, slices.IndexFunc(l.shown, func(i int) bool { return l.all[i].Name == was }))
}

// keeps reports whether a session is one the filters ask for: every word
// in its title, name, directory, branch, model or source.
func keeps(f filters, s sessions.Session) bool {
	if f.source != "" && !strings.Contains(strings.ToLower(s.Source), f.source) ||
		f.project != "" && !strings.Contains(strings.ToLower(project(s)), f.project) ||
		!f.since.IsZero() && s.Last.Before(f.since) ||
		!f.until.IsZero() && !s.First.IsZero() && !s.First.Before(f.until) {
		return false
	}
	facts := strings.ToLower(strings.Join([]string{s.Title, s.Name, s.CWD, s.Branch, s.Model, s.Source}, "\n"))
	for _, w := range f.words {
		if !strings.Contains(facts, strings.ToLower(w)) {
			return false
		}
	}
	return true
}

func (l *sessionList) sortShown() {
	by := func(a, b int) int {
		x, y := l.all[a], l.all[b]
		switch l.sort {
		case byFirst:
			return y.First.Compare(x.First)
		case byEntries:
			return cmp.Compare(y.Entries, x.Entries)
		case byProject:
			return cmp.Compare(strings.ToLower(project(x)), strings.ToLower(project(y)))
		case byTitle:
			return cmp.Compare(strings.ToLower(title(x)), strings.ToLower(title(y)))
		}
		return 0 // as listed: the most recently written first
	}
	slices.SortStableFunc(l.shown, func(a, b int) int { return cmp.Or(by(a, b), cmp.Compare(a, b)) })
}

// unread is how many sessions the list has not read yet: counted as
// shown until they are, when no filter hides any.
func (l *sessionList) unread() int {
	if l.filter != "" {
		return 0
	}
	return max(0, l.total-len(l.all))
}

func (l *sessionList) selected() (sessions.Session, bool) {
	if l.cursor < 0 || l.cursor >= len(l.shown) {
		return sessions.Session{}, false
	}
	return l.all[l.shown[l.cursor]], true
}

// move moves the selection by n rows, kept on the list, and scrolls
// rows tall to keep it on screen.
func (l *sessionList) move(n, rows int) {
	l.cursor = max(0, min(l.cursor+n, len(l.shown)-1))
	l.top = scrollTo(l.top, l.cursor, rows)
}

// scrollTo is the first row to show so that row cursor is among rows
// rows shown.
func scrollTo(top, cursor, rows int) int {
	rows = max(rows, 1)
	if cursor < top {
		return cursor
	}
	if cursor >= top+rows {
		return cursor - rows + 1
	}
	return top
}

// sessionColumns names the columns of sessionRow.
var sessionColumns = fmt.Sprintf("%-11s  %-8s  %-14s  %7s  %s", "LAST", "AGENT", "PROJECT", "ENTRIES", "TITLE")

// sessionRow is a session in a row w columns wide: when it was last
// written, the agent, the project, its entries and its title.
func sessionRow(s sessions.Session, w int) string {
	when := "-"
	if !s.Last.IsZero() {
		when = s.Last.Local().Format("01-02 15:04")
	}
	head := fmt.Sprintf("%-11s  %s  %s  %7d  ", when, fit(cmp.Or(oneLine(s.Source), "-"), 8), fit(cmp.Or(oneLine(project(s)), "-"), 14), s.Entries)
	return head + fit(title(s), w-widthOf(head))
}
