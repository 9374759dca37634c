package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadmeTour runs the README's tour, the shell block under "## A
// tour", as a person pastes it into a shell: one sh script, stopped by
// the first command that fails (set -e), in an empty folder, with a HOME
// that holds a Claude Code session and a Codex session for the importers
// to find. The tour is read from README.md when the test runs, so a
// command added to it is run too; docs_test.go checks that its commands
// parse, this that they work.
//
// What the README leaves to the reader is given here: a `producer` that
// writes one entry a line, and an end to what runs until interrupted
// (`tape log -f`, run for two seconds; what the tour starts with `&` is
// stopped when the script ends).
func TestReadmeTour(t *testing.T) {
	t.Parallel()
	tour := readmeTour(t)
	if len(tour) < 10 {
		t.Fatalf("README.md's tour has %d lines; did its heading or block change?", len(tour))
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	work := filepath.Join(dir, "work")
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{work, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The importers' samples hold bad lines on purpose, which make an
	// import exit 2; a person's sessions here are whole.
	copyTree(t, "../../testdata/import/claude/src", filepath.Join(home, ".claude", "projects"))
	copyTree(t, "../../testdata/import/codex/src/2025/10/29", filepath.Join(home, ".codex", "sessions", "2025", "10", "29"))
	copyTree(t, "../../testdata/import/qwen/src/-home-u-app/chats/archive", filepath.Join(home, ".qwen", "projects", "-home-u-app", "chats", "archive"))
	copyTree(t, "../../testdata/import/copilot/src/session-state/5e9d2b71-8c4a-4f3e-b1d6-2a7c9e0f4d83", filepath.Join(home, ".copilot", "session-state", "5e9d2b71-8c4a-4f3e-b1d6-2a7c9e0f4d83"))
	writeTapeCommand(t, bin)

	script := tourScript(tour)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TAPE_NAME=", "TAPE_DIR=", "CLAUDE_CONFIG_DIR=", "CODEX_HOME=", "QWEN_RUNTIME_DIR=", "QWEN_HOME=", "COPILOT_HOME=", "XDG_STATE_HOME=", "NO_COLOR=1")
	cmd.Env = append(cmd.Env, "OPENCLAW_STATE_DIR=", "CLAWDBOT_STATE_DIR=", "OPENCLAW_HOME=")
	cmd.WaitDelay = 10 * time.Second // a background command left running must not hold the output open
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the tour stopped (%v); the script:\n%s\nits output:\n%s", err, script, out)
	}
	// What a reader of the tour is told to expect, seen in its output.
	for _, want := range []string{
		"FAIL: TestFlush",                  // tape search flush finds the test by its part
		"list the files and add hello.txt", // tape tapes lists the imported Codex session
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the tour's output lacks %q:\n%s", want, out)
		}
	}
}

// readmeTour returns the lines of the first sh block after the README's
// "## A tour" heading.
func readmeTour(t *testing.T) []string {
	t.Helper()
	lines, _ := readDoc(t, "../../README.md")
	var tour []string
	in := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l.text, "## "):
			if in && len(tour) > 0 {
				return tour
			}
			in = l.text == "## A tour"
		case in && l.code && l.lang == "sh":
			tour = append(tour, l.text)
		case in && len(tour) > 0 && !l.code && strings.HasPrefix(l.text, "```"):
			return tour
		}
	}
	return tour
}

// tourScript makes the tour one script: set -e, a producer, the lines in
// order, a follow command given two seconds, and what runs in the
// background stopped at the end.
func tourScript(tour []string) string {
	var b strings.Builder
	b.WriteString("set -e\n")
	b.WriteString(`producer() { printf '%s\n' '{"kind":"message","payload":{"role":"user","content":"from a producer"}}'; }` + "\n")
	b.WriteString("pids=\n")
	b.WriteString("trap 'kill $pids 2>/dev/null || true' EXIT\n")
	for _, line := range tour {
		command := strings.TrimSpace(withoutComment(line))
		switch {
		case command == "":
		case strings.Contains(command, " -f") && !strings.HasSuffix(command, "&"):
			// Follows until interrupted, as tail -f: exit 124 is timeout's.
			b.WriteString("timeout 2 " + command + " || [ $? -eq 124 ]\n")
		case strings.HasSuffix(command, "&"):
			b.WriteString(line + "\n" + `pids="$pids $!"` + "\n")
		default:
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// withoutComment returns a line of shell without its comment: a # that
// starts a word outside quotes, to the end of the line.
func withoutComment(line string) string {
	var quote rune
	prev := ' '
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (prev == ' ' || prev == '\t'):
			return line[:i]
		}
		prev = r
	}
	return line
}

// jsonObjectLines returns the lines of data that are JSON objects.
func jsonObjectLines(data []byte) []byte {
	var out []byte
	for line := range bytes.Lines(data) {
		var v map[string]any
		if json.Unmarshal(line, &v) == nil {
			out = append(out, line...)
		}
	}
	return out
}

// writeTapeCommand puts a `tape` on the PATH that runs this test binary
// as the CLI (TestMain).
func writeTapeCommand(t *testing.T, bin string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nTAPE_TEST_AS_CLI=1 exec '" + self + "' \"$@\"\n"
	syscall.ForkLock.RLock() // as copyFile: no child inherits the script while it is open for writing
	defer syscall.ForkLock.RUnlock()
	if err := os.WriteFile(filepath.Join(bin, "tape"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the files under src to dst, the JSON objects of each
// *.jsonl file alone.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".jsonl") {
			data = jsonObjectLines(data)
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}
