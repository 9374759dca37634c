package main

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tape-dev/tape/testkit/poll"
)

// nobody is the user the permission tests run the CLI as when the tests
// run as root, whom permissions do not stop.
const nobody = 65534

// unprivileged returns a workspace folder and a way to run the CLI in it
// as a user whose permissions apply: the tests' own, or, for root,
// nobody, given a copy of the test binary and the folder. setup, run
// before the folder is handed over, writes the tapes. command returns
// the process unstarted.
func unprivileged(t *testing.T, setup func(dir string)) (dir string, run func(args ...string) (stdout, stderr string, code int), command func(args ...string) *exec.Cmd) {
	t.Helper()
	if os.Getuid() != 0 {
		dir = t.TempDir()
		setup(dir)
		return dir, func(args ...string) (string, string, int) { return runProcess(t, dir, args...) },
			func(args ...string) *exec.Cmd { return tapeProcess(dir, args...) }
	}
	// t.TempDir's parents are private to root: a folder of its own, open
	// to nobody, holds the workspace and the binary.
	home, err := os.MkdirTemp("", "tape-perm-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
			os.Chmod(p, 0o700) // a folder the test closed must not stop the removal
			return nil
		})
		os.RemoveAll(home)
	})
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(home, "tape.test")
	copyFile(t, os.Args[0], bin, 0o755)
	dir = filepath.Join(home, "work")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	setup(dir)
	if err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	}); err != nil {
		t.Fatal(err)
	}
	command = func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TAPE_TEST_AS_CLI=1", "TAPE_NAME=", "TAPE_DIR=", "HOME="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		return cmd
	}
	return dir, func(args ...string) (string, string, int) {
		t.Helper()
		return runCommand(t, command(args...))
	}, command
}

func copyFile(t *testing.T, from, to string, mode fs.FileMode) {
	t.Helper()
	// No process starts while the copy, which a test will run, is open
	// for writing: a child forked meanwhile would hold it open until its
	// exec, and running it would fail with "text file busy" (ETXTBSY,
	// golang/go#22315; the tests around run processes in parallel).
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCLIUnreadableFolders takes away the permissions of one anchor folder
// of a tape, of another tape's anchors folder (listable, but its folders
// cannot be looked up) and of one file: every command still works, says
// what it cannot read, records it once and not on every pass, and reads
// it all once the permissions are back, as a rebuild does.
func TestCLIUnreadableFolders(t *testing.T) {
	t.Parallel()
	var locked, leakAnchors, lockedFile string
	dir, run, _ := unprivileged(t, func(dir string) {
		mustRun(t, dir, "init")
		mustRun(t, dir, "append", "-k", "message", `{"content":"okapi first folder"}`)
		mustRun(t, dir, "append", "-k", "event", `{"name":"okapi locked file"}`)
		lockedFile = filepath.Join(firstFolder(t, dir), "events.jsonl")
		mustRun(t, dir, "handoff", "second")
		mustRun(t, dir, "append", "-k", "message", `{"content":"okapi locked folder"}`)
		mustRun(t, dir, "--tape", "leak", "append", "-k", "message", `{"content":"okapi other tape"}`)
		matches, _ := filepath.Glob(filepath.Join(dir, ".tape/tapes/main/anchors/002_*"))
		if len(matches) != 1 {
			t.Fatalf("folders of the second anchor: %v", matches)
		}
		locked, leakAnchors = matches[0], filepath.Join(dir, ".tape/tapes/leak/anchors")
	})
	mustMode := func(p string, mode fs.FileMode) {
		t.Helper()
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	searchJSON := func() string {
		t.Helper()
		out, stderr, code := run("search", "--all-tapes", "--json", "okapi")
		if code != 0 {
			t.Fatalf("search: exit %d: %s", code, stderr)
		}
		return out
	}
	if _, stderr, code := run("reindex"); code != 0 {
		t.Fatalf("first reindex: exit %d: %s", code, stderr)
	}
	mustMode(locked, 0o300)             // -wx: its files can be stat'ed, it cannot be listed
	mustMode(leakAnchors, 0o500&^0o100) // r--: listed, not looked into
	mustMode(lockedFile, 0)

	out, stderr, code := run("search", "--all-tapes", "okapi")
	lockedRel := "tapes/main/anchors/" + filepath.Base(locked)
	if code != 0 || !strings.Contains(out, "first folder") || strings.Contains(out, "locked folder") || strings.Contains(out, "other tape") || strings.Contains(out, "locked file") ||
		!strings.Contains(stderr, lockedRel+": cannot list: permission denied") || !strings.Contains(stderr, "tapes/leak/anchors") {
		t.Fatalf("search with unreadable folders: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	if out, stderr, code := run("reindex", "--json"); code != 0 || !strings.Contains(out, `"bad_lines":0`) || !strings.Contains(out, `"entries":0`) || !strings.Contains(out, `"files_read":0`) {
		t.Errorf("a second pass over the same unreadable folders and file (exit %d) wrote, or read, again: %s%s", code, out, stderr)
	}
	incremental := searchJSON()
	if _, stderr, code := run("reindex", "--full"); code != 0 {
		t.Fatalf("reindex --full: exit %d: %s", code, stderr)
	}
	if rebuilt := searchJSON(); rebuilt != incremental {
		t.Errorf("search after a rebuild differs:\n%s---\n%s", rebuilt, incremental)
	}
	if out, _, code := run("doctor"); code != exitWorkspace || !strings.Contains(out, lockedRel) || !strings.Contains(out, "tapes/leak/anchors") {
		t.Errorf("doctor: exit %d\n%s", code, out)
	}

	mustMode(locked, 0o700)
	mustMode(leakAnchors, 0o700)
	mustMode(lockedFile, 0o600)
	out, stderr, code = run("search", "--all-tapes", "okapi")
	if code != 0 || stderr != "" || strings.Count(out, "okapi") != 4 {
		t.Errorf("search once readable: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	if out, _, code := run("doctor"); code != 0 {
		t.Errorf("doctor once readable: exit %d\n%s", code, out)
	}
	incremental = searchJSON()
	if _, stderr, code := run("reindex", "--full"); code != 0 {
		t.Fatalf("reindex --full: exit %d: %s", code, stderr)
	}
	if rebuilt := searchJSON(); rebuilt != incremental {
		t.Errorf("search after a rebuild differs:\n%s---\n%s", rebuilt, incremental)
	}
	_ = dir
}

// A folder that cannot be read when tape watch starts gets no watch; once
// readable again, it must get one, or the watcher never hears of the lines
// appended to it, and the readers that sync with the watcher never see
// them (review).
func TestCLIWatchFolderReadableAgain(t *testing.T) {
	t.Parallel()
	var locked string
	_, run, command := unprivileged(t, func(dir string) {
		mustRun(t, dir, "init")
		mustRun(t, dir, "append", "-k", "message", `{"content":"okapi one"}`)
		mustRun(t, dir, "handoff", "second")
		mustRun(t, dir, "append", "-k", "message", `{"content":"okapi two"}`)
		matches, _ := filepath.Glob(filepath.Join(dir, ".tape/tapes/main/anchors/002_*"))
		if len(matches) != 1 {
			t.Fatalf("folders of the second anchor: %v", matches)
		}
		locked = matches[0]
	})
	if _, stderr, code := run("reindex"); code != 0 {
		t.Fatalf("reindex: exit %d: %s", code, stderr)
	}
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	watch := command("watch")
	stderr, err := watch.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		watch.Process.Signal(os.Interrupt)
		watch.Wait()
	}()
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !strings.HasPrefix(lines.Text(), "watching") {
	}
	go io.Copy(io.Discard, stderr)

	found := func(word string) bool {
		_, _, code := run("search", word)
		return code == 0
	}
	poll.Until(t, 10*time.Second, "the unreadable folder's entries to leave the index", func() bool { return !found("two") })
	if err := os.Chmod(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the folder's entries to come back once it is readable", func() bool { return found("two") })
	appendBytes(t, filepath.Join(locked, "messages.jsonl"), `{"kind":"message","payload":{"content":"okapi three"}}`+"\n")
	if !found("three") {
		t.Error("a line appended to the folder, once readable, is not searchable with the watcher running")
	}
}
