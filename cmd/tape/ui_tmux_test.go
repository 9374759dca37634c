package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/tape-dev/tape/testkit/corpus"
	"github.com/tape-dev/tape/testkit/tmux"
)

// uiWorkspace is a workspace of real-shaped sessions, indexed, for tape
// ui in tmux; false where there is no tmux and none is required. tmux is
// there where .ci/run runs (TAPE_REQUIRE_TMUX=1).
func uiWorkspace(t *testing.T, opts corpus.SessionOptions) (string, bool) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("TAPE_REQUIRE_TMUX") == "1" {
			t.Fatalf("TAPE_REQUIRE_TMUX=1 but no tmux: %v", err)
		}
		return "", false
	}
	dir := t.TempDir()
	if _, err := corpus.GenerateSessions(filepath.Join(dir, ".tape"), opts); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "reindex")
	return dir, true
}

// uiTerm is tape ui, this test binary standing in for tape, in tmux.
type uiTerm struct {
	t *testing.T
	s *tmux.Server
}

func startUI(t *testing.T, dir string, w, h int, env ...string) *uiTerm {
	t.Helper()
	s := &tmux.Server{Socket: filepath.Join(t.TempDir(), "tmux"), W: w, H: h}
	cmd := fmt.Sprintf("env TAPE_TEST_AS_CLI=1 TAPE_NAME= TAPE_DIR= TAPE_WATCH=off %s %q ui; sleep 30", strings.Join(env, " "), os.Args[0])
	if err := s.Start(dir, cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Kill)
	return &uiTerm{t: t, s: s}
}

func (u *uiTerm) keys(keys ...string) {
	u.t.Helper()
	if err := u.s.Keys(keys...); err != nil {
		u.t.Fatal(err)
	}
}

// waitFor waits until the screen shows every text, checks that it fits
// the terminal, and returns it.
func (u *uiTerm) waitFor(texts ...string) string {
	u.t.Helper()
	s, err := u.s.WaitFor(15*time.Second, texts...)
	if err != nil {
		u.t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) != u.s.H {
		u.t.Fatalf("the screen has %d lines; the terminal %d", len(lines), u.s.H)
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w > u.s.W {
			u.t.Fatalf("line %d takes %d columns of %d: %q", i, w, u.s.W, l)
		}
	}
	return s
}

func (u *uiTerm) colored() string {
	u.t.Helper()
	s, err := u.s.Screen(true)
	if err != nil {
		u.t.Fatal(err)
	}
	return s
}

// tape ui, the real binary in tmux at 80×24 and 200×50, on a workspace of
// real-shaped sessions with Chinese text: the list, a query typed a key at
// a time, a hit opened, a resize, quitting.
func TestUIInTmux(t *testing.T) {
	dir, ok := uiWorkspace(t, corpus.SessionOptions{Tapes: 200, Seed: 37, ChineseShare: 0.5})
	if !ok {
		return
	}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			u := startUI(t, dir, size[0], size[1])
			u.waitFor("200 of 200 sessions", "folder", "enter open")
			u.keys("/")
			if err := u.s.Type("测试通过"); err != nil {
				t.Fatal(err)
			}
			u.waitFor("hits ·", "测试通过")
			u.keys("Enter")
			u.waitFor("enter fold", "▌")
			if !strings.Contains(u.colored(), "\x1b[") {
				t.Fatalf("the screen has no colors:\n%q", u.colored())
			}
			if err := u.s.Resize(60, 20); err != nil {
				t.Fatal(err)
			}
			u.waitFor("q back")
			u.keys("q")
			u.waitFor("search every tape")
			u.keys("Escape")
			u.waitFor("200 of 200 sessions")
			u.keys("q")
			if _, err := u.s.WaitUntil(15*time.Second, func(s string) bool { return !strings.Contains(s, "q quit") }); err != nil {
				t.Fatalf("tape ui did not quit on q: %v", err) // the shell's sleep keeps the pane, empty
			}
		})
	}
}

// With NO_COLOR, the screen has no colors, and what must be seen
// without them (the selected row) keeps an attribute.
func TestUIInTmuxNoColor(t *testing.T) {
	dir, ok := uiWorkspace(t, corpus.SessionOptions{Tapes: 20, Seed: 38})
	if !ok {
		return
	}
	u := startUI(t, dir, 100, 30, "NO_COLOR=1")
	u.waitFor("20 of 20 sessions")
	colored := u.colored()
	if c := sgrColor(colored); c != "" {
		t.Fatalf("with NO_COLOR the screen has a color (%q):\n%q", c, colored)
	}
	if !strings.Contains(colored, "7m") {
		t.Fatalf("with NO_COLOR the selected row is not in reverse:\n%q", colored)
	}
	if sgrColor("\x1b[0;38;5;12mx") == "" || sgrColor("\x1b[31mx") == "" {
		t.Fatal("sgrColor finds no color in colored text")
	}
}

// sgrColor is the first SGR sequence of s that sets a color (30-38,
// 40-48, 90-97, 100-107; 39 and 49, the defaults, are none), or "".
func sgrColor(s string) string {
	for _, seq := range sgrSequence.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.Split(seq[1], ";") {
			n, err := strconv.Atoi(p)
			if err == nil && (n >= 30 && n <= 38 || n >= 40 && n <= 48 || n >= 90 && n <= 97 || n >= 100 && n <= 107) {
				return seq[0]
			}
		}
	}
	return ""
}

var sgrSequence = regexp.MustCompile(`\x1b\[([0-9;]*)m`)

// tape ui needs a terminal, and says what prints instead.
func TestUINeedsATerminal(t *testing.T) {
	t.Parallel()
	_, stderr, code := runTape(t, newCLIWorkspace(t), "ui")
	if code != exitUsage || !strings.Contains(stderr, "tape ui draws on a terminal") {
		t.Fatalf("tape ui without a terminal: exit %d, %q", code, stderr)
	}
}
