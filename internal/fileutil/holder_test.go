package fileutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// openLockFile opens the same lock file twice, as two processes would.
func openLockFile(t *testing.T) (a, b *os.File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index.lock")
	for _, f := range []**os.File{&a, &b} {
		var err error
		if *f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { (*f).Close() })
	}
	return a, b
}

// The holder's line, as the lock file holds it and as messages say it.
func TestHolderLine(t *testing.T) {
	t.Parallel()
	me := fmt.Sprintf("pid %d: ", os.Getpid())
	tests := []struct {
		name    string
		content string // in the file before, if write is ""
		write   string // what a holder writes, if not ""
		holder  string
		heldBy  string
	}{
		{name: "written", content: "left by an older holder, longer than the next line\n", write: "tape watch",
			holder: me + "tape watch", heldBy: "held by " + me + "tape watch"},
		{name: "marked", write: "tape watch (started on demand)",
			holder: me + "tape watch (started on demand)", heldBy: "held by " + me + "tape watch (started on demand)"},
		{name: "empty", holder: "", heldBy: "held by another process"},
		{name: "blank", content: " \n", holder: "", heldBy: "held by another process"},
		{name: "by hand", content: "pid 7: tape reindex --full\n", holder: "pid 7: tape reindex --full", heldBy: "held by pid 7: tape reindex --full"},
		{name: "long", content: strings.Repeat("x", 300), holder: strings.Repeat("x", holderBytes), heldBy: "held by " + strings.Repeat("x", holderBytes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := openLockFile(t)
			if _, err := a.WriteString(tt.content); err != nil {
				t.Fatal(err)
			}
			if tt.write != "" {
				if err := NewHolderLock(a).WriteHolder(tt.write); err != nil {
					t.Fatal(err)
				}
				if data, _ := os.ReadFile(a.Name()); string(data) != tt.holder+"\n" {
					t.Errorf("lock file after WriteHolder(%q) = %q; want %q", tt.write, data, tt.holder+"\n")
				}
			}
			other := NewHolderLock(b) // another process reads it
			if got := other.Holder(); got != tt.holder {
				t.Errorf("Holder() = %q; want %q", got, tt.holder)
			}
			if got := other.HeldBy(); got != tt.heldBy {
				t.Errorf("HeldBy() = %q; want %q", got, tt.heldBy)
			}
		})
	}
}

// Acquire takes a free lock at once, waits for one another holds, tells
// the waiter who holds it after a second, and gives up at the deadline
// or when its context is done.
func TestAcquire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		held    bool          // by another descriptor, all along
		release time.Duration // after which the other lets go; 0 never
		wait    time.Duration
		cancel  bool // the context is done already
		ok      bool
		err     error
		told    bool // onWait was called
	}{
		{name: "free", wait: 0, ok: true},
		{name: "held, given up", held: true, wait: 20 * time.Millisecond},
		{name: "held, released", held: true, release: 30 * time.Millisecond, wait: 10 * time.Second, ok: true},
		{name: "held, told", held: true, wait: 1500 * time.Millisecond, told: true},
		{name: "held, context done", held: true, wait: 10 * time.Second, cancel: true, err: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := openLockFile(t)
			if tt.held {
				if err := Lock(b); err != nil {
					t.Fatal(err)
				}
				if err := NewHolderLock(b).WriteHolder("tape reindex"); err != nil {
					t.Fatal(err)
				}
			}
			if tt.release > 0 {
				time.AfterFunc(tt.release, func() { Unlock(b) }) //nolint:errcheck // a failure fails the test
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			var told []string
			ok, err := NewHolderLock(a).Acquire(ctx, tt.wait, func(heldBy string) { told = append(told, heldBy) })
			if ok != tt.ok || !errors.Is(err, tt.err) {
				t.Fatalf("Acquire = %v, %v; want %v, %v", ok, err, tt.ok, tt.err)
			}
			want := []string(nil)
			if tt.told {
				want = []string{fmt.Sprintf("held by pid %d: tape reindex", os.Getpid())}
			}
			if fmt.Sprint(told) != fmt.Sprint(want) {
				t.Errorf("onWait was told %q; want %q", told, want)
			}
			if free, err := TryLock(b); err != nil || free == ok {
				t.Errorf("TryLock by the other after Acquire = %v, %v; want %v", free, err, !ok)
			}
		})
	}
}

func TestHolderPID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data string
		want int
	}{
		{"pid 4242: tape watch\n", 4242},
		{"pid 7", 7},
		{"", 0},
		{"pid -3: tape watch", 0},
		{"pid x: tape watch", 0},
		{"tape watch", 0},
		{"pid 99999999999999999999: overflow", 0},
	}
	for _, tt := range tests {
		if got := HolderPID(tt.data); got != tt.want {
			t.Errorf("HolderPID(%q) = %d, want %d", tt.data, got, tt.want)
		}
	}
}

func FuzzHolderPID(f *testing.F) {
	for _, seed := range []string{"pid 1: tape watch\n", "pid :", "pid 0", "", "pid ١٢"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		pid := HolderPID(line)
		if pid < 0 {
			t.Fatalf("negative pid %d from %q", pid, line)
		}
		if pid > 0 && !strings.HasPrefix(line, "pid ") {
			t.Errorf("pid %d from %q, which does not start with \"pid \"", pid, line)
		}
	})
}
