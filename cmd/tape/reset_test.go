package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tape-dev/tape/testkit/pty"
)

// resetFixture is a workspace with two anchors and three entries.
func resetFixture(t *testing.T) string {
	t.Helper()
	dir := newCLIWorkspace(t)
	mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"旧会话"}`)
	mustRun(t, dir, "handoff", "plan")
	mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"old-plan-word"}`)
	mustRun(t, dir, "append", "--kind", "event", `{"n":1}`)
	mustRun(t, dir, "log") // the index knows the old tape
	return dir
}

func TestCLIReset(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		archive bool
	}{{"delete", false}, {"archive", true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := resetFixture(t)
			args := []string{"reset", "--yes", "--json"}
			if tc.archive {
				args = append(args, "--archive")
			}
			rec := jsonRecords(t, mustRun(t, dir, args...))[0]
			if fmt.Sprint(rec["anchors"]) != "[001_session-start 002_plan]" || rec["anchor"] != "001_session-start" {
				t.Errorf("reset --json = %v", rec)
			}
			// A read right after the reset shows the new tape, not the index's old rows.
			logged := jsonRecords(t, mustRun(t, dir, "log", "--all", "--json"))
			if len(logged) != 1 || logged[0]["kind"] != "anchor" {
				t.Fatalf("log --all after reset = %v, want the bootstrap anchor alone", logged)
			}
			if out, _, code := runTape(t, dir, "search", "old-plan-word"); code != exitNoMatch {
				t.Errorf("search finds an old entry after the reset (exit %d): %s", code, out)
			}
			state := logged[0]["payload"].(map[string]any)["state"].(map[string]any)
			if !tc.archive {
				if rec["deleted"] == nil || rec["archived"] != nil || len(state) != 1 || state["owner"] != "human" {
					t.Errorf("reset without --archive: %v, state %v", rec, state)
				}
				if _, err := os.Stat(filepath.Join(dir, ".tape/archive")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("an archive folder was made without --archive: %v", err)
				}
				return
			}
			archived, _ := rec["archived"].(string)
			if state["owner"] != "human" || state["archived"] != archived || !strings.HasPrefix(archived, ".tape/archive/main-") {
				t.Errorf("bootstrap state = %v, archived %q", state, archived)
			}
			old, err := os.ReadFile(filepath.Join(dir, archived, "002_plan", "messages.jsonl"))
			if err != nil || !strings.Contains(string(old), "old-plan-word") {
				t.Errorf("the archive lacks the old entries: %q, %v", old, err)
			}
		})
	}
}

// openPTY opens a new pseudo-terminal and returns its two ends.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, s, err := pty.Open(80, 24)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// On a terminal, tape reset asks, and does what the answer says.
func TestResetAsksOnTerminal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		answer  string
		code    int
		entries int // after
	}{{"y\n", exitOK, 1}, {"n\n", exitUsage, 5}, {"\n", exitUsage, 5}} {
		t.Run(strings.TrimSpace(tc.answer), func(t *testing.T) {
			dir := resetFixture(t)
			master, slave := openPTY(t)
			cmd := tapeProcess(dir, "reset")
			var stderr bytes.Buffer
			cmd.Stdin, cmd.Stderr = slave, &stderr
			if _, err := master.WriteString(tc.answer); err != nil {
				t.Fatal(err)
			}
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(stderr.String(), `reset tape "main" (3 entries, 2 anchors)? [y/N]`) {
				t.Errorf("answer %q: exit %d, stderr %q; want exit %d after the question", tc.answer, code, stderr.String(), tc.code)
			}
			if got := len(logIDs(t, dir)); got != tc.entries {
				t.Errorf("answer %q: the tape holds %d entries, want %d", tc.answer, got, tc.entries)
			}
		})
	}
}
