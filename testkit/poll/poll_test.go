package poll

import (
	"fmt"
	"testing"
	"time"
)

// after returns a condition that holds from its nth check on, and the
// count of its checks.
func after(n int) (func() bool, *int) {
	calls := new(int)
	return func() bool { *calls++; return *calls >= n }, calls
}

func TestWaitEvery(t *testing.T) {
	tests := []struct {
		name      string
		holdsAt   int // the check at which cond first holds; 0: never
		timeout   time.Duration
		want      bool
		wantCalls func(int) bool
	}{
		{"holds at once: one check, no sleep", 1, time.Second, true, func(n int) bool { return n == 1 }},
		{"holds at the fifth check", 5, 10 * time.Second, true, func(n int) bool { return n == 5 }},
		{"holds already with no time to wait", 1, 0, true, func(n int) bool { return n == 1 }},
		{"never holds: checked until the deadline", 0, 50 * time.Millisecond, false, func(n int) bool { return n >= 2 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.holdsAt
			if n == 0 {
				n = int(^uint(0) >> 1)
			}
			cond, calls := after(n)
			start := time.Now()
			if got := WaitEvery(tt.timeout, time.Millisecond, cond); got != tt.want {
				t.Fatalf("WaitEvery = %v, want %v", got, tt.want)
			}
			if !tt.wantCalls(*calls) {
				t.Errorf("cond checked %d times", *calls)
			}
			if took := time.Since(start); !tt.want && took < tt.timeout {
				t.Errorf("gave up after %s, before the timeout %s", took, tt.timeout)
			}
		})
	}
}

// recorder is a testing.TB that keeps what Fatalf says.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

func TestUntil(t *testing.T) {
	tests := []struct {
		name      string
		cond      func() bool
		wantFatal string // "" for no failure
	}{
		{"a condition that holds does not fail the test", func() bool { return true }, ""},
		{"a condition that never holds fails, naming what was awaited", func() bool { return false }, "waited 30ms for the watcher's lock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Until(r, 30*time.Millisecond, "the watcher's lock", tt.cond)
			if r.fatal != tt.wantFatal {
				t.Errorf("Until failed the test with %q, want %q", r.fatal, tt.wantFatal)
			}
		})
	}
}

// The default interval is short enough that a condition that holds soon
// is seen soon.
func TestWaitChecksAtInterval(t *testing.T) {
	cond, calls := after(3)
	start := time.Now()
	if !Wait(10*time.Second, cond) {
		t.Fatal("Wait gave up on a condition that holds at its third check")
	}
	if took := time.Since(start); took < 2*Interval || took > 5*time.Second {
		t.Errorf("three checks took %s, want about %s", took, 2*Interval)
	}
	if *calls != 3 {
		t.Errorf("checked %d times, want 3", *calls)
	}
}
