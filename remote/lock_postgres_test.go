//go:build postgres

package remote

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A sync that finds its workspace's lock held by another session (a sync
// killed a moment ago, whose session the server has not ended yet) says
// it waits, and goes on once the lock is released; one that waits past
// its bound is refused, as a sync that is still running.
func TestSyncWaitsForALock(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)
	appendEntry(t, ws, "main", "message", map[string]any{"role": "user", "content": "locked out"})
	ix := openIndex(t, ws)
	url := server.DB(t)
	wsID := identity(t, ws)
	holder := connect(t, url)
	const key = `hashtextextended('tape.sync/' || $1, 0)`
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_lock(`+key+`)`, wsID); err != nil {
		t.Fatal(err)
	}

	// Held throughout: refused once the wait is over.
	waited := false
	_, err := Sync(ctx, ix, connect(t, url), SyncOptions{LockWait: 200 * time.Millisecond, OnLockWait: func(time.Duration) { waited = true }})
	if !errors.Is(err, ErrSyncRunning) || !waited {
		t.Fatalf("a sync whose lock stays held: %v, told of the wait: %v; want ErrSyncRunning after a wait", err, waited)
	}

	// Released while the sync waits: it goes on.
	waiting, done := make(chan struct{}), make(chan error, 1)
	conn := connect(t, url)
	go func() {
		_, err := Sync(ctx, ix, conn, SyncOptions{LockWait: time.Minute, OnLockWait: func(time.Duration) { close(waiting) }})
		done <- err
	}()
	select {
	case <-waiting:
	case err := <-done:
		t.Fatalf("the sync ended without waiting for the lock: %v", err)
	}
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_unlock(`+key+`)`, wsID); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the sync after the lock was released: %v", err)
	}
	if n := count(t, holder, "entries", wsID); n != 2 {
		t.Errorf("the server holds %d entries, want 2 (the anchor and the message)", n)
	}
}
