package projector

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/tape-dev/tape/internal/fileutil"
)

const watchLockFile = "watch.lock"

// ErrWatching is returned by Watch when another watcher runs on the
// workspace.
var ErrWatching = errors.New("projector: another watcher is running on this workspace")

// Watcher keeps the index live while agents write: an fsnotify watch on
// every folder under .tape/tapes, a catch-up after each burst of changes,
// and a full reconciliation now and then and after any watch error.
type Watcher struct {
	P *Projector
	// Debounce is how long the watcher waits after a change for more
	// before it catches up; 0 means 10ms.
	Debounce time.Duration
	// MaxDelay bounds how long a steady stream of changes can put a
	// catch-up off; 0 means 50ms.
	MaxDelay time.Duration
	// Reconcile is how often it re-adds every watch and catches up even
	// without events, as a safety net; 0 means 30s.
	Reconcile time.Duration
	// OnPass, if set, is told of every pass.
	OnPass func(Stats, error)

	// Only touched by Run's goroutine:
	fw    *fsnotify.Watcher
	errs  <-chan error // fw.Errors, through forwardErrors
	dirty *scope       // what changed since the last pass
	stale bool         // events may have been missed: the next pass looks at everything
}

// lockWait is how long a starting watcher waits for watch.lock: readers
// take it, shared, for a moment to see whether a watcher runs.
const lockWait = 500 * time.Millisecond

// Run watches until ctx is done. Only one watcher runs on a workspace at a
// time; a second one fails with ErrWatching, naming the first.
func (w *Watcher) Run(ctx context.Context) error {
	lock, err := w.P.ws.OpenPrivate(watchLockFile)
	if err != nil {
		return err
	}
	defer lock.Close()
	lockCtx, cancel := context.WithTimeout(ctx, lockWait)
	err = fileutil.LockContext(lockCtx, lock)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		buf := make([]byte, 128)
		n, _ := lock.ReadAt(buf, 0)
		return fmt.Errorf("%w (%s); stop it first", ErrWatching, strings.TrimSpace(string(buf[:n])))
	}
	lock.Truncate(0)
	lock.WriteAt([]byte(fmt.Sprintf("pid %d: tape watch\n", os.Getpid())), 0)
	if err := w.clearStaleBarriers(); err != nil {
		return fmt.Errorf("watch: %w", err)
	}

	if w.fw, err = fsnotify.NewBufferedWatcher(4096); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer w.fw.Close()
	w.errs = forwardErrors(w.fw.Errors)
	// Watch first, then scan: a folder made between the two is both
	// watched and caught up.
	w.addAll()
	w.dirty, w.stale = newScope(), true
	w.pass(ctx)
	return w.loop(ctx)
}

func (w *Watcher) loop(ctx context.Context) error {
	debounce := cmpOr(w.Debounce, 10*time.Millisecond)
	reconcile := time.NewTicker(cmpOr(w.Reconcile, 30*time.Second))
	defer reconcile.Stop()
	maxDelay := cmpOr(w.MaxDelay, 50*time.Millisecond)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var pendingSince time.Time // the first change not yet caught up with; zero when none
	passNow := func() error {
		timer.Stop()
		pendingSince = time.Time{}
		return w.pass(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.fw.Events:
			if !ok {
				return errors.New("watch: fsnotify closed its events")
			}
			if name, ok := w.barrier(ev); ok {
				// A reader waits: every change before it is in w.dirty
				// now (see sync.go), so catch up at once, and answer.
				var err error
				if w.stale || !w.dirty.empty() {
					err = passNow()
				}
				w.answer([]string{name}, err)
				continue
			}
			rel, ok := w.relevant(ev)
			if !ok {
				continue
			}
			if ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove) {
				w.forget(ev.Name)
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Chmod) {
				// A new folder, or one that may just have become readable
				// (a watch cannot be added to a folder that is not): watch
				// it, and what mkdir -p made in it.
				w.addTree(ev.Name)
			}
			w.dirty.add(rel)
			// Wait for the burst to end, but not past maxDelay after its
			// first change: writers that never pause still get indexed.
			if pendingSince.IsZero() {
				pendingSince = time.Now()
			}
			timer.Reset(min(debounce, time.Until(pendingSince.Add(maxDelay))))
		case err, ok := <-w.errs:
			if !ok {
				return errors.New("watch: fsnotify closed its errors")
			}
			// ErrEventOverflow or another error: events were lost, so look
			// at everything.
			if !staleWatch(err) {
				w.report(Stats{}, fmt.Errorf("watch: %w; reconciling", err))
			}
			w.addAll()
			w.stale = true
			passNow() //nolint:errcheck // reported
		case <-timer.C:
			pendingSince = time.Time{}
			w.pass(ctx) //nolint:errcheck // reported
		case <-reconcile.C:
			w.clearStaleBarriers() //nolint:errcheck // the next reconciliation tries again
			w.stale = true
			w.addAll()
			passNow() //nolint:errcheck // reported
		}
	}
}

// relevant reports whether an event is about the tapes, not about the
// index files beside them, which every pass itself changes, and returns
// its path relative to the workspace.
func (w *Watcher) relevant(ev fsnotify.Event) (string, bool) {
	rel, err := filepath.Rel(w.P.ws.Dir(), ev.Name)
	return rel, err == nil && (rel == "tapes" || strings.HasPrefix(rel, "tapes"+string(filepath.Separator))) && !inForkPath(rel)
}

// pass catches up with what changed since the last pass, or with
// everything if events may have been missed or the last pass failed.
func (w *Watcher) pass(ctx context.Context) error {
	sc := w.dirty
	if w.stale {
		sc = nil
	}
	w.dirty, w.stale = newScope(), false
	st, err := w.P.catchUpScoped(ctx, sc)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		w.stale = true // what this pass was to catch up with is not in w.dirty any more
	}
	w.report(st, err)
	return err
}

func (w *Watcher) report(st Stats, err error) {
	if w.OnPass != nil {
		w.OnPass(st, err)
	}
}

// addAll watches the workspace folder, the folder of readers' barriers
// and every folder under tapes/.
func (w *Watcher) addAll() {
	w.fw.Add(w.P.ws.Dir())        //nolint:errcheck // the next reconciliation tries again
	w.fw.Add(w.P.ws.Abs(syncDir)) //nolint:errcheck
	w.addTree(filepath.Join(w.P.ws.Dir(), "tapes"))
}

// addTree watches dir and the folders below it, not following symlinks.
func (w *Watcher) addTree(dir string) {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error { //nolint:errcheck
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") && path != dir {
			return filepath.SkipDir // temporary folders are renamed into place, and seen then
		}
		if rel, err := filepath.Rel(w.P.ws.Dir(), path); err == nil && inForkPath(rel) {
			return filepath.SkipDir // forks are not indexed: their writes cost the watcher nothing
		}
		if err := w.fw.Add(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			// Out of inotify watches, say: this folder's changes make no
			// event, so scoped passes cannot be trusted until a watch is
			// added at a reconciliation.
			w.stale = true
		}
		return nil
	})
}

// forget removes the watches of a folder that was moved or removed and of
// the folders below it. A moved folder keeps its inotify watches, and
// fsnotify keeps naming their events by the old path: a renamed tape's
// appends would mark the old name dirty, and a folder archived by tape
// reset would hold its watches for the watcher's life.
func (w *Watcher) forget(path string) {
	prefix := path + string(filepath.Separator)
	for _, p := range w.fw.WatchList() {
		if p == path || strings.HasPrefix(p, prefix) {
			w.fw.Remove(p) //nolint:errcheck // already gone with its folder
		}
	}
}

// forwardErrors passes fsnotify's errors on without ever making fsnotify
// wait. fsnotify sends some errors while it holds the lock that Add,
// Remove and WatchList take (when a moved folder's watch cannot be
// removed), and its Errors channel has no buffer: a loop that both reads
// Errors and calls those waited for the lock while fsnotify waited for the
// loop (a CI run hung in TestIndexDeletedWhileWatching). Errors past
// maxPendingErrors are dropped: each only makes the loop reconcile. It
// reads until fsnotify closes its channel (Close, which Run defers), not
// until the context ends: fsnotify may still send while the loop stops;
// what is pending then is dropped, so no goroutine waits for a reader.
// staleWatch reports whether err is fsnotify failing to drop a watch the
// kernel had dropped already: when a watched folder moves, fsnotify
// removes its watch (inotify_rm_watch), and if the folder was deleted
// before fsnotify read the move, the watch is gone and the call fails with
// EINVAL. Nothing was lost (the deletion has its own event); the loop still
// reconciles, but says nothing: it was a spurious warning of tape watch
// whenever an agent renamed and removed a folder quickly, and a failure of
// the tests that count the watcher's errors when the machine was busy.
func staleWatch(err error) bool {
	return errors.Is(err, syscall.EINVAL)
}

func forwardErrors(in <-chan error) <-chan error {
	out := make(chan error)
	go func() {
		defer close(out)
		var pending []error
		for {
			var send chan<- error
			var next error
			if len(pending) > 0 {
				send, next = out, pending[0]
			}
			select {
			case err, ok := <-in:
				if !ok {
					return
				}
				if len(pending) < maxPendingErrors {
					pending = append(pending, err)
				}
			case send <- next:
				pending = pending[1:]
			}
		}
	}()
	return out
}

const maxPendingErrors = 64

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
