package tui

import (
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tape-dev/tape/views/sessions"
)

// help is each screen's help bar: its keys, the one that leaves last
// and shown always, the others in the order they are dropped from the
// end when the terminal is narrow.
var help = map[screen][]string{
	listScreen:    {"↑↓/jk move", "enter open", "/ search", "f filter", "s sort", "r resume", "e export", "y copy resume", "q quit"},
	searchScreen:  {"type to search", "↑↓ move", "enter open", "tab this session/every tape", "ctrl+o newest/best", "esc back"},
	sessionScreen: {"↑↓/jk move", "enter fold", "[ ] anchors", "/ search here", "r resume", "e export", "y copy", "g/G ends", "q back"},
}

var filterHelp = []string{"type to filter", "source:X project:X since:2d", "enter keep", "esc clear"}

// helpBar is as many of the keys as fit in w columns, the last always.
func helpBar(keys []string, w int) string {
	last := keys[len(keys)-1]
	bar := ""
	for _, k := range keys[:len(keys)-1] {
		if widthOf(bar+k+" · "+last) > w {
			break
		}
		bar += k + " · "
	}
	return bar + last
}

// key handles a key press on the screen shown.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	if k.String() == "ctrl+c" {
		return tea.Quit
	}
	m.status = ""
	if r := m.confirm; r != nil {
		m.confirm = nil
		if k.String() == "enter" {
			return m.runResume(*r)
		}
		return nil
	}
	switch {
	case m.screen == searchScreen:
		return m.searchKey(k)
	case m.filtering:
		return m.filterKey(k)
	case m.screen == sessionScreen:
		return m.sessionKey(k)
	}
	return m.listKey(k)
}

// moveKey is the move a navigation key asks for, in rows; page is a
// screen's worth.
func moveKey(k string, page int) (int, bool) {
	switch k {
	case "up", "k", "ctrl+p":
		return -1, true
	case "down", "j", "ctrl+n":
		return 1, true
	case "pgup", "ctrl+u", "ctrl+b":
		return -page, true
	case "pgdown", "ctrl+d", "ctrl+f", "space":
		return page, true
	case "home", "g":
		return -1 << 30, true
	case "end", "G":
		return 1 << 30, true
	}
	return 0, false
}

func (m *Model) listKey(k tea.KeyPressMsg) tea.Cmd {
	if n, ok := moveKey(k.String(), m.listRows()); ok {
		return m.moveBy(n)
	}
	s, selected := m.list.selected()
	switch k.String() {
	case "q":
		return tea.Quit
	case "esc":
		if m.list.filter != "" {
			m.list.filter = ""
			m.filterIn.SetValue("")
			m.list.apply(m.opt.Now())
			return m.previewSelected()
		}
		return tea.Quit
	case "enter":
		if selected {
			return m.openTape(s, "")
		}
	case "/":
		m.from = listScreen
		return m.startSearch(m.opt.Tape)
	case "f":
		m.filtering = true
		m.filterIn.Focus()
		return nil
	case "s":
		m.list.sort = (m.list.sort + 1) % sortOrders
		m.list.apply(m.opt.Now())
		m.list.top = scrollTo(0, m.list.cursor, m.listRows())
		m.status = "sorted by " + sortNames[m.list.sort]
		return m.previewSelected()
	case "r", "y":
		if selected {
			return m.resume(s.Name, k.String() == "y")
		}
	case "e":
		if selected {
			return m.export(s.Name)
		}
	}
	return nil
}

func (m *Model) filterKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "enter":
		m.filtering = false
		m.filterIn.Blur()
		return nil
	case "esc":
		m.filtering = false
		m.filterIn.Blur()
		m.filterIn.SetValue("")
	case "up", "down", "pgup", "pgdown":
		n, _ := moveKey(k.String(), m.listRows())
		return m.moveBy(n)
	default:
		m.filterIn.key(k)
	}
	m.list.filter = m.filterIn.Value()
	m.list.apply(m.opt.Now())
	m.list.top = scrollTo(0, m.list.cursor, m.listRows())
	return m.previewSelected()
}

// startSearch shows the search screen, searching scope ("" for every
// tape).
func (m *Model) startSearch(scope string) tea.Cmd {
	m.screen, m.search.scope = searchScreen, scope
	m.search.input.Focus()
	if strings.TrimSpace(m.search.input.Value()) != "" {
		m.search.asked++
		return m.runSearch(m.search.asked)
	}
	return nil
}

func (m *Model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	rows := m.hitRows()
	switch k.String() {
	case "up", "down", "ctrl+p", "ctrl+n", "pgup", "pgdown":
		n, _ := moveKey(k.String(), rows)
		return m.moveHits(n)
	case "esc":
		m.search.input.Blur()
		m.screen = listScreen
		if m.from == sessionScreen && m.open != nil {
			m.screen = sessionScreen
		}
		return nil
	case "enter":
		if h, ok := m.search.selected(); ok {
			m.search.input.Blur()
			return m.openHit(h.Entry.Pos.Tape, h.Entry.ID)
		}
		m.search.forced = true // a query of one character, searched when asked
		m.search.asked++
		return m.runSearch(m.search.asked)
	case "tab":
		switch {
		case m.search.scope != "":
			m.search.scope = ""
		case m.open != nil:
			m.search.scope = m.open.info.Name
		case m.opt.Tape != "":
			m.search.scope = m.opt.Tape
		}
		m.search.asked++
		m.search.limit = searchPage
		return m.runSearch(m.search.asked)
	case "ctrl+o":
		m.search.newest = !m.search.newest
		m.search.asked++
		m.search.limit = searchPage
		return m.runSearch(m.search.asked)
	}
	before := m.search.input.Value()
	m.search.input.key(k)
	return m.searchChanged(before)
}

// searchChanged asks for the search the input holds after a pause, when
// it changed from before.
func (m *Model) searchChanged(before string) tea.Cmd {
	if m.search.input.Value() == before {
		return nil
	}
	m.search.forced, m.search.limit = false, searchPage
	m.search.asked++
	asked := m.search.asked
	return tea.Tick(debounce, func(_ time.Time) tea.Msg { return debounceMsg{asked} })
}

// openHit opens the session of a search hit at its entry.
func (m *Model) openHit(tape, id string) tea.Cmd {
	s := sessions.Session{Name: tape}
	if i := slices.IndexFunc(m.list.all, func(s sessions.Session) bool { return s.Name == tape }); i >= 0 {
		s = m.list.all[i]
	}
	return m.openTape(s, id)
}

func (m *Model) sessionKey(k tea.KeyPressMsg) tea.Cmd {
	s := m.open
	if n, ok := moveKey(k.String(), max(1, m.bodyRows()/3)); ok {
		switch {
		case n < -1<<20:
			s.cursor = 0
		case n > 1<<20:
			s.cursor = lastVisible(s)
		default:
			s.move(n)
		}
		return nil
	}
	switch k.String() {
	case "q", "esc":
		m.screen, m.open = m.back, nil
		if m.screen == searchScreen {
			m.search.input.Focus()
		}
	case "enter", "tab":
		if b := m.selectedBlock(); b != nil {
			b.folded, b.linesAt = !b.folded, 0
			s.relayout()
		}
	case "[":
		s.jumpAnchor(-1)
	case "]":
		s.jumpAnchor(1)
	case "/":
		m.from = sessionScreen
		return m.startSearch(s.info.Name)
	case "r":
		return m.resume(s.info.Name, false)
	case "e":
		return m.export(s.info.Name)
	case "y":
		if b := m.selectedBlock(); b != nil {
			m.status = "copied " + b.kind + " " + b.id
			return tea.SetClipboard(blockText(b))
		}
	}
	return nil
}

// blockText is what y copies of a block: its text as written, a call's
// arguments and output.
func blockText(b *block) string {
	if b.kind == "call" {
		return b.who + " " + b.args + "\n\n" + b.text
	}
	return b.text
}

// paste puts pasted text in the input being typed in, if any.
func (m *Model) paste(text string) tea.Cmd {
	switch {
	case m.screen == searchScreen:
		before := m.search.input.Value()
		m.search.input.insert(text)
		return m.searchChanged(before)
	case m.filtering:
		m.filterIn.insert(text)
		m.list.filter = m.filterIn.Value()
		m.list.apply(m.opt.Now())
		return m.previewSelected()
	}
	return nil
}
