package fresh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// Syncing a reader with a running watcher.
//
// A read command must print what is on disk. Without a watcher it catches
// up itself, which costs a stat of every file (25ms at 1,000 folders).
// With one, it asks the watcher instead, through a barrier file:
//
//  1. The reader creates .tape/sync/<pid>-<random>-<generation>, in a
//     folder the watcher watches; the generation is that of the index
//     the reader has open (projector's generation.go).
//  2. inotify queues the events of one watcher in the order the changes
//     were made, so by the time the watcher reads the barrier's event it
//     has read the events of every change made before the reader started.
//  3. The watcher catches up with the folders those events named (with
//     every folder, after reopening index.db, if the index it has open is
//     not the reader's), then removes the barrier (or, if its pass failed
//     or its index is still another, writes the error into it).
//  4. The reader, watching the folder too, sees the removal and reads the
//     index, which now holds every change made before step 1.
//
// If no watcher holds watch.lock, or it does not answer in time, the
// reader catches up itself, as it would have anyway.
const syncDir = "sync"

// SyncTimeout is how long a read command waits for a watcher's answer
// before it catches up itself. A watcher busy with a long pass holds the
// index lock, and the reader's own catch-up then waits for it anyway.
const SyncTimeout = 500 * time.Millisecond

// SyncWatcher asks the watcher running on the workspace of p, if there
// is one, to catch up with every change made so far, and waits at most
// timeout for it. It reports whether the index p has open is now up to
// date; if not (no watcher, no answer, a failed pass), the caller catches
// up itself.
func SyncWatcher(ctx context.Context, p *projector.Projector, timeout time.Duration) (bool, error) {
	ws := p.Workspace()
	if !watcherRunning(ws) {
		return false, nil
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return false, nil // out of inotify instances: catch up the slow way
	}
	defer fw.Close()
	if err := fw.Add(ws.Abs(syncDir)); err != nil {
		return false, nil // a watcher that made no sync folder cannot answer
	}
	name, err := createBarrier(ws, p.Generation())
	if err != nil {
		return false, nil // a sync folder that cannot be written: catch up the slow way
	}
	rel := syncDir + "/" + name
	path := ws.Abs(rel)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case ev := <-fw.Events:
			if ev.Name != path {
				continue
			}
			switch {
			case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
				// Unless index.db was replaced since p opened it: then the
				// watcher caught up a database this process does not read.
				return !p.Replaced(), nil
			case ev.Has(fsnotify.Write):
				ws.Remove(rel) //nolint:errcheck // the watcher said its pass failed; ours will say why
				return false, nil
			}
		case <-fw.Errors:
			ws.Remove(rel) //nolint:errcheck
			return false, nil
		case <-timer.C:
			ws.Remove(rel) //nolint:errcheck // a stale barrier is also removed by the next watcher
			return false, nil
		case <-ctx.Done():
			ws.Remove(rel) //nolint:errcheck
			return false, ctx.Err()
		}
	}
}

// createBarrier creates a reader's barrier for an index of generation
// gen, and returns its name.
func createBarrier(ws *tapelog.Workspace, gen string) (string, error) {
	var b [8]byte
	rand.Read(b[:])
	name := fmt.Sprintf("%d-%s-%s", os.Getpid(), hex.EncodeToString(b[:]), gen)
	f, err := ws.CreatePrivate(syncDir + "/" + name)
	if err != nil {
		return "", fmt.Errorf("ask the watcher to catch up: %w", err)
	}
	return name, f.Close()
}

// barrier reports whether an event is a reader's barrier, and its name.
func (w *Watcher) barrier(ev fsnotify.Event) (string, bool) {
	if !ev.Has(fsnotify.Create) || filepath.Dir(ev.Name) != w.ws().Abs(syncDir) {
		return "", false
	}
	name := filepath.Base(ev.Name)
	return name, !strings.HasPrefix(name, ".")
}

// barrierGeneration is the generation of the index a barrier's reader
// has open: its name's third part; "" for a reader of a tape from
// before generations, which only asks for the index at index.db.
func barrierGeneration(name string) string {
	parts := strings.SplitN(name, "-", 3)
	if len(parts) < 3 {
		return ""
	}
	return parts[2]
}

// keeps reports whether the index the watcher has open is the one a
// reader of generation gen reads: the file at index.db, of that
// generation.
func (w *Watcher) keeps(gen string) bool {
	return !w.P.Replaced() && (gen == "" || gen == w.P.Generation())
}

// errOtherIndex is what a watcher answers a reader whose index is not
// the one the watcher keeps, even after reopening index.db: the reader
// opened an index that was replaced since, and catches up itself.
var errOtherIndex = errors.New("the watcher keeps another index than the reader's; catch up without it")

// answer tells the readers waiting on barriers that the index is up to
// date (their barrier is removed) or that the pass failed (the error is
// written into it).
func (w *Watcher) answer(barriers []string, passErr error) {
	for _, name := range barriers {
		rel := syncDir + "/" + name
		if passErr == nil {
			w.ws().Remove(rel) //nolint:errcheck // the reader removes it when it gives up
			continue
		}
		// Only into a barrier still there: a reader that gave up removed
		// its own, and a new one would be a barrier nobody waits on.
		w.ws().WriteExisting(rel, []byte(passErr.Error()+"\n")) //nolint:errcheck
	}
}

// staleBarrier is the age past which a barrier's reader has surely given
// up (it waits SyncTimeout, or the timeout it chose), so a watcher may remove it.
const staleBarrier = time.Minute

// clearStaleBarriers makes the sync folder and removes the barriers of
// readers that gave up or died. A younger barrier may have a reader
// waiting on it, which removing it would tell the index is up to date.
func (w *Watcher) clearStaleBarriers() error {
	if err := w.ws().MkdirPrivate(syncDir); err != nil {
		return err
	}
	entries, err := os.ReadDir(w.ws().Abs(syncDir))
	if err != nil {
		return fmt.Errorf("list %s: %w", syncDir, err)
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleBarrier {
			w.ws().Remove(syncDir + "/" + e.Name()) //nolint:errcheck
		}
	}
	return nil
}
