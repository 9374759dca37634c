// Package tmux runs a command in a terminal of a given size on a tmux
// server of its own, types into it and reads its screen: tape ui's test
// (cmd/tape) and tape-bench's screenshots drive the real binary with it.
package tmux

import (
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Server is a tmux server of one window, on its own socket.
type Server struct {
	Socket string // a path of the caller's (a temporary folder's)
	W, H   int
}

// Run runs a tmux command on the server and returns its output.
func (s *Server) Run(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-S", s.Socket}, args...)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("tmux %v: %w: %s", args, err, out)
	}
	return string(out), nil
}

// Start starts the server, its one window W×H running the shell command
// in dir. The command should keep the pane open once the program ends
// (`; sleep 30`), so that its last screen can be read.
func (s *Server) Start(dir, command string) error {
	_, err := s.Run("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(s.W), "-y", fmt.Sprint(s.H), "-c", dir, command)
	return err
}

// Kill stops the server; one already gone is not an error.
func (s *Server) Kill() { exec.Command("tmux", "-S", s.Socket, "kill-server").Run() } //nolint:errcheck // gone is fine

// Keys presses keys by tmux's names (Enter, Escape, C-o) or as one
// character each.
func (s *Server) Keys(keys ...string) error {
	for _, k := range keys {
		args := []string{"send-keys", k}
		if len([]rune(k)) == 1 {
			args = []string{"send-keys", "-l", k} // a character, never a key name
		}
		if _, err := s.Run(args...); err != nil {
			return err
		}
	}
	return nil
}

// Type types text a character at a time.
func (s *Server) Type(text string) error {
	for _, r := range text {
		if err := s.Keys(string(r)); err != nil {
			return err
		}
	}
	return nil
}

// Screen is what the window shows; with escapes, its colors and
// attributes as SGR escape sequences.
func (s *Server) Screen(escapes bool) (string, error) {
	args := []string{"capture-pane", "-p"}
	if escapes {
		args = append(args, "-e")
	}
	return s.Run(args...)
}

// WaitFor polls the screen until it shows every text, for at most
// timeout, and returns it.
func (s *Server) WaitFor(timeout time.Duration, texts ...string) (string, error) {
	screen, err := s.WaitUntil(timeout, func(screen string) bool { return showsAll(screen, texts) })
	if err != nil {
		return screen, fmt.Errorf("%w: it does not show %q", err, texts)
	}
	return screen, nil
}

// WaitUntil polls the screen until ok says it is what is waited for,
// for at most timeout, and returns it.
func (s *Server) WaitUntil(timeout time.Duration, ok func(screen string) bool) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		screen, err := s.Screen(false)
		if err != nil {
			return "", err
		}
		if ok(screen) {
			return screen, nil
		}
		if time.Now().After(deadline) {
			return screen, fmt.Errorf("after %v, the %dx%d screen:\n%s", timeout, s.W, s.H, screen)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Settled waits until the screen stays the same across two looks 100 ms
// apart (what a program draws after a key has come: a preview, hits),
// for at most timeout.
func (s *Server) Settled(timeout time.Duration) (string, error) {
	last := ""
	return s.WaitUntil(timeout, func(screen string) bool {
		same := screen == last
		last = screen
		if !same {
			time.Sleep(100 * time.Millisecond)
		}
		return same
	})
}

func showsAll(screen string, texts []string) bool {
	for _, t := range texts {
		if !strings.Contains(screen, t) {
			return false
		}
	}
	return true
}

// Resize makes the window w×h.
func (s *Server) Resize(w, h int) error {
	if _, err := s.Run("resize-window", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h)); err != nil {
		return err
	}
	s.W, s.H = w, h
	return nil
}
