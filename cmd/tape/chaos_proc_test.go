package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

// chaosProc is one tape process of a round.
type chaosProc struct {
	op    string   // what it is, for the counts and the kill spans
	args  []string // tape's arguments
	stdin string
	env   []string      // more environment
	kill  time.Duration // when to SIGKILL it after its start; <0: never
	// tolerate says whether a failure that is no kill is expected.
	tolerate func(code int, stderr string) bool
	// appender makes it the `>>` writer (chaosAppender) instead of tape.
	appender string
}

// chaosResult is how a process ended.
type chaosResult struct {
	stdout, stderr string
	code           int
	killed         bool
}

// procTimeout is how long a process may run before the test calls it
// hung; a watcher is stopped by its task well before.
const procTimeout = 90 * time.Second

// exec runs p to its end, SIGKILLing it at p.kill.
func (c *chaos) exec(p chaosProc) chaosResult {
	var cmd *exec.Cmd
	if p.appender != "" {
		cmd = exec.Command(os.Args[0])
		cmd.Dir = c.dir
		cmd.Env = append(os.Environ(), "TAPE_TEST_CHAOS_APPEND="+p.appender)
	} else {
		cmd = autoProcess(os.Args[0], c.dir, "auto", p.args...)
	}
	cmd.Env = append(cmd.Env, p.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(p.stdin), &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		c.t.Errorf("start tape %v: %v", p.args, err)
		return chaosResult{code: -1}
	}
	var timers []*time.Timer
	if p.kill >= 0 {
		timers = append(timers, time.AfterFunc(p.kill, func() { cmd.Process.Signal(syscall.SIGKILL) }))
	}
	hung := time.AfterFunc(procTimeout, func() {
		c.t.Errorf("%s: tape %v still runs after %v; killed", p.op, p.args, procTimeout)
		cmd.Process.Signal(syscall.SIGKILL)
	})
	timers = append(timers, hung)
	err := cmd.Wait()
	for _, tm := range timers {
		tm.Stop()
	}
	res := chaosResult{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			res.killed = true
		}
	default:
		c.t.Errorf("%s: tape %v: %v", p.op, p.args, err)
		res.code = -1
	}
	c.stats.proc(p.op, res.killed)
	if !res.killed {
		c.noteTook(p.op, time.Since(start))
		if res.code != 0 && (p.tolerate == nil || !p.tolerate(res.code, res.stderr)) {
			c.t.Errorf("round %d: %s: tape %s: exit %d: %s", c.roundNo, p.op, strings.Join(p.args, " "), res.code, res.stderr)
		}
	}
	return res
}

// watch runs a foreground `tape watch`, which takes over from the
// on-demand one, and stops it with SIGTERM or SIGKILL at a random time.
func (c *chaos) watch() func() {
	stop := time.Duration(100+c.r.IntN(1500)) * time.Millisecond
	kill := c.r.IntN(2) == 0
	return func() {
		cmd := autoProcess(os.Args[0], c.dir, "auto", "watch", "--quiet")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			c.t.Errorf("start tape watch: %v", err)
			return
		}
		time.Sleep(stop) // a random time to stop it, not a wait for something
		sig := syscall.SIGTERM
		if kill {
			sig = syscall.SIGKILL
		}
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(procTimeout):
			c.t.Errorf("round %d: tape watch still runs %v after %v", c.roundNo, procTimeout, sig)
			cmd.Process.Kill()
			err = <-done
		}
		var exit *exec.ExitError
		killed := errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signaled()
		c.stats.proc("watch", kill && killed)
		if err != nil && !killed {
			c.t.Errorf("round %d: tape watch stopped by %v: %v: %s", c.roundNo, sig, err, stderr.String())
		}
	}
}

// killWatcher SIGKILLs, at a random time, whatever watcher holds
// watch.lock: the on-demand one, or a foreground one.
func (c *chaos) killWatcher() func() {
	at := time.Duration(c.r.IntN(1000)) * time.Millisecond
	return func() {
		time.Sleep(at) // a random point of the round
		if pid := c.watcher(); pid != 0 && syscall.Kill(pid, syscall.SIGKILL) == nil {
			c.stats.count(&c.stats.watcherKills)
		}
	}
}

// watcher is the pid of the watcher that holds watch.lock, 0 for none.
func (c *chaos) watcher() int {
	data, _ := os.ReadFile(filepath.Join(c.dir, ".tape", "watch.lock"))
	rest, ok := strings.CutPrefix(string(data), "pid ")
	if !ok {
		return 0
	}
	pidText, _, _ := strings.Cut(rest, ":")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 || !alive(pid) || !isWatcher(pid, c.dir) {
		return 0
	}
	return pid
}

// isWatcher reports whether pid is a tape watch of the workspace in dir
// (a pid in a stale lock file may be anyone's by now).
func isWatcher(pid int, dir string) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	s := string(cmdline)
	return strings.Contains(s, "\x00watch\x00") && (strings.Contains(s, filepath.Join(dir, ".tape")) || procCwd(pid) == dir)
}

func procCwd(pid int) string {
	cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	return cwd
}

// chaosAppender is the `>>` writer, a child process (TAPE_TEST_CHAOS_APPEND
// "<tape folder>,<id prefix>,<count>,<words>"): it appends count messages
// to the tape's current anchor, each with an id of its own, one write of
// the whole line to an O_APPEND descriptor under the file's flock, a torn
// tail ended with <torn> first, as docs/FORMAT.md section 6 says (and a
// tape a killed reset left without an anchor started first, as section 9
// does), and prints each id once it is written.
func chaosAppender(spec string) int {
	parts := strings.SplitN(spec, ",", 4)
	n, _ := strconv.Atoi(parts[2])
	for i := range n {
		id := fmt.Sprintf("%s-%d", parts[1], i)
		line := fmt.Sprintf(`{"id":%q,"kind":"message","payload":{"role":"user","content":"%s flocked %d"},"meta":{},"date":%q}`+"\n",
			id, parts[3], i, time.Now().UTC().Format(time.RFC3339Nano))
		if err := flockAppend(parts[0], []byte(line)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(id)
	}
	return 0
}

// flockAppend appends line to messages.jsonl of the tape's current anchor.
// A folder moved away between the listing and the open (a reset) is
// listed again; a tape without an anchor (a reset killed between moving
// the old ones away and making the new one) is started, as docs/FORMAT.md
// section 9 starts one.
func flockAppend(tapeDir string, line []byte) error {
	var err error
	for range 100 {
		var folder string
		folder, err = currentAnchor(tapeDir)
		if errors.Is(err, os.ErrNotExist) {
			if err = bootstrapAnchor(tapeDir); err != nil {
				return err
			}
			continue
		}
		if err == nil {
			if err = appendLocked(filepath.Join(tapeDir, "anchors", folder, "messages.jsonl"), line); !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		time.Sleep(10 * time.Millisecond) // a reset between its rename and its new anchor
	}
	return err
}

// bootstrapAnchor makes a tape's first anchor under the tape's lock (an
// flock of its folder), unless it has one by then.
func bootstrapAnchor(tapeDir string) error {
	lock, err := os.Open(tapeDir)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("flock %s: %w", tapeDir, err)
	}
	if _, err := currentAnchor(tapeDir); err == nil {
		return nil // a reset made it while this waited
	}
	anchors := filepath.Join(tapeDir, "anchors")
	tmp := filepath.Join(anchors, fmt.Sprintf(".tmp-chaos-%d", os.Getpid()))
	line := fmt.Sprintf(`{"kind":"anchor","payload":{"name":"session/start","state":{"owner":"human"}},"date":%q}`+"\n", time.Now().UTC().Format(time.RFC3339Nano))
	err = os.MkdirAll(tmp, 0o700)
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, "anchor.json"), []byte(line), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(anchors, "001_session-start"))
	}
	if err != nil {
		return fmt.Errorf("start tape %s: %w", tapeDir, err)
	}
	return nil
}

func currentAnchor(tapeDir string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(tapeDir, "anchors"))
	if err != nil {
		return "", err
	}
	best, bestSeq := "", int64(-1)
	for _, e := range entries {
		if seq, _, ok := tapelog.ParseFolderName(e.Name()); ok && (seq > bestSeq || seq == bestSeq && e.Name() > best) {
			best, bestSeq = e.Name(), seq
		}
	}
	if best == "" {
		return "", fmt.Errorf("no anchor in %s: %w", tapeDir, os.ErrNotExist)
	}
	return best, nil
}

func appendLocked(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("flock %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	data := line
	if size := fi.Size(); size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if last[0] != '\n' {
			data = append([]byte("<torn>\n"), line...)
		}
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return f.Close()
}
