package tui

import (
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tape-dev/tape/projector"
)

// previewEntries are how many entries of the selected session the
// preview reads.
const previewEntries = 40

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.redraw()
	case tea.BackgroundColorMsg:
		m.theme = newTheme(msg.IsDark())
		m.redraw()
	case sessionsMsg:
		return m, m.sessionsRead(msg)
	case entriesMsg:
		return m, m.entriesRead(msg)
	case debounceMsg:
		if msg.asked == m.search.asked {
			return m, m.runSearch(msg.asked)
		}
	case searchMsg:
		m.searched(msg)
	case previewMsg:
		if s, ok := m.list.selected(); ok && s.Name == msg.tape {
			return m, m.readEntries(msg.tape, 0, previewEntries, true)
		}
	case tickMsg:
		return m, m.look()
	case versionMsg:
		return m, m.looked(msg)
	case resumeMsg:
		return m, m.resumed(msg)
	case doneMsg:
		m.status = msg.what
		if msg.err != nil {
			m.status += ": " + msg.err.Error()
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			return m, m.moveBy(-3)
		case tea.MouseWheelDown:
			return m, m.moveBy(3)
		}
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		return m, m.paste(msg.Content)
	}
	return m, nil
}

// redraw has the open session drawn again (a new width, a new theme).
func (m *Model) redraw() {
	if m.open != nil {
		m.open.redraw()
	}
	if m.preview != nil {
		m.preview.redraw()
	}
}

func (m *Model) sessionsRead(msg sessionsMsg) tea.Cmd {
	if msg.asked < m.shownList {
		return nil // a read older than the one shown
	}
	if msg.err != nil {
		m.status = "sessions: " + msg.err.Error()
		return nil
	}
	m.shownList = msg.asked
	first := !m.list.loaded
	m.list.all, m.list.total, m.list.loaded = msg.all, msg.total, true
	m.list.apply(m.opt.Now())
	var rest tea.Cmd
	if len(msg.all) < msg.total {
		rest = m.loadSessions(0)
	}
	if m.open != nil && m.open.info.Title == "" { // opened by name before the list came
		for _, s := range msg.all {
			if s.Name == m.open.info.Name {
				m.open.info = s
			}
		}
	}
	if first {
		return tea.Batch(rest, m.previewSelected())
	}
	return rest
}

// previewSelected asks for the preview of the selected session, once the
// selection rests on it.
func (m *Model) previewSelected() tea.Cmd {
	s, ok := m.list.selected()
	if !ok || m.preview != nil && m.preview.info.Name == s.Name {
		return nil
	}
	m.preview = newSession(s, "")
	return tea.Tick(2*debounce, func(_ time.Time) tea.Msg { return previewMsg{s.Name} })
}

func (m *Model) entriesRead(msg entriesMsg) tea.Cmd {
	s := m.open
	if msg.preview {
		s = m.preview
	}
	if s == nil || s.info.Name != msg.tape || s.read != msg.offset {
		return nil // an answer for a session no longer shown, or one read since
	}
	s.reading = false
	if msg.err != nil {
		m.status = fmt.Sprintf("read %s: %v", oneLine(msg.tape), msg.err)
		return nil
	}
	following := s.loaded && s.cursor == lastVisible(s)
	s.chat.add(msg.got.Entries)
	s.anchors, s.counts, s.read, s.loaded = msg.got.Tape, msg.got.Counts, s.read+len(msg.got.Entries), true
	switch {
	case s.focusID != "":
		s.selectID(s.focusID)
		s.focusID = ""
	case following:
		s.cursor = lastVisible(s)
	}
	s.relayout()
	if s.again { // the index moved while this was read
		s.again = false
		return m.readMore(s)
	}
	return nil
}

// readMore reads what was written past the entries a session shows, one
// read at a time: a look while one is under way asks for another after.
func (m *Model) readMore(s *sessionState) tea.Cmd {
	if s.reading {
		s.again = true
		return nil
	}
	s.reading = true
	return m.readEntries(s.info.Name, s.read, 0, false)
}

// lastVisible is the last block a session shows.
func lastVisible(s *sessionState) int {
	for i := len(s.chat.blocks) - 1; i > 0; i-- {
		if s.visible(i) {
			return i
		}
	}
	return 0
}

func (m *Model) searched(msg searchMsg) {
	if msg.asked != m.search.asked {
		return // typed on since
	}
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	s := &m.search
	was, _ := s.selected()
	s.err, s.shown = "", s.input.Value()
	if msg.err != nil {
		s.hits, s.more, s.err = nil, false, msg.err.Error()
		return
	}
	s.hits, s.more = msg.found.Hits, msg.found.More
	at := 0
	if s.keep { // a look's, or more of the same: the selection stays on its hit
		at = max(0, slices.IndexFunc(s.hits, func(h projector.Hit) bool {
			return h.Entry.ID == was.Entry.ID && h.Entry.Pos.Tape == was.Entry.Pos.Tape
		}))
	}
	s.keep, s.cursor = false, at
	s.top = scrollTo(min(s.top, at), at, m.hitRows())
}

// looked rereads what changed when the index's version moved.
func (m *Model) looked(msg versionMsg) tea.Cmd {
	cmds := []tea.Cmd{m.tick()}
	if msg.err != nil || msg.version == m.version {
		return tea.Batch(cmds...)
	}
	// The first look reads again too: the first page was read from the
	// index as it stood, before this look made it fresh.
	m.version = msg.version
	cmds = append(cmds, m.loadSessions(0))
	if m.preview != nil { // read again: a new session's first entries come as they are written
		m.preview = nil
		cmds = append(cmds, m.previewSelected())
	}
	if m.open != nil && m.open.loaded {
		cmds = append(cmds, m.readMore(m.open))
	}
	if m.screen == searchScreen {
		m.search.asked++
		m.search.keep = true
		cmds = append(cmds, m.runSearch(m.search.asked))
	}
	return tea.Batch(cmds...)
}

// moveBy moves the selection of the screen shown.
func (m *Model) moveBy(n int) tea.Cmd {
	switch m.screen {
	case listScreen:
		m.list.move(n, m.listRows())
		return m.previewSelected()
	case searchScreen:
		return m.moveHits(n)
	case sessionScreen:
		m.open.move(n)
	}
	return nil
}

// moveHits moves the selected hit, and asks for more hits once the last
// is selected.
func (m *Model) moveHits(n int) tea.Cmd {
	s := &m.search
	s.move(n, m.hitRows())
	if !s.more || s.cursor != len(s.hits)-1 {
		return nil
	}
	s.limit, s.keep = len(s.hits)+searchPage, true
	s.asked++
	return m.runSearch(s.asked)
}

// selectedBlock is the block selected in the open session, or nil.
func (m *Model) selectedBlock() *block {
	if m.open == nil || m.open.cursor >= len(m.open.chat.blocks) {
		return nil
	}
	return m.open.chat.blocks[m.open.cursor]
}
