// Package poll waits, in tests, for what another goroutine or process
// will make true: a watcher that takes its lock, an entry that reaches an
// index, a process that exits. It checks a condition at an interval until
// the condition holds or a deadline passes, and a test that gives up says
// what it waited for and how long. Poll with a deadline, never sleep and
// hope: a fixed sleep is too short on a busy machine and too long on an
// idle one.
//
// Until is the usual form: it fails the test at the deadline. Wait
// reports whether the condition held instead, for a caller that writes
// its own failure (with the last state it saw) or must not fail (a
// cleanup, a goroutine other than the test's). WaitEvery chooses the
// interval, for a poll whose pace is part of what it tests or measures.
package poll

import (
	"testing"
	"time"
)

// Interval is how often Until and Wait check: often enough that a test
// waits little past the moment its condition holds, seldom enough that
// the checks (many of them run a command) are not most of what the
// machine does.
const Interval = 10 * time.Millisecond

// Until checks cond every Interval until it holds, and fails t, saying
// what it waited for, if timeout passes first. Like t.Fatal, it must be
// called from the goroutine running the test.
func Until(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Wait(timeout, cond) {
		t.Fatalf("waited %s for %s", timeout, what)
	}
}

// Wait checks cond every Interval until it holds, and reports whether it
// held before timeout passed.
func Wait(timeout time.Duration, cond func() bool) bool {
	return WaitEvery(timeout, Interval, cond)
}

// WaitEvery checks cond every interval until it holds, and reports
// whether it held before timeout passed. cond is checked at least once,
// and once more after the deadline has passed, so that a condition that
// came true during the last interval still counts.
func WaitEvery(timeout, interval time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(interval)
	}
	return true
}
