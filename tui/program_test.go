package tui

import (
	"bytes"
	"context"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/tape-dev/tape/read"
)

// The model runs in bubbletea's own program loop (teatest, its test
// harness): the first screen, a search typed in, a hit opened, quitting.
func TestProgram(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := New(context.Background(), Options{Reader: f.reader, Poll: 50 * time.Millisecond})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	shows := func(text string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(out []byte) bool {
			return bytes.Contains([]byte(ansi.Strip(string(out))), []byte(text))
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	shows("deploy the web server")
	tm.Type("/")
	tm.Type("wombat")
	shows("claude-aaa · tool_result")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	shows("Bash")
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	if final.screen != sessionScreen || final.open == nil || final.open.info.Name != "claude-aaa" {
		t.Fatalf("the program ended on screen %d, session %+v; want claude-aaa open", final.screen, final.open)
	}
	if s := ansi.Strip(final.draw()); !strings.Contains(s, "▌") || !strings.Contains(s, "▸ Bash ✓") {
		t.Fatalf("the last screen shows no selection or no call:\n%s", s)
	}
}

// The line editor's keys edit as a shell's do, a character of any width
// at a time.
func TestInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		keys []string
		want string
		pos  int
	}{
		{[]string{"a", "b", "c"}, "abc", 3},
		{[]string{"a", "b", "left", "x"}, "axb", 2},
		{[]string{"构", "建", "backspace"}, "构", 1},
		{[]string{"g", "o", " ", "t", "e", "s", "t", "ctrl+w"}, "go ", 3},
		{[]string{"a", "b", "home", "ctrl+k"}, "", 0},
		{[]string{"a", "b", "c", "left", "ctrl+u"}, "c", 0},
		{[]string{"a", "ctrl+a", "delete", "end", "z"}, "z", 1},
	} {
		var in input
		for _, k := range tc.keys {
			if !in.key(keyPress(k)) {
				t.Errorf("%q: key %q not taken", tc.keys, k)
			}
		}
		if in.Value() != tc.want || in.pos != tc.pos {
			t.Errorf("%q: %q at %d; want %q at %d", tc.keys, in.Value(), in.pos, tc.want, tc.pos)
		}
	}
	var in input
	in.insert("pasted\nover \x1b[31mlines")
	if in.Value() != "pasted over lines" {
		t.Errorf("a paste reads %q; want it on one line, printable", in.Value())
	}
}

func TestArgsLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"command":"go test ./...","timeout":60}`, "go test ./..."},
		{`{"command":["bash","-lc","ls -la"]}`, "bash -lc ls -la"},
		{`{"file_path":"/w/a.go","offset":3}`, "/w/a.go"},
		{`{"command":"","path":"/w"}`, "/w"},
		{`{"todos":[1,2]}`, `{"todos":[1,2]}`},
		{`plain text`, `plain text`},
	} {
		if got := argsLine(tc.args); got != tc.want {
			t.Errorf("argsLine(%s) = %q; want %q", tc.args, got, tc.want)
		}
	}
}

// The colors follow the terminal's background: the accent of a light
// terminal is not a dark one's.
func TestThemeFollowsTheBackground(t *testing.T) {
	t.Parallel()
	d := newDriver(t, newFixture(t), Options{}, 80, 24)
	dark := d.m.draw()
	d.send(tea.BackgroundColorMsg{Color: color.White})
	light := d.m.draw()
	if dark == light || ansi.Strip(dark) != ansi.Strip(light) {
		t.Fatal("on a light background the screen is drawn in the same colors, or shows other text")
	}
	d.send(tea.BackgroundColorMsg{Color: color.Black})
	if d.m.draw() != dark {
		t.Fatal("back on a dark background the screen is not drawn as it was")
	}
}

// noResume is the index, with sessions no agent recorded.
type noResume struct{ Index }

func (n noResume) Resume(ctx context.Context, tape string) (read.Resume, error) {
	return read.Resume{Tape: tape}, nil
}

// r on a session no agent can reopen says so, and runs nothing; on one it
// can, it asks, and hands bubbletea the agent to run once enter says so
// (the folder and the id come from a transcript).
func TestResumeRunsTheAgent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := newDriver(t, f, Options{}, 120, 24)
	d.keys("r")
	d.wants("run cd /w/web && codex resume bbb? enter runs it")
	d.keys("j")
	if d.m.confirm != nil || d.m.list.cursor != 0 {
		t.Fatal("a key other than enter did not cancel the resume, or moved the list")
	}
	d.keys("r")
	if _, run := d.m.Update(keyPress("enter")); run == nil || d.m.confirm != nil {
		t.Fatal("enter after r runs nothing")
	}
	d = newDriver(t, f, Options{}, 120, 24)
	d.m.opt.Reader = noResume{f.reader}
	d.keys("r")
	d.wants("is no agent's session")
}
