package fileutil

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// HolderLock is a lock file that names its holder: whoever takes its
// flock(2) writes one line into it, "pid <n>: <what>", so that a process
// that waits for the lock, or gives up on it, can say whom for. The
// index's lock (index.lock) and the watcher's (watch.lock) are two. The
// line is for people and for a takeover's guess at the pid; the flock
// alone decides who holds the lock.
type HolderLock struct{ f *os.File }

// NewHolderLock is the lock of f, a lock file open for reading and
// writing.
func NewHolderLock(f *os.File) HolderLock { return HolderLock{f: f} }

// File is the lock file, for the flock functions of this package.
func (l HolderLock) File() *os.File { return l.f }

// holderBytes is the most of a lock file's line that is read.
const holderBytes = 256

// Acquire takes the lock, polling with a back-off from a millisecond to
// 50ms: a flock(2) cannot be interrupted. It reports false if another
// process still holds it once wait has passed, and ctx.Err() if ctx is
// done first; any other error is flock's. onWait, if not nil, is told
// once, after a second, who holds it (HeldBy). It does not write the
// line: WriteHolder does, once the lock is taken.
func (l HolderLock) Acquire(ctx context.Context, wait time.Duration, onWait func(heldBy string)) (bool, error) {
	start := time.Now()
	deadline := start.Add(wait)
	delay := time.Millisecond
	told := false
	for {
		ok, err := TryLock(l.f)
		if err != nil || ok {
			return ok, err
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		if !told && onWait != nil && time.Since(start) > time.Second {
			onWait(l.HeldBy())
			told = true
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// WriteHolder writes this process into the lock file, "pid <n>: <what>"
// and a newline, in place of what was there. The caller holds the lock.
func (l HolderLock) WriteHolder(what string) error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt([]byte(fmt.Sprintf("pid %d: %s\n", os.Getpid(), what)), 0)
	return err
}

// Holder is the line the holder wrote, without its newline: "" if there
// is none.
func (l HolderLock) Holder() string {
	buf := make([]byte, holderBytes)
	n, _ := l.f.ReadAt(buf, 0) // a lock file that cannot be read names no one
	return strings.TrimSpace(string(buf[:n]))
}

// HeldBy says who holds the lock, as messages put it: "held by pid 7:
// tape watch", or "held by another process" when the file names no one.
func (l HolderLock) HeldBy() string {
	if s := l.Holder(); s != "" {
		return "held by " + s
	}
	return "held by another process"
}

// HolderPID is the pid of a lock file's line, "pid <n>: <what>"; 0 if it
// names none.
func HolderPID(line string) int {
	rest, ok := strings.CutPrefix(line, "pid ")
	if !ok {
		return 0
	}
	field, _, _ := strings.Cut(rest, ":")
	pid, err := strconv.Atoi(field)
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
