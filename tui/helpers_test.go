package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tape-dev/tape/fresh"
	tapelog "github.com/tape-dev/tape/log"
)

// secret is a token planted in a message, for the export to redact.
const secret = "ghp_" + "Zx9aB3dE5fG7hJ2kL4mN6pQ8rS0tU1vW3xY5"

// sessionFiles are two imported sessions, written as the importers
// write them: Claude Code's, in Chinese and English with a tool call, a
// result, thoughts and a second anchor; Codex's, short.
var sessionFiles = map[string]string{
	"tapes/claude-aaa/anchors/001_session-start/anchor.json": `{"id":"a1","kind":"anchor","payload":{"name":"session/start","state":{"source":"claude","session_id":"aaa","cwd":"/w/tape"}},"date":"2026-11-20T10:00:00Z"}`,
	"tapes/claude-aaa/anchors/001_session-start/messages.jsonl": jsonl(`{"id":"m1","kind":"message","payload":{"role":"user","content":"修复 flaky 测试 in the parser, token `+secret+`"},"meta":{"cwd":"/w/tape"},"date":"2026-11-20T10:00:01Z"}`) +
		jsonl(`{"id":"m2","kind":"message","payload":{"role":"assistant","content":"I will run the parser tests first."},"date":"2026-11-20T10:00:02Z"}`),
	"tapes/claude-aaa/anchors/001_session-start/tool_calls.jsonl": jsonl(`{"id":"c1","kind":"tool_call","payload":{"calls":[{"id":"call_1","type":"function","function":{"name":"Bash","arguments":"{\"command\":\"go test ./parser\"}"}}]},"date":"2026-11-20T10:00:03Z"}`) +
		jsonl(`{"id":"r1","kind":"tool_result","payload":{"results":["ok  \tparser\t0.1s wombat"]},"meta":{"tool_call_ids":["call_1"]},"date":"2026-11-20T10:00:04Z"}`),
	"tapes/claude-aaa/anchors/001_session-start/events.jsonl":  jsonl(`{"id":"t1","kind":"event","payload":{"name":"thinking","data":{"thinking":"the cache is stale \u001b[2J here"}},"date":"2026-11-20T10:00:05Z"}`),
	"tapes/claude-aaa/anchors/002_compact/anchor.json":         `{"id":"a2","kind":"anchor","payload":{"name":"compact","state":{}},"date":"2026-11-20T11:00:00Z"}`,
	"tapes/claude-aaa/anchors/002_compact/messages.jsonl":      jsonl(`{"id":"m3","kind":"message","payload":{"role":"assistant","content":"日本語のテキストも大丈夫です"},"date":"2026-11-20T11:00:01Z"}`),
	"tapes/codex-bbb/anchors/001_session-start/anchor.json":    `{"id":"b1","kind":"anchor","payload":{"name":"session/start","state":{"source":"codex","session_id":"bbb","cwd":"/w/web"}},"date":"2026-11-21T09:00:00Z"}`,
	"tapes/codex-bbb/anchors/001_session-start/messages.jsonl": jsonl(`{"id":"n1","kind":"message","payload":{"role":"user","content":"deploy the web server"},"date":"2026-11-21T09:00:01Z"}`),
}

func jsonl(s string) string { return s + "\n" }

// fixture is a workspace of sessionFiles and its index as tape ui reads
// it.
type fixture struct {
	dir    string // the .tape folder
	ws     *tapelog.Workspace
	served *fresh.Served
	reader Index
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), tapelog.DirName)
	for name, content := range sessionFiles {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tapelog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	served := fresh.NewServed(ws, "tape ui test", fresh.Reading{})
	t.Cleanup(func() { served.Close(); ws.Close() })
	f := &fixture{dir: dir, ws: ws, served: served, reader: Index{Served: served}}
	if _, err := f.reader.Version(context.Background()); err != nil { // builds the index
		t.Fatal(err)
	}
	return f
}

// driver runs a Model as bubbletea would, one message at a time: each
// command's message is handed back to Update, until none is left.
type driver struct {
	t *testing.T
	m *Model
}

func newDriver(t *testing.T, f *fixture, opt Options, w, h int) *driver {
	t.Helper()
	opt.Reader, opt.Poll = f.reader, -1
	opt.Now = func() time.Time { return time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) }
	d := &driver{t: t, m: New(context.Background(), opt)}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.run(d.m.Init())
	return d
}

// send hands msg to the model and runs what it asks.
func (d *driver) send(msg tea.Msg) {
	d.t.Helper()
	_, cmd := d.m.Update(msg)
	d.run(cmd)
}

func (d *driver) run(cmd tea.Cmd) {
	d.t.Helper()
	if cmd == nil {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(10 * time.Second):
		d.t.Fatal("a command ran 10 s")
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
	case nil:
	default:
		if isProgramMsg(msg) {
			return // bubbletea's own: quit, clipboard, exec, background color
		}
		d.send(msg)
	}
}

// isProgramMsg reports whether msg is one bubbletea acts on itself.
func isProgramMsg(msg tea.Msg) bool {
	switch msg.(type) {
	case sessionsMsg, entriesMsg, searchMsg, debounceMsg, previewMsg, tickMsg, versionMsg, resumeMsg, doneMsg:
		return false
	}
	return true
}

// keys presses each key: a name (enter, esc, up, ctrl+o) or a rune.
func (d *driver) keys(keys ...string) {
	d.t.Helper()
	for _, k := range keys {
		d.send(keyPress(k))
	}
}

// typeText types text a rune at a time.
func (d *driver) typeText(text string) {
	d.t.Helper()
	for _, r := range text {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyPress(k string) tea.KeyPressMsg {
	named := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "tab": tea.KeyTab,
		"pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd, "backspace": tea.KeyBackspace, "delete": tea.KeyDelete}
	if code, ok := named[k]; ok {
		return tea.KeyPressMsg{Code: code}
	}
	if rest, ok := strings.CutPrefix(k, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: rune(rest[0]), Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// screen is what the model draws, without its colors, after checking
// that it is h lines of at most w columns.
func (d *driver) screen() string {
	d.t.Helper()
	drawn := d.m.draw()
	lines := strings.Split(drawn, "\n")
	if len(lines) != d.m.h {
		d.t.Fatalf("the screen has %d lines; the terminal %d:\n%s", len(lines), d.m.h, ansi.Strip(drawn))
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w > d.m.w {
			d.t.Fatalf("line %d takes %d columns; the terminal %d: %q", i, w, d.m.w, ansi.Strip(l))
		}
	}
	return ansi.Strip(drawn)
}

// wants fails unless the screen shows each text.
func (d *driver) wants(texts ...string) {
	d.t.Helper()
	s := d.screen()
	for _, text := range texts {
		if !strings.Contains(s, text) {
			d.t.Fatalf("the screen does not show %q:\n%s", text, s)
		}
	}
}

// lacks fails if the screen shows any of the texts.
func (d *driver) lacks(texts ...string) {
	d.t.Helper()
	s := d.screen()
	for _, text := range texts {
		if strings.Contains(s, text) {
			d.t.Fatalf("the screen shows %q:\n%s", text, s)
		}
	}
}
