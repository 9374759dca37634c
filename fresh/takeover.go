package fresh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/fileutil"
)

// Taking over from a watcher started on demand.
//
// A read starts a watcher in the background when none runs (decision
// 0056), so a person who then runs `tape watch` (to see its passes, to
// follow agents, to sync to a server) found the workspace taken: "another
// watcher is running; stop it first" (issue 29). A watcher started on
// demand says so in watch.lock; an explicit one that finds it there asks
// it to hand over, by a file in the folder of readers' barriers
// (takeover-<pid>-<random>), and waits for the lock. The one started on
// demand answers by removing the file and returning from Run, which
// releases the lock. Only another explicit watcher is refused.

// takeoverPrefix starts the name of a request to hand over.
const takeoverPrefix = "takeover-"

// onDemandMark ends watch.lock's line of a watcher started on demand.
const onDemandMark = " (started on demand)"

// TakeoverWait is how long an explicit watcher waits for one started on
// demand to hand over: the time it takes to finish the pass it is in,
// which on a new index of many tapes is a full build.
const TakeoverWait = time.Minute

// lock takes watch.lock for Run, from a watcher started on demand if need
// be, and writes this watcher into it.
func (w *Watcher) lock(ctx context.Context, lock fileutil.HolderLock) error {
	lockCtx, cancel := context.WithTimeout(ctx, lockWait)
	err := fileutil.LockContext(lockCtx, lock.File())
	cancel()
	if err != nil && ctx.Err() == nil && !w.OnDemand {
		err = w.takeOver(ctx, lock)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w (%s); stop it first", ErrWatching, lock.Holder())
	}
	what := "tape watch"
	if w.OnDemand {
		what += onDemandMark
	}
	lock.WriteHolder(what) //nolint:errcheck // the line only names the holder in messages
	return nil
}

// takeOver asks the watcher started on demand that holds lock to hand
// over, and takes the lock when it does; it gives up on a watcher that
// was not started on demand, and after TakeoverWait. Whoever holds the
// lock is asked again if it changes: another read may start a watcher
// the moment the first one hands over.
func (w *Watcher) takeOver(ctx context.Context, lock fileutil.HolderLock) error {
	deadline := time.Now().Add(TakeoverWait)
	asked := ""
	defer func() {
		if asked != "" {
			w.ws().Remove(syncDir + "/" + asked) //nolint:errcheck // answered already, or stale: removed by the next watcher
		}
	}()
	for {
		holder := lock.Holder()
		if !strings.HasSuffix(holder, onDemandMark) {
			return ErrWatching
		}
		if !strings.HasPrefix(asked, takeoverPrefix+holderPID(holder)+"-") {
			if asked != "" {
				w.ws().Remove(syncDir + "/" + asked) //nolint:errcheck
			}
			name, err := w.askToHandOver(holder)
			if err != nil {
				return err
			}
			asked = name
			if w.OnTakeover != nil {
				w.OnTakeover(holder)
			}
		}
		waitCtx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		err := fileutil.LockContext(waitCtx, lock.File())
		cancel()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
	}
}

// askToHandOver writes a request to hand over where the watcher started
// on demand, holder, sees it: takeover-<its pid>-<random>.
func (w *Watcher) askToHandOver(holder string) (string, error) {
	if err := w.ws().MkdirPrivate(syncDir); err != nil {
		return "", err
	}
	var b [8]byte
	rand.Read(b[:])
	name := takeoverPrefix + holderPID(holder) + "-" + hex.EncodeToString(b[:])
	f, err := w.ws().CreatePrivate(syncDir + "/" + name)
	if err != nil {
		return "", fmt.Errorf("ask the watcher started on demand to hand over: %w", err)
	}
	return name, f.Close()
}

// takeoverRequest reports whether a barrier's name is a request to hand
// over, not a reader's, and whether this watcher hands over: one started
// on demand does, by returning. Another leaves it to its asker, who gave
// up on it or is about to (it asks only a watcher started on demand).
func (w *Watcher) takeoverRequest(name string) (request, handOver bool) {
	if !strings.HasPrefix(name, takeoverPrefix) {
		return false, false
	}
	if w.OnDemand {
		w.ws().Remove(syncDir + "/" + name) //nolint:errcheck // the asker removes it too
	}
	return true, w.OnDemand
}

// holderPID is the pid of watch.lock's line, as written: "" if none.
func holderPID(holder string) string {
	if pid := fileutil.HolderPID(holder); pid > 0 {
		return fmt.Sprint(pid)
	}
	return ""
}
