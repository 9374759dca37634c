package fresh

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
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// ErrWatching is returned by Run when another watcher runs on the
// workspace.
var ErrWatching = errors.New("fresh: another watcher is running on this workspace")

// Watcher keeps the index live while agents write: an fsnotify watch on
// every folder under .tape/tapes, a catch-up after each burst of changes,
// and a full reconciliation now and then and after any watch error.
type Watcher struct {
	// P is the index the watcher keeps, open on the workspace it watches.
	P *projector.Projector
	// Debounce is how long the watcher waits after a change for more
	// before it catches up; 0 means 10ms.
	Debounce time.Duration
	// MaxDelay bounds how long a steady stream of changes can put a
	// catch-up off; 0 means 50ms.
	MaxDelay time.Duration
	// Reconcile is how often it re-adds every watch and catches up even
	// without events, as a safety net; 0 means 30s.
	Reconcile time.Duration
	// OnStart, if set, is called once Run holds the workspace (no other
	// watcher runs), before its first pass: what a watcher says or starts
	// beside it waits until it is sure to run.
	OnStart func()
	// OnPass, if set, is told of every pass.
	OnPass func(projector.Stats, error)
	// Idle, if not 0, makes Run return once no reader has synced with it
	// (sync.go) for that long: a watcher started on demand serves reads,
	// and one nobody reads from only costs its passes.
	Idle time.Duration
	// Retire, if set, is asked at each reader's barrier: true makes the
	// watcher turn the reader away (it catches up itself) and return. The
	// CLI retires a watcher whose binary was replaced, so that an old
	// version never keeps an index a new one reads.
	Retire func() bool
	// OnDemand marks a watcher a read started (decision 0056): it says so
	// in watch.lock, and hands over to an explicit watcher that asks
	// (takeover.go). Without it, a watcher that finds one started on
	// demand asks it to hand over, and waits up to TakeoverWait.
	OnDemand bool
	// OnTakeover, if set, is told when the watcher asks one started on
	// demand to hand over, with watch.lock's line of it.
	OnTakeover func(holder string)

	// Only touched by Run's goroutine:
	fw        *fsnotify.Watcher
	errs      <-chan error       // fw.Errors, through forwardErrors
	dirty     *projector.Changes // what changed since the last pass
	stale     bool               // events may have been missed: the next pass looks at everything
	unwatched map[string]bool    // folders (relative to the workspace) no watch could be added to
	fullPass  time.Duration      // how long the last pass over everything took
	home      os.FileInfo        // the workspace folder when Run started
	// addWatch, if set, adds a watch instead of fw.Add: tests make it
	// fail, as a full inotify table would.
	addWatch func(path string) error
}

// ErrWorkspaceGone is returned by Run when the workspace folder it
// watches was removed or moved away.
var ErrWorkspaceGone = errors.New("fresh: the workspace folder was removed")

// lockWait is how long a starting watcher waits for watch.lock: readers
// take it, shared, for a moment to see whether a watcher runs.
const lockWait = 500 * time.Millisecond

// Run watches until ctx is done. Only one watcher runs on a workspace at a
// time; a second one fails with ErrWatching, naming the first, unless
// the first was started on demand and this one was not: that one hands
// over (takeover.go). One started on demand returns nil when it hands over.
func (w *Watcher) Run(ctx context.Context) error {
	lock, err := w.ws().OpenPrivate(watchLockFile)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := w.lock(ctx, fileutil.NewHolderLock(lock)); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	if err := w.clearStaleBarriers(); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if w.OnStart != nil {
		w.OnStart()
	}

	w.home, _ = os.Stat(w.ws().Dir())
	if w.fw, err = fsnotify.NewBufferedWatcher(4096); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer w.fw.Close()
	w.errs = forwardErrors(w.fw.Errors)
	// Watch first, then scan: a folder made between the two is both
	// watched and caught up.
	w.addAll()
	w.dirty, w.stale = projector.NewChanges(), true
	w.pass(ctx)
	return w.loop(ctx)
}

func (w *Watcher) loop(ctx context.Context) error {
	debounce := cmpOr(w.Debounce, 10*time.Millisecond)
	reconcile := time.NewTimer(w.reconcileAfter())
	defer reconcile.Stop()
	maxDelay := cmpOr(w.MaxDelay, 50*time.Millisecond)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	idle := newTimerOrNever(w.Idle)
	defer idle.Stop()
	goneCheck := newTimerOrNever(0)
	defer goneCheck.Stop()
	var pendingSince time.Time // the first change not yet caught up with; zero when none
	var lastRemoval time.Time  // the last removal seen
	passNow := func() error {
		timer.Stop()
		pendingSince = time.Time{}
		return w.pass(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-idle.C:
			return nil
		case <-goneCheck.C:
			if w.workspaceGone() {
				return ErrWorkspaceGone
			}
		case ev, ok := <-w.fw.Events:
			if !ok {
				return errors.New("watch: fsnotify closed its events")
			}
			if ev.Has(fsnotify.Remove) {
				lastRemoval = time.Now()
			}
			if w.removedAtTop(ev) {
				goneCheck.Reset(goneCheckDelay)
			}
			if name, ok := w.barrier(ev); ok {
				if request, handOver := w.takeoverRequest(name); handOver {
					return nil
				} else if request {
					continue
				}
				idle.Reset(w.Idle)
				if w.Retire != nil && w.Retire() {
					w.answer([]string{name}, errRetired)
					return nil
				}
				w.answer([]string{name}, w.serveBarrier(name, passNow))
				continue
			}
			if !w.changed(ev) {
				continue
			}
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
				w.report(projector.Stats{}, fmt.Errorf("watch: %w; reconciling", err))
			}
			w.addAll()
			w.stale = true
			passNow() //nolint:errcheck // reported
		case <-timer.C:
			if quiet := time.Since(lastRemoval); quiet < removalQuiet {
				// Something is being removed, maybe the whole workspace
				// (rm -r .tape): a pass now would make index.lock and
				// index.db again, and rm fail on a folder not empty.
				timer.Reset(removalQuiet - quiet)
				continue
			}
			pendingSince = time.Time{}
			w.pass(ctx) //nolint:errcheck // reported
		case <-reconcile.C:
			if w.workspaceGone() {
				return ErrWorkspaceGone
			}
			w.clearStaleBarriers() //nolint:errcheck // the next reconciliation tries again
			w.stale = true
			w.addAll()
			passNow() //nolint:errcheck // reported
			reconcile.Reset(w.reconcileAfter())
		}
	}
}

// serveBarrier makes the index a reader waits for fresh, and says
// whether it is: every change made before the reader's barrier is in
// w.dirty now (see sync.go), so it catches up at once. Folders without a
// watch make no events: it looks at them. An index that is not the
// reader's (projector's generation.go) is reopened, and every folder
// looked at.
func (w *Watcher) serveBarrier(name string, passNow func() error) error {
	w.lookUnwatched()
	gen := barrierGeneration(name)
	if !w.keeps(gen) {
		w.stale = true
	}
	if w.stale || !w.dirty.Empty() {
		if err := passNow(); err != nil {
			return err
		}
	}
	// What a killed rebuild left would otherwise wait for the next pass
	// with something to do.
	w.P.RemoveKilledBuilds()
	if !w.keeps(gen) {
		return errOtherIndex
	}
	return nil
}

// changed keeps the watches and the folders to look at in step with a
// change to the tapes, and reports whether ev was one.
func (w *Watcher) changed(ev fsnotify.Event) bool {
	rel, ok := w.relevant(ev)
	if !ok {
		return false
	}
	stale := false // a Remove or Rename under the path of a folder that is there
	if ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove) {
		w.forget(ev.Name)
		stale = isFolder(ev.Name) // looked at only here: a Write, the common event, costs no stat
	}
	// A new folder, or one that may just have become readable (a watch
	// cannot be added to a folder that is not): watch it, and what
	// mkdir -p made in it. So too a folder at the path of one removed or
	// moved away: fsnotify names a folder's events by the path it was
	// watched at, so a folder moved away and removed (tape reset) sends
	// its Remove events under the path where a new folder of the same
	// name may already be watched, and forgetting them forgot the new
	// one: its writes made no event, and readers were told the index was
	// up to date without them (TestWatcherSyncEqualsRebuild, seed 4, with
	// the watcher behind fsnotify).
	if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Chmod) || stale {
		w.addTree(ev.Name)
	}
	w.dirty.Add(rel)
	return true
}

// isFolder reports whether path is a folder now, not following a symlink.
func isFolder(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}

// errRetired is what a retiring watcher answers a reader with.
var errRetired = errors.New("the watcher is stopping; catch up without it")

// reconcileAfter is how long to wait before the next reconciliation:
// Reconcile (30s by default), or a hundred times the last pass over
// everything if that is longer, so that the safety net costs at most a
// hundredth of a core on a workspace of many tapes (a pass over 10,000
// tapes stats some 30,000 files).
func (w *Watcher) reconcileAfter() time.Duration {
	return max(cmpOr(w.Reconcile, 30*time.Second), 100*w.fullPass)
}

// newTimerOrNever is a timer that fires after d, or never if d is 0.
func newTimerOrNever(d time.Duration) *timerOrNever {
	t := &timerOrNever{Timer: time.NewTimer(time.Hour)}
	t.Reset(d)
	return t
}

// timerOrNever is a time.Timer that Reset(0) stops instead of firing.
type timerOrNever struct{ *time.Timer }

func (t *timerOrNever) Reset(d time.Duration) {
	t.Stop()
	if d > 0 {
		t.Timer.Reset(d)
	}
}

// removedAtTop reports whether ev removes or moves the workspace folder
// or something in it: the cue to check, a moment later, whether the
// folder is gone (workspaceGone). The folder's own event does not come
// while the watcher holds it open (its os.Root), and the events of what
// was in it come before the folder is removed.
func (w *Watcher) removedAtTop(ev fsnotify.Event) bool {
	dir := w.ws().Dir()
	return (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && (ev.Name == dir || filepath.Dir(ev.Name) == dir)
}

// workspaceGone reports whether the workspace folder was removed or
// moved away, or replaced (rm -r .tape; tape init).
func (w *Watcher) workspaceGone() bool {
	fi, err := os.Stat(w.ws().Dir())
	return errors.Is(err, fs.ErrNotExist) || (err == nil && w.home != nil && !os.SameFile(fi, w.home))
}

// removalQuiet is how long after the last removal the watcher waits
// before it catches up on its own (a reader's barrier does not wait).
const removalQuiet = 200 * time.Millisecond

// goneCheckDelay is how long after a removal at the top of the workspace
// the watcher checks whether the workspace is gone.
const goneCheckDelay = 100 * time.Millisecond

// relevant reports whether an event is about the tapes, not about the
// index files beside them, which every pass itself changes, and returns
// its path relative to the workspace.
func (w *Watcher) relevant(ev fsnotify.Event) (string, bool) {
	rel, err := filepath.Rel(w.ws().Dir(), ev.Name)
	return rel, err == nil && (rel == "tapes" || strings.HasPrefix(rel, "tapes"+string(filepath.Separator))) && !projector.InForkPath(rel)
}

// pass catches up with what changed since the last pass, or with
// everything if events may have been missed or the last pass failed.
func (w *Watcher) pass(ctx context.Context) error {
	sc := w.dirty
	if w.stale {
		sc = nil
	}
	w.dirty, w.stale = projector.NewChanges(), false
	start := time.Now()
	st, err := w.P.CatchUpChanges(ctx, sc)
	if sc == nil && err == nil {
		w.fullPass = time.Since(start)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		w.stale = true // what this pass was to catch up with is not in w.dirty any more
	}
	w.report(st, err)
	return err
}

func (w *Watcher) report(st projector.Stats, err error) {
	if w.OnPass != nil {
		w.OnPass(st, err)
	}
}

// addAll watches the workspace folder, the folder of readers' barriers
// and every folder under tapes/.
func (w *Watcher) addAll() {
	w.unwatched = map[string]bool{}
	w.fw.Add(w.ws().Dir())        //nolint:errcheck // the next reconciliation tries again
	w.fw.Add(w.ws().Abs(syncDir)) //nolint:errcheck
	w.addTree(filepath.Join(w.ws().Dir(), "tapes"))
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
		if rel, err := filepath.Rel(w.ws().Dir(), path); err == nil && projector.InForkPath(rel) {
			return filepath.SkipDir // forks are not indexed: their writes cost the watcher nothing
		}
		if err := w.add(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			// Out of inotify watches (fs.inotify.max_user_watches), say:
			// this folder's changes make no event, so every reader's
			// barrier looks at it, until a reconciliation adds a watch.
			w.unwatch(path)
		}
		return nil
	})
}

func (w *Watcher) add(path string) error {
	if w.addWatch != nil {
		return w.addWatch(path)
	}
	return w.fw.Add(path)
}

// unwatch records a folder no watch could be added to; the next pass
// looks at everything, this folder included.
func (w *Watcher) unwatch(path string) {
	rel, err := filepath.Rel(w.ws().Dir(), path)
	if err != nil {
		rel = "."
	}
	w.unwatched[filepath.ToSlash(rel)] = true
	w.stale = true
}

// lookUnwatched marks the folders without a watch as changed: they make
// no events, so a reader's barrier must look at them itself. Without a
// watch on a tape's folder, that is one stat per file of the tape; without
// one on the tapes folder, or the workspace's, everything.
func (w *Watcher) lookUnwatched() {
	for rel := range w.unwatched {
		if !strings.HasPrefix(rel, "tapes/") {
			w.stale = true
			return
		}
		w.dirty.Add(rel)
	}
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

// ws is the workspace the watcher watches.
func (w *Watcher) ws() *tapelog.Workspace { return w.P.Workspace() }

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
