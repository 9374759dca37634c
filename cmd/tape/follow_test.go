package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// `tape log -f`, as a real process: the entries there are, then each one
// written after, by tape or by hand, new anchors included, until SIGINT.
func TestLogFollowPrintsWhatIsWritten(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	if _, errOut, code := runTape(t, dir, "append", "--kind", "message", `{"role":"user","content":"before"}`); code != 0 {
		t.Fatal(errOut)
	}
	cmd := tapeProcess(dir, "log", "-f", "--json")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	expect := func(what string) {
		t.Helper()
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("tape log -f ended before %q: %s", what, stderr.String())
			}
			if !strings.Contains(line, what) {
				t.Fatalf("tape log -f printed %s; want %q next", line, what)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("tape log -f did not print %q within 20s", what)
		}
	}
	expect(`"kind":"anchor"`)
	expect(`"content":"before"`)

	runTape(t, dir, "append", "--kind", "message", `{"role":"user","content":"跟随 one"}`)
	expect(`"content":"跟随 one"`)
	hand := filepath.Join(dir, ".tape/tapes/main/anchors/001_session-start/hand.jsonl")
	f, err := os.OpenFile(hand, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `{"role":"user","content":"by hand"}`)
	f.Close()
	expect(`"content":"by hand"`)
	runTape(t, dir, "handoff", "review")
	expect(`"payload":{"name":"review"`)
	runTape(t, dir, "append", "--kind", "message", `{"role":"user","content":"after the handoff"}`)
	expect(`"content":"after the handoff"`)
	if _, errOut, code := runTape(t, dir, "reset", "--yes"); code != 0 {
		t.Fatalf("tape reset: %s", errOut)
	}
	expect(`"payload":{"name":"session/start"`)
	runTape(t, dir, "append", "--kind", "message", `{"role":"user","content":"after the reset"}`)
	expect(`"content":"after the reset"`)

	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("tape log -f after SIGINT: %v: %s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("tape log -f did not stop on SIGINT")
	}
	for line := range lines {
		t.Errorf("printed twice or unasked: %s", line)
	}
}
