package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tape-dev/tape/testkit/poll"
)

// transcriptWriter is a child process that writes a transcript as an
// agent does: the lines of src appended to dst one at a time, each in one
// write, or, every third line, in two writes, so the follower sees a torn
// tail that the next write completes. spec is "src,dst,pause in ms".
func transcriptWriter(spec string) int {
	parts := strings.Split(spec, ",")
	pause, _ := strconv.Atoi(parts[2])
	data, err := os.ReadFile(parts[0])
	if err == nil {
		err = os.MkdirAll(filepath.Dir(parts[1]), 0o700)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	f, err := os.OpenFile(parts[1], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer f.Close()
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		pieces := [][]byte{line}
		if i%3 == 2 && len(line) > 10 {
			pieces = [][]byte{line[:len(line)/2], line[len(line)/2:]}
		}
		for _, p := range pieces {
			if _, err := f.Write(p); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			time.Sleep(time.Duration(pause) * time.Millisecond) // an agent's pace
		}
	}
	return 0
}

// `tape watch --follow claude` mirrors transcripts that two agent
// processes write while other processes read the tapes: once the writers
// are done, the tapes are, byte for byte, what `tape import claude` makes
// of the same files, with the same ids; a transcript deleted afterwards
// stays on its tape.
func TestWatchFollowsTranscriptsWithProcesses(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	claudeDir := filepath.Join(t.TempDir(), "claude")
	projects := filepath.Join(claudeDir, "projects", "-home-u-proj")
	if err := os.MkdirAll(projects, 0o700); err != nil {
		t.Fatal(err)
	}
	watch := tapeProcess(dir, "watch", "--quiet", "--follow", "claude")
	watch.Env = append(watch.Env, "CLAUDE_CONFIG_DIR="+claudeDir)
	var watchErr syncBuffer
	watch.Stderr = &watchErr
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watch.Process.Kill(); watch.Wait() })
	poll.Until(t, 20*time.Second, "the watcher to hold the workspace", func() bool {
		data, _ := os.ReadFile(filepath.Join(dir, ".tape", "watch.lock"))
		return strings.Contains(string(data), fmt.Sprintf("pid %d", watch.Process.Pid))
	})
	src := "../../testdata/import/claude/src/-home-u-proj/"
	files := []string{"5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12.jsonl", "5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12/subagents/agent-a3f9c21b0d4e5f607.jsonl"}
	var wg sync.WaitGroup
	for _, name := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "TAPE_TEST_TRANSCRIPT="+filepath.Join(src, name)+","+filepath.Join(projects, name)+",5")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("writer of %s: %v: %s", name, err, out)
			}
		}()
	}
	// Readers, meanwhile, as agents and people would.
	for range 3 {
		if out, err := tapeProcess(dir, "tapes", "--json").CombinedOutput(); err != nil {
			t.Fatalf("tape tapes while following: %v: %s", err, out)
		}
	}
	wg.Wait()
	// What one import of the finished transcripts makes, in another
	// workspace.
	other := newCLIWorkspace(t)
	runTape(t, other, "import", "claude", filepath.Join(claudeDir, "projects"))
	want := tapeFiles(t, filepath.Join(other, ".tape", "tapes"))
	poll.Until(t, 20*time.Second, "the followed tapes to equal one import", func() bool {
		return tapeFiles(t, filepath.Join(dir, ".tape", "tapes")) == want
	})
	out, err := tapeProcess(dir, "calls", "--all-tapes", "--status", "pending", "--count").Output()
	if err != nil || strings.TrimSpace(string(out)) != "0" {
		t.Errorf("pending calls after following: %q, %v; want 0", out, err)
	}
	// The agent deletes its transcript; what was mirrored stays, and the
	// follower goes on with the next one.
	if err := os.Remove(filepath.Join(projects, files[0])); err != nil {
		t.Fatal(err)
	}
	next := `{"type":"user","uuid":"n1","sessionId":"99990000-0000-4000-8000-000000000001","timestamp":"2025-11-04T09:00:00.000Z","message":{"role":"user","content":"next session"}}` + "\n"
	if err := os.WriteFile(filepath.Join(projects, "99990000-0000-4000-8000-000000000001.jsonl"), []byte(next), 0o600); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 20*time.Second, "the next session to be mirrored", func() bool {
		out, _ := tapeProcess(dir, "log", "--tape", "claude-99990000", "--json").Output()
		return strings.Contains(string(out), "next session")
	})
	out, err = tapeProcess(dir, "log", "--all", "--tape", "claude-5d7e6b2e", "--json").Output()
	if err != nil || !strings.Contains(string(out), "go vet is clean.") {
		t.Errorf("the deleted transcript's tape: %v:\n%.500s", err, out)
	}
	// The transcript's two bad lines are reported once each, with their
	// file and line, and nothing else is.
	if s := watchErr.String(); strings.Count(s, "\n") != 2 || !strings.Contains(s, files[0]+":18: not a JSON record") || !strings.Contains(s, files[0]+":22: not a JSON object") {
		t.Errorf("the watcher reported:\n%s\nwant lines 18 and 22 of %s, once each", s, files[0])
	}
}

// tapeFiles renders every file of a tapes folder.
func tapeFiles(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && path != root && strings.HasPrefix(d.Name(), ".") {
			// Temporary (a handoff under way: .tmp-…), skipped as readers
			// skip it; it may be renamed away while this walks.
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if err != nil || d.IsDir() || strings.HasPrefix(strings.TrimPrefix(path, root), "/main/") {
			return err
		}
		data, err := os.ReadFile(path)
		fmt.Fprintf(&b, "== %s\n%s", strings.TrimPrefix(path, root), data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
