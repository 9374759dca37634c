package tui

import (
	"context"
	"os/exec"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/views/sessions"
)

// Options are what the UI is given.
type Options struct {
	Reader Reader
	// Tape, when not "", is the session opened first, and the one
	// searched until tab widens the search to every tape.
	Tape string
	// Export writes a session to a file and says where (package export,
	// redacted); nil leaves e out.
	Export func(ctx context.Context, tape string) (string, error)
	Now    func() time.Time // time.Now when nil
	// Poll is how often the index is made fresh and the screens reread
	// when it changed: new entries appear as agents write them. 0 is a
	// second; below 0, never (a test sends the looks itself).
	Poll time.Duration
}

// screen is what the UI shows.
type screen int

const (
	listScreen screen = iota
	searchScreen
	sessionScreen
)

// Model is the UI's state; Update changes it, View draws it.
type Model struct {
	opt       Options
	ctx       context.Context
	w, h      int
	theme     theme
	screen    screen
	back      screen // where q goes from the session: the list or the search
	from      screen // where esc goes from the search: the list or the session
	list      sessionList
	filterIn  input
	filtering bool
	search    searchState
	open      *sessionState
	preview   *sessionState // the first entries of the session selected in the list
	status    string        // a line saying what happened
	confirm   *read.Resume  // a resume asked for, run once enter confirms it
	asked     int           // the number of the last read of the sessions asked
	shownList int           // the number of the read of the sessions the list shows
	version   string        // the index's, at the last look
	cancel    context.CancelFunc
	first     chan tea.Msg // the first page of sessions, read from New on
}

// New is the UI's model; ctx bounds every read it makes.
func New(ctx context.Context, opt Options) *Model {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Poll == 0 {
		opt.Poll = time.Second
	}
	in := input{prompt: "filter: ", placeholder: "words · source:claude project:tape since:2d"}
	m := &Model{opt: opt, ctx: ctx, w: 80, h: 24, theme: newTheme(true), filterIn: in, search: newSearch(), first: make(chan tea.Msg, 1)}
	m.search.scope = opt.Tape
	// The first page is read while bubbletea sets the terminal up: 20 ms
	// of a 100 ms start at 10,000 sessions (tape-bench ui).
	first := m.loadSessions(firstPage)
	go func() { m.first <- first() }()
	return m
}

// Messages the commands send back. Each says what asked for it, so that an
// answer to a question no longer asked is dropped.
type (
	sessionsMsg struct {
		asked int // the number of the read
		all   []sessions.Session
		total int // of which all may be the first page
		err   error
	}
	entriesMsg struct {
		tape    string
		offset  int
		preview bool
		got     read.Entries
		err     error
	}
	searchMsg struct {
		asked int
		found read.Found
		err   error
	}
	debounceMsg struct{ asked int }
	previewMsg  struct{ tape string }
	tickMsg     struct{}
	versionMsg  struct {
		version string
		err     error
	}
	resumeMsg struct {
		r    read.Resume
		copy bool // copy the command rather than run it
		err  error
	}
	doneMsg struct {
		what string // what was done, or failed
		err  error
	}
)

func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, func() tea.Msg { return <-m.first }, m.tick()}
	if m.opt.Tape != "" {
		cmds = append(cmds, m.openTape(sessions.Session{Name: m.opt.Tape}, ""))
	}
	return tea.Batch(cmds...)
}

// firstPage is how many sessions the first screen reads, before the
// rest: reading 10,000 took 150 ms, and a screen shows 50.
const firstPage = 100

// loadSessions reads the first limit sessions (0: all of them).
func (m *Model) loadSessions(limit int) tea.Cmd {
	m.asked++
	asked := m.asked
	return func() tea.Msg {
		all, total, err := m.opt.Reader.Sessions(m.ctx, limit)
		return sessionsMsg{asked, all, total, err}
	}
}

func (m *Model) tick() tea.Cmd {
	if m.opt.Poll < 0 {
		return nil
	}
	return tea.Tick(m.opt.Poll, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m *Model) look() tea.Cmd {
	return func() tea.Msg {
		v, err := m.opt.Reader.Version(m.ctx)
		return versionMsg{v, err}
	}
}

// readEntries reads a session's entries from offset on.
func (m *Model) readEntries(tape string, offset, limit int, preview bool) tea.Cmd {
	return func() tea.Msg {
		got, err := m.opt.Reader.Entries(m.ctx, tape, offset, limit)
		return entriesMsg{tape: tape, offset: offset, preview: preview, got: got, err: err}
	}
}

// openTape opens a session, selecting the entry focusID once read.
func (m *Model) openTape(s sessions.Session, focusID string) tea.Cmd {
	if m.screen != sessionScreen {
		m.back = m.screen
	}
	m.open, m.screen = newSession(s, focusID), sessionScreen
	m.open.reading = true
	return m.readEntries(s.Name, 0, 0, false)
}

// runSearch asks the search the input holds, cancelling the one before.
func (m *Model) runSearch(asked int) tea.Cmd {
	q, why, ok := m.search.query(m.list.all, m.opt.Now())
	if !ok {
		m.search.hits, m.search.more, m.search.err, m.search.shown = nil, false, why, m.search.input.Value()
		return nil
	}
	if m.cancel != nil {
		m.cancel()
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancel = cancel
	return func() tea.Msg {
		found, err := m.opt.Reader.Search(ctx, q)
		return searchMsg{asked: asked, found: found, err: err}
	}
}

func (m *Model) resume(tape string, copy bool) tea.Cmd {
	return func() tea.Msg {
		r, err := m.opt.Reader.Resume(m.ctx, tape)
		return resumeMsg{r: r, copy: copy, err: err}
	}
}

func (m *Model) export(tape string) tea.Cmd {
	if m.opt.Export == nil {
		return nil
	}
	m.status = "exporting " + tape + "…"
	return func() tea.Msg {
		path, err := m.opt.Export(m.ctx, tape)
		return doneMsg{what: "exported " + tape + " to " + path, err: err}
	}
}

// resumed copies a session's resume command, or asks to run it: the
// folder and the id come from a transcript, and tape resume runs them
// only with --exec, so one key does not.
func (m *Model) resumed(msg resumeMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.status = "resume: " + msg.err.Error()
	case msg.r.Argv == nil:
		m.status = msg.r.Missing()
	case msg.copy:
		m.status = "copied: " + msg.r.Shell()
		return tea.SetClipboard(msg.r.Shell())
	default:
		m.confirm = &msg.r
		m.status = "run " + msg.r.Shell() + "? enter runs it, any other key does not"
	}
	return nil
}

// runResume runs the confirmed resume command, the UI suspended until
// the agent exits.
func (m *Model) runResume(r read.Resume) tea.Cmd {
	cmd := exec.Command(r.Argv[0], r.Argv[1:]...)
	cmd.Dir = r.CWD
	what := "back from " + r.Shell()
	return tea.ExecProcess(cmd, func(err error) tea.Msg { return doneMsg{what: what, err: err} })
}
