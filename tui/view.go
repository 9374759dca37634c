package tui

import (
	"cmp"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views/sessions"
)

// Rows the screens take besides their bodies: the header, the status or
// input line, the help bar.
const chromeRows = 3

func (m *Model) bodyRows() int { return max(1, m.h-chromeRows) }

// hitRows is how many hits the search screen shows, two lines each under
// its input and its count.
func (m *Model) hitRows() int { return max(1, (m.bodyRows()-2)/2) }

// previewBelow reports whether the preview goes under the list (a
// narrow terminal) rather than beside it.
func (m *Model) previewBelow() bool { return m.w < 110 }

// listRows is how many sessions the list shows, under its column names.
func (m *Model) listRows() int {
	if m.previewBelow() {
		return max(1, m.bodyRows()*3/5-1)
	}
	return max(1, m.bodyRows()-1)
}

func (m *Model) View() tea.View {
	v := tea.NewView(m.draw())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "tape"
	return v
}

// draw is the screen as text: h lines of w columns.
func (m *Model) draw() string {
	t := m.theme
	var body []string
	header := "tape"
	switch m.screen {
	case listScreen:
		header += fmt.Sprintf(" · %d of %d sessions · by %s", len(m.list.shown)+m.list.unread(), max(m.list.total, len(m.list.all)), sortNames[m.list.sort])
		body = m.drawList()
	case searchScreen:
		header += " · search " + m.scopeName()
		body = m.drawSearch()
	case sessionScreen:
		if m.open == nil { // never: every way out of the session leaves it
			m.screen = listScreen
			return m.draw()
		}
		header += " · " + oneLine(title(m.open.info))
		body = m.drawOpen()
	}
	out := make([]string, 0, m.h)
	out = append(out, t.title.Render(fit(header, m.w)))
	for i := range m.bodyRows() {
		l := ""
		if i < len(body) {
			l = body[i]
		}
		out = append(out, fit(l, m.w))
	}
	out = append(out, fit(m.statusLine(), m.w), t.bar.Render(fit(m.helpLine(), m.w)))
	return strings.Join(out[:min(len(out), max(m.h, 1))], "\n")
}

func (m *Model) scopeName() string {
	if m.search.scope == "" {
		return "every tape"
	}
	return "in " + oneLine(m.search.scope)
}

func (m *Model) statusLine() string {
	switch {
	case m.filtering:
		return m.filterIn.view(m.theme, m.w)
	case m.status != "":
		return oneLine(m.status)
	case m.screen == listScreen && m.list.filter != "":
		return "filter: " + oneLine(m.list.filter)
	case m.screen == listScreen && !m.list.loaded:
		return "reading the sessions…"
	}
	return ""
}

func (m *Model) helpLine() string {
	if m.filtering {
		return helpBar(filterHelp, m.w)
	}
	return helpBar(help[m.screen], m.w)
}

// drawList is the sessions list, with the selected session's preview
// beside it or under it.
func (m *Model) drawList() []string {
	rows, w := m.listRows(), m.w
	if !m.previewBelow() {
		w = m.w * 3 / 5
	}
	l := &m.list
	l.top = scrollTo(l.top, l.cursor, rows)
	out := []string{m.theme.dim.Render(fit(sessionColumns, w))}
	for i := l.top; i < len(l.shown) && len(out) <= rows; i++ {
		row := fit(sessionRow(l.all[l.shown[i]], w), w)
		if i == l.cursor {
			row = m.theme.selected.Render(row)
		}
		out = append(out, row)
	}
	switch {
	case l.loaded && len(l.shown) == 0 && l.filter != "":
		out = append(out, "no session matches; esc clears the filter")
	case l.loaded && len(l.all) == 0:
		out = append(out, "no sessions here yet: tape import brings agents' sessions in")
	}
	for len(out) <= rows {
		out = append(out, "")
	}
	s, ok := l.selected()
	if !ok {
		return out
	}
	if m.previewBelow() {
		out = append(out, m.theme.dim.Render(strings.Repeat("─", m.w)))
		return append(out, m.drawPreview(s, m.w, m.bodyRows()-len(out))...)
	}
	pv := m.drawPreview(s, m.w-w-3, len(out))
	for i := range out {
		p := ""
		if i < len(pv) {
			p = pv[i]
		}
		out[i] = fit(out[i], w) + m.theme.dim.Render(" │ ") + fit(p, m.w-w-3)
	}
	return out
}

// drawPreview is a session's facts and its first entries.
func (m *Model) drawPreview(s sessions.Session, w, rows int) []string {
	t := m.theme
	out := []string{t.title.Render(fit(title(s), w))}
	fact := func(name, value string) {
		if value != "" {
			out = append(out, t.dim.Render(fit(name+" ", 9))+fit(oneLine(value), w-9))
		}
	}
	fact("tape", s.Name)
	fact("agent", strings.TrimSpace(s.Source+" "+s.SessionID))
	fact("folder", s.CWD)
	fact("branch", s.Branch)
	fact("model", s.Model)
	if !s.First.IsZero() {
		fact("when", s.First.Local().Format("2006-01-02 15:04")+" → "+s.Last.Local().Format("01-02 15:04"))
	}
	fact("entries", fmt.Sprintf("%d in %d anchors", s.Entries, s.Anchors))
	if p := m.preview; p != nil && p.info.Name == s.Name && p.loaded && len(out) < rows {
		out = append(out, "")
		out = append(out, m.drawSession(p, w, rows-len(out), false)...)
	}
	return out[:min(len(out), rows)]
}

// drawSearch is the search input and its hits, two lines each.
func (m *Model) drawSearch() []string {
	t, s := m.theme, &m.search
	out := []string{s.input.view(t, m.w)}
	order := "best first"
	if s.newest {
		order = "newest first"
	}
	switch {
	case s.err != "":
		out = append(out, t.failed.Render(oneLine(s.err)))
	case s.shown == "" || strings.TrimSpace(s.input.Value()) == "":
		out = append(out, t.dim.Render("type words to search "+m.scopeName()))
	case len(s.hits) == 0:
		out = append(out, t.dim.Render("nothing matches "+oneLine(s.shown)))
	default:
		more := ""
		if s.more {
			more = "+"
		}
		out = append(out, t.dim.Render(fmt.Sprintf("%d%s hits · %s", len(s.hits), more, order)))
	}
	rows := m.hitRows()
	s.top = scrollTo(s.top, s.cursor, rows)
	for i := s.top; i < len(s.hits) && i < s.top+rows; i++ {
		h := s.hits[i]
		head := oneLine(fmt.Sprintf("%s · %s · %s", h.Entry.Pos.Tape, h.Entry.Kind, day(h.Entry.Date)))
		if h.Match == projector.MatchSome {
			head += " · some of the words"
		}
		snippet := "  " + marked(h.Snippet, t)
		if i == s.cursor {
			out = append(out, t.selected.Render(fit(head, m.w)), fit(snippet, m.w))
		} else {
			out = append(out, t.accent.Render(fit(head, m.w)), fit(snippet, m.w))
		}
	}
	return out
}

// anchorsPane is how wide the open session's list of anchors is, beside
// the chat on a terminal of at least anchorsFrom columns.
const (
	anchorsPane = 30
	anchorsFrom = 140
)

// drawOpen is the open session: its chat, and on a wide terminal its
// anchors beside it, the one the selection is in marked.
func (m *Model) drawOpen() []string {
	s, rows := m.open, m.bodyRows()
	if m.w < anchorsFrom || len(s.anchors) == 0 {
		return m.drawSession(s, m.w, rows, true)
	}
	chat := m.drawSession(s, m.w-anchorsPane-3, rows, true)
	current := -1
	if b := m.selectedBlock(); b != nil {
		current = s.anchorOf(b)
	}
	pane := []string{m.theme.dim.Render(fit(fmt.Sprintf("ANCHORS (%d)", len(s.anchors)), anchorsPane))}
	first := max(0, current-(rows-2)) // the current one kept in the pane
	for i, a := range s.anchors[first:] {
		i += first
		line := fit(fmt.Sprintf("⚑ %s", cmp.Or(oneLine(a.Name), a.Folder)), anchorsPane-7) + fmt.Sprintf(" %6d", s.counts[a.Folder])
		if i == current {
			line = m.theme.selected.Render(line)
		}
		pane = append(pane, line)
	}
	out := make([]string, rows)
	for i := range out {
		left, right := "", ""
		if i < len(pane) {
			left = pane[i]
		}
		if i < len(chat) {
			right = chat[i]
		}
		out[i] = fit(left, anchorsPane) + m.theme.dim.Render(" │ ") + right
	}
	return out
}

// drawSession is rows lines of an open session, w columns wide (or a
// preview's, with no selection shown), the selected block kept on screen.
func (m *Model) drawSession(s *sessionState, w, rows int, selection bool) []string {
	if !s.loaded {
		return []string{m.theme.dim.Render("reading " + oneLine(s.info.Name) + "…")}
	}
	s.layout(w, m.theme)
	if selection {
		s.scroll(rows)
	} else {
		s.top = 0
	}
	var out []string
	for i := s.top; i < len(s.lines) && len(out) < rows; i++ {
		gutter := "  "
		if selection && s.lines[i].block == s.cursor {
			gutter = m.theme.accent.Render("▌ ")
		}
		out = append(out, gutter+s.lines[i].text)
	}
	if len(s.chat.blocks) == 0 {
		out = append(out, m.theme.dim.Render("no entries"))
	}
	return out
}
