package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/pgtest"
)

// TestMain lets the test binary stand in for the tape binary in a child
// process (TAPE_TEST_AS_CLI=1, and the `tape` command of the scripts in
// testdata/script), or run a library writer (TAPE_TEST_WRITER), so the
// tests run real processes without a separate build.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv("TAPE_TEST_AS_CLI") == "1":
		main()
	case os.Getenv("TAPE_TEST_WRITER") != "":
		os.Exit(libraryWriter(os.Getenv("TAPE_TEST_WRITER")))
	case os.Getenv("TAPE_TEST_GC") != "":
		os.Exit(gcWorkload(os.Getenv("TAPE_TEST_GC")))
	case os.Getenv("TAPE_TEST_TRANSCRIPT") != "":
		os.Exit(transcriptWriter(os.Getenv("TAPE_TEST_TRANSCRIPT")))
	case os.Getenv("TAPE_TEST_CHAOS_APPEND") != "":
		os.Exit(chaosAppender(os.Getenv("TAPE_TEST_CHAOS_APPEND")))
	}
	// No test starts a watcher on demand unless it asks (TAPE_WATCH=auto
	// in its child's environment): one would outlive the test's folder.
	os.Setenv("TAPE_WATCH", "off")
	// Nor reads the user's prices (pricing.Dir): costs are of the snapshot
	// tape ships, unless a test sets a folder of its own.
	if os.Getenv("TAPE_CONFIG_DIR") == "" { // a script's own (env TAPE_CONFIG_DIR=...) stays
		os.Setenv("TAPE_CONFIG_DIR", filepath.Join(os.TempDir(), fmt.Sprintf("tape-test-config-%d-none", os.Getpid())))
	}
	testscript.Main(stopAfter{m}, map[string]func(){"tape": main})
}

// pgServer is the PostgreSQL server of the tests tagged postgres, started
// by the first that asks (package pgtest) and stopped after the tests.
var pgServer pgtest.Shared

// stopAfter runs the tests, then stops what they started.
type stopAfter struct{ m *testing.M }

func (s stopAfter) Run() int {
	code := s.m.Run()
	pgServer.Stop()
	return code
}

// tapeProcess returns a command that runs the CLI in a child process.
func tapeProcess(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TAPE_TEST_AS_CLI=1", "TAPE_NAME=", "TAPE_DIR=")
	return cmd
}

// payloadSize is the size of writer w's entry i: mostly small, crossing the
// 4 KiB pipe-buffer size often, and every 100th entry large, up to 1 MiB.
func payloadSize(w, i int) int {
	r := rand.New(rand.NewPCG(uint64(w), uint64(i)))
	switch {
	case i == 0:
		return 1 << 20
	case i%100 == 0:
		return 64<<10 + r.IntN(1<<20-64<<10)
	default:
		return 10 + r.IntN(8<<10)
	}
}

// testEntry is writer w's entry i, as a line for `tape append --jsonl`.
func testEntry(w, i int) []byte {
	pad := strings.Repeat(string(rune('a'+(w+i)%26)), payloadSize(w, i))
	line, _ := json.Marshal(map[string]any{"kind": "event", "payload": map[string]any{"w": w, "i": i, "pad": pad}})
	return line
}

// libraryWriter appends entries one at a time through the log package, in
// a child process. spec is "<workspace>,<writer>,<count>".
func libraryWriter(spec string) int {
	parts := strings.Split(spec, ",")
	w, _ := strconv.Atoi(parts[1])
	n, _ := strconv.Atoi(parts[2])
	ws, err := tapelog.Open(parts[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ws.Close()
	tp, err := ws.Tape("main")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := range n {
		e, err := tapelog.ParseEntry(testEntry(w, i))
		if err == nil {
			_, err = tp.Append(context.Background(), e)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// Eight processes append 2,000 entries each to one tape at once, half
// through `tape append --jsonl`, half through the library one entry at a
// time; payloads run from 10 bytes to 1 MiB. Every entry must be on the tape
// exactly once, whole, and every line must parse.
func TestConcurrentAppendProcesses(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	wsDir := filepath.Join(dir, ".tape")
	const writers = 8
	each := 2000
	if testing.Short() { // the race detector's pass (.ci/run): 51 s at 2,000 each
		each = 400
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		var cmd *exec.Cmd
		var stdin bytes.Buffer
		if w%2 == 0 {
			cmd = tapeProcess(dir, "append", "--jsonl")
			for i := range each {
				stdin.Write(testEntry(w, i))
				stdin.WriteByte('\n')
			}
			cmd.Stdin = &stdin
		} else {
			cmd = exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), fmt.Sprintf("TAPE_TEST_WRITER=%s,%d,%d", wsDir, w, each))
		}
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Wait(); err != nil {
				errs <- fmt.Errorf("writer %d: %v: %s", w, err, stderr.String())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	seen := make(map[[2]int]int)
	ws, err := tapelog.Open(wsDir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	tp, _ := ws.Tape("main")
	for e, err := range tp.All(context.Background()) {
		if err != nil {
			t.Fatalf("reading the tape: %v", err)
		}
		if e.Kind != "event" {
			continue
		}
		var p struct {
			W, I int
			Pad  string
		}
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatalf("entry %s: %v", e.ID, err)
		}
		if len(p.Pad) != payloadSize(p.W, p.I) {
			t.Errorf("writer %d entry %d: pad of %d bytes, want %d", p.W, p.I, len(p.Pad), payloadSize(p.W, p.I))
		}
		seen[[2]int{p.W, p.I}]++
	}
	for w := range writers {
		for i := range each {
			if n := seen[[2]int{w, i}]; n != 1 {
				t.Errorf("writer %d entry %d is on the tape %d times, want once", w, i, n)
			}
		}
	}
	// Every line of the file parses: nothing torn, nothing interleaved.
	assertEveryLineParses(t, filepath.Join(wsDir, "tapes/main/anchors/001_session-start/events.jsonl"), writers*each)
}

func assertEveryLineParses(t *testing.T, file string, want int) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	n := 0
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				t.Errorf("%s ends in a torn line of %d bytes", file, len(line))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if _, err := tapelog.ParseEntry(line); err != nil {
			t.Errorf("%s line %d: %v", file, n, err)
		}
	}
	if n != want {
		t.Errorf("%s has %d lines, want %d", file, n, want)
	}
}

// Processes racing to hand off never make two folders with one seq.
func TestRacingHandoffProcesses(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	const procs, each = 6, 8
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				out, err := tapeProcess(dir, "handoff", fmt.Sprintf("p%d/%d", p, i)).CombinedOutput()
				if err != nil {
					t.Errorf("handoff p%d/%d: %v: %s", p, i, err, out)
				}
			}
		}()
	}
	wg.Wait()
	entries, err := os.ReadDir(filepath.Join(dir, ".tape/tapes/main/anchors"))
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for _, e := range entries {
		seq, _, ok := tapelog.ParseFolderName(e.Name())
		if !ok {
			t.Errorf("stray entry %s in the anchors folder", e.Name())
			continue
		}
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	for i, seq := range seqs {
		if seq != int64(i+1) {
			t.Fatalf("seqs = %v, want 1..%d each once", seqs, procs*each+1)
		}
	}
	if len(seqs) != procs*each+1 {
		t.Errorf("%d anchor folders, want %d", len(seqs), procs*each+1)
	}
}

// The binary's exit status and stderr, as a calling agent sees them.
func TestProcessExitStatus(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	cmd := tapeProcess(outside, "log")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitWorkspace {
		t.Errorf("tape log outside a workspace: %v, want exit %d", err, exitWorkspace)
	}
	if msg := stderr.String(); strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "tape init") {
		t.Errorf("stderr = %q, want one line that says to run tape init", msg)
	}
}

// syncBuffer is a bytes.Buffer a child process writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
