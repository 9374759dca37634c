package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tape-dev/tape/testkit/poll"
)

// autoProcess is a tape child process with watchers started on demand:
// TAPE_WATCH as given ("" leaves it unset, so config.json decides), and
// bin the binary to run (the test binary standing in for tape).
func autoProcess(bin, dir, watch string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TAPE_WATCH=") && !strings.HasPrefix(kv, "TAPE_NAME=") && !strings.HasPrefix(kv, "TAPE_DIR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "TAPE_TEST_AS_CLI=1")
	if watch != "" {
		cmd.Env = append(cmd.Env, "TAPE_WATCH="+watch)
	}
	return cmd
}

func runAuto(t *testing.T, bin, dir, watch string, args ...string) string {
	t.Helper()
	out, err := autoProcess(bin, dir, watch, args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("tape %s: %v: %s", strings.Join(args, " "), err, stderr)
	}
	return string(out)
}

// watcherPID is the pid `tape info` reports for the workspace's watcher,
// 0 for none.
func watcherPID(t *testing.T, bin, dir string) int {
	t.Helper()
	var info struct {
		Watcher bool `json:"watcher"`
		PID     int  `json:"watcher_pid"`
	}
	if err := json.Unmarshal([]byte(runAuto(t, bin, dir, "off", "--no-catchup", "info", "--json")), &info); err != nil {
		t.Fatal(err)
	}
	if !info.Watcher {
		return 0
	}
	return info.PID
}

// waitWatcher polls tape info until want(pid) holds, and returns the pid.
func waitWatcher(t *testing.T, bin, dir, what string, want func(pid int) bool) int {
	t.Helper()
	var pid int
	if !poll.Wait(20*time.Second, func() bool { pid = watcherPID(t, bin, dir); return want(pid) }) {
		t.Fatalf("%s: not within 20s (watcher pid %d)", what, pid)
	}
	return pid
}

// alive reports whether pid runs (a zombie, which nobody may reap in a
// container, does not).
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// stopWatcher ends a background watcher when the test ends, and waits for
// it, so that it never outlives the test's folder.
func stopWatcher(t *testing.T, pid int) {
	t.Cleanup(func() {
		syscall.Kill(pid, syscall.SIGTERM)
		poll.Wait(10*time.Second, func() bool { return !alive(pid) }) // waits, but a cleanup fails no test
	})
}

// reapWatchers stops, when the test ends, every watcher started on demand
// for the workspace in dir: the test stops the one it waited for, but a
// second read may have started another that waited for the lock and took
// it over, and it would write into the folder as the test removes it.
// They are found by their command line (startWatcher's), not by the lock,
// which one waiting for it does not hold yet.
func reapWatchers(t *testing.T, dir string) {
	t.Cleanup(func() {
		want := filepath.Join(dir, ".tape") + "\x00watch\x00--background"
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			cmdline, err := os.ReadFile(p)
			if err != nil || !strings.Contains(string(cmdline), want) {
				continue
			}
			pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			if err != nil {
				continue
			}
			syscall.Kill(pid, syscall.SIGTERM)
			poll.Wait(10*time.Second, func() bool { return !alive(pid) })
		}
	})
}

// A read command with "watch": "auto" starts a watcher in the background;
// the reads after it sync with it and still see a line appended by hand;
// with "off" none is started.
func TestReadStartsAWatcherOnDemand(t *testing.T) {
	t.Parallel()
	bin := os.Args[0]
	dir := newCLIWorkspace(t)
	reapWatchers(t, dir)
	fillTape(t, dir, 0, 50)

	runAuto(t, bin, dir, "off", "search", "common")
	if pid := watcherPID(t, bin, dir); pid != 0 {
		t.Fatalf("TAPE_WATCH=off: a watcher runs (pid %d)", pid)
	}

	runAuto(t, bin, dir, "", "search", "common") // config.json's default: auto
	pid := waitWatcher(t, bin, dir, "a watcher started on demand", func(pid int) bool { return pid != 0 })
	stopWatcher(t, pid)

	file := filepath.Join(dir, ".tape/tapes/main/anchors/001_session-start/messages.jsonl")
	for _, word := range []string{"axolotl", "pangolin", "tarsier"} {
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, `{"kind":"message","payload":{"role":"user","content":"`+word+`"}}`+"\n")
		f.Close()
		if out := runAuto(t, bin, dir, "", "search", "--json", word); !strings.Contains(out, word) {
			t.Fatalf("a line appended by hand is not seen by the next read, with the watcher running: %q", out)
		}
	}
	var reindex struct{ Watcher bool }
	if err := json.Unmarshal([]byte(runAuto(t, bin, dir, "", "reindex", "--json")), &reindex); err != nil || !reindex.Watcher {
		t.Errorf("tape reindex --json with a watcher running: watcher %v, %v; want it to ask the watcher", reindex.Watcher, err)
	}
	if got := watcherPID(t, bin, dir); got != pid {
		t.Errorf("the reads replaced the watcher: pid %d, then %d", pid, got)
	}
	log, _ := os.ReadFile(filepath.Join(dir, ".tape", watchLog))
	if !strings.Contains(string(log), "started by pid") {
		t.Errorf("watch.log does not note the start: %q", log)
	}

	// The workspace removed: the watcher exits.
	if err := os.RemoveAll(filepath.Join(dir, ".tape")); err != nil {
		t.Fatal(err)
	}
	if !poll.Wait(10*time.Second, func() bool { return !alive(pid) }) {
		t.Fatalf("the watcher (pid %d) still runs 10s after its workspace was removed", pid)
	}
}

// A watcher whose binary is replaced (an upgrade) turns the next read
// away and exits; a later read starts one from the new binary.
func TestWatcherRetiresWhenItsBinaryIsReplaced(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	reapWatchers(t, dir)
	fillTape(t, dir, 0, 20)
	bin := filepath.Join(t.TempDir(), "tape")
	copyFile(t, os.Args[0], bin, 0o700)

	runAuto(t, bin, dir, "auto", "search", "common")
	first := waitWatcher(t, bin, dir, "a watcher started on demand", func(pid int) bool { return pid != 0 })
	stopWatcher(t, first)

	copyFile(t, os.Args[0], bin+".new", 0o700) // the upgrade: a new file renamed over the old
	if err := os.Rename(bin+".new", bin); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(dir, ".tape", watchLog), time.Time{}, time.Now().Add(-time.Minute)) // past startEvery
	if out := runAuto(t, bin, dir, "auto", "search", "--json", "w7"); !strings.Contains(out, "w7 ") {
		t.Fatalf("the read turned away by a retiring watcher found nothing: %q", out)
	}
	if !poll.Wait(10*time.Second, func() bool { return !alive(first) }) {
		t.Fatalf("the old watcher (pid %d) still runs after its binary was replaced", first)
	}
	os.Chtimes(filepath.Join(dir, ".tape", watchLog), time.Time{}, time.Now().Add(-time.Minute))
	runAuto(t, bin, dir, "auto", "search", "common")
	second := waitWatcher(t, bin, dir, "a new watcher", func(pid int) bool { return pid != 0 && pid != first })
	stopWatcher(t, second)
}

// The test's own folders are on a local file system: a watcher may be
// started there.
func TestTempDirIsNotRemote(t *testing.T) {
	t.Parallel()
	if fs := remoteFileSystem(t.TempDir()); fs != "" {
		t.Errorf("a temporary folder is on %s, which remoteFileSystem calls remote", fs)
	}
}

// The demo's reads start no watcher, though "watch" is "auto": it would
// run from the binary go run removes after the demo.
func TestDemoStartsNoWatcher(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "demo")
	runAuto(t, os.Args[0], "", "auto", "demo", dir)
	if _, err := os.Stat(filepath.Join(dir, ".tape", watchLog)); !os.IsNotExist(err) {
		t.Errorf("the demo tried to start a watcher (watch.log: %v)", err)
	}
	if pid := watcherPID(t, os.Args[0], dir); pid != 0 {
		stopWatcher(t, pid)
		t.Errorf("a watcher runs after the demo (pid %d)", pid)
	}
}

// A watcher stopped (SIGTERM, Ctrl-C) while it opens the index stops as
// asked, exit status 0: the chaos test saw one exit 3 with "read index:
// context canceled".
func TestWatchStoppedWhileOpening(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"watch"}, &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Dir: dir}); code != exitOK {
		t.Fatalf("tape watch stopped before it began: exit %d, %s", code, errOut.String())
	}
}
