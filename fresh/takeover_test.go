package fresh

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// An explicit watcher takes over from one started on demand, which hands
// over and returns nil; it is refused by another explicit one, and one
// started on demand never takes over. Issue 29: the README's `tape watch &`
// failed once any read had started a watcher.
func TestExplicitWatcherTakesOverFromOneStartedOnDemand(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "okapi")

	onDemand := &Watcher{P: openProjector(t, ws), OnDemand: true}
	done, _ := startWatching(t, onDemand)
	holder := readLock(t, ws)
	if !strings.HasSuffix(holder, onDemandMark) {
		t.Fatalf("watch.lock of a watcher started on demand = %q; want it marked", holder)
	}

	second := &Watcher{P: openProjector(t, ws), OnDemand: true}
	if err := second.Run(context.Background()); !errors.Is(err, ErrWatching) {
		t.Errorf("a second watcher started on demand: %v; want ErrWatching", err)
	}

	var asked []string
	var passes atomic.Int32
	explicit := &Watcher{P: openProjector(t, ws), OnTakeover: func(h string) { asked = append(asked, h) },
		OnPass: func(projector.Stats, error) { passes.Add(1) }}
	explicitDone, _ := startWatching(t, explicit)
	if err := waitReturn(t, done, 10*time.Second); err != nil {
		t.Errorf("the watcher started on demand returned %v on handing over; want nil", err)
	}
	if len(asked) != 1 || asked[0] != holder {
		t.Errorf("OnTakeover was told %q; want once, %q", asked, holder)
	}
	if got := readLock(t, ws); strings.HasSuffix(got, onDemandMark) {
		t.Errorf("watch.lock after the takeover = %q; want the explicit watcher", got)
	}

	// It serves readers.
	reader := openProjector(t, ws)
	appendMsg(t, ws, "main", "zebra")
	if synced, err := SyncWatcher(context.Background(), reader, 10*SyncTimeout); err != nil || !synced || !found(t, reader, "zebra") {
		t.Errorf("a read after the takeover: synced %v, %v, found %v; want the explicit watcher's answer", synced, err, found(t, reader, "zebra"))
	}

	// A request to hand over that reaches it late is no reader's barrier:
	// it neither returns nor looks at everything for it.
	before := passes.Load()
	late, err := ws.CreatePrivate(syncDir + "/" + takeoverPrefix + "1-0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	late.Close()
	if synced, err := SyncWatcher(context.Background(), reader, 10*SyncTimeout); err != nil || !synced {
		t.Fatalf("a read after a late request to hand over: synced %v, %v", synced, err)
	}
	if n := passes.Load() - before; n != 0 {
		t.Errorf("the explicit watcher ran %d passes for a late request to hand over and a barrier with nothing new; want 0", n)
	}

	third := &Watcher{P: openProjector(t, ws)}
	err = third.Run(context.Background())
	if !errors.Is(err, ErrWatching) || !strings.Contains(err.Error(), "stop it first") {
		t.Errorf("a second explicit watcher: %v; want ErrWatching telling to stop the first", err)
	}
	select {
	case err := <-explicitDone:
		t.Errorf("the explicit watcher stopped when another asked: %v", err)
	default:
	}
}

func readLock(t *testing.T, ws *tapelog.Workspace) string {
	t.Helper()
	data, err := ws.ReadPrivate(watchLockFile, 128)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}
