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
	"github.com/tape-dev/tape/testkit/poll"
)

// tmux runs tape ui as a person does, in a terminal of a given size, on a
// tmux server of the test's own.
type tmux struct {
	t      *testing.T
	socket string
	w, h   int
}

func startUI(t *testing.T, dir string, w, h int, env ...string) *tmux {
	t.Helper()
	m := &tmux{t: t, socket: filepath.Join(t.TempDir(), "tmux"), w: w, h: h}
	cmd := fmt.Sprintf("env TAPE_TEST_AS_CLI=1 TAPE_NAME= TAPE_DIR= TAPE_WATCH=off %s %q ui; sleep 30", strings.Join(env, " "), os.Args[0])
	m.run("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-c", dir, cmd)
	t.Cleanup(func() { exec.Command("tmux", "-S", m.socket, "kill-server").Run() }) //nolint:errcheck // gone is fine
	return m
}

func (m *tmux) run(args ...string) string {
	m.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", m.socket}, args...)...).CombinedOutput()
	if err != nil {
		m.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is what the terminal shows now; escapes keeps its colors.
func (m *tmux) screen(escapes bool) string {
	args := []string{"capture-pane", "-p"}
	if escapes {
		args = append(args, "-e")
	}
	return m.run(args...)
}

// waitFor waits until the screen shows every text, and returns it.
func (m *tmux) waitFor(texts ...string) string {
	m.t.Helper()
	var s string
	ok := poll.Wait(15*time.Second, func() bool {
		s = m.screen(false)
		for _, text := range texts {
			if !strings.Contains(s, text) {
				return false
			}
		}
		return true
	})
	if !ok {
		m.t.Fatalf("after 15 s the %dx%d screen does not show %q:\n%s", m.w, m.h, texts, s)
	}
	return s
}

// fits fails unless the screen is h lines of at most w columns.
func (m *tmux) fits(s string) {
	m.t.Helper()
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) != m.h {
		m.t.Fatalf("the screen has %d lines; the terminal %d", len(lines), m.h)
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w > m.w {
			m.t.Fatalf("line %d takes %d columns of %d: %q", i, w, m.w, l)
		}
	}
}

func (m *tmux) keys(keys ...string) { m.run(append([]string{"send-keys"}, keys...)...) }

// tape ui, the real binary in tmux at 80×24 and 200×50, on a workspace of
// real-shaped sessions with Chinese text: the list, a query typed a key at
// a time, a hit opened, a resize, quitting. tmux is there where .ci/run
// runs (TAPE_REQUIRE_TMUX=1); elsewhere the test runs when it is.
func TestUIInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("TAPE_REQUIRE_TMUX") == "1" {
			t.Fatalf("TAPE_REQUIRE_TMUX=1 but no tmux: %v", err)
		}
		return
	}
	t.Parallel()
	dir := t.TempDir()
	if _, err := corpus.GenerateSessions(filepath.Join(dir, ".tape"), corpus.SessionOptions{Tapes: 200, Seed: 37, ChineseShare: 0.5}); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "reindex")
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			m := startUI(t, dir, size[0], size[1])
			m.fits(m.waitFor("200 of 200 sessions", "folder", "enter open"))
			m.keys("/")
			for _, r := range "测试通过" {
				m.keys("-l", string(r))
			}
			s := m.waitFor("hits ·", "测试通过")
			m.fits(s)
			m.keys("Enter")
			s = m.waitFor("enter fold", "▌")
			m.fits(s)
			if colored := m.screen(true); !strings.Contains(colored, "\x1b[") {
				t.Fatalf("the screen has no colors:\n%q", colored)
			}
			m.run("resize-window", "-x", "60", "-y", "20")
			m.h, m.w = 20, 60
			m.fits(m.waitFor("enter fold"))
			m.keys("q")
			m.waitFor("search every tape")
			m.keys("Escape")
			m.waitFor("200 of 200 sessions")
			m.keys("q")
			m.waitFor() // the shell's sleep keeps the pane
		})
	}
}

// With NO_COLOR, the screen has no colors, and what must be seen
// without them (the selected row) keeps an attribute.
func TestUIInTmuxNoColor(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("TAPE_REQUIRE_TMUX") == "1" {
			t.Fatalf("TAPE_REQUIRE_TMUX=1 but no tmux: %v", err)
		}
		return
	}
	t.Parallel()
	dir := t.TempDir()
	if _, err := corpus.GenerateSessions(filepath.Join(dir, ".tape"), corpus.SessionOptions{Tapes: 20, Seed: 38}); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "reindex")
	m := startUI(t, dir, 100, 30, "NO_COLOR=1")
	m.waitFor("20 of 20 sessions")
	colored := m.screen(true)
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
