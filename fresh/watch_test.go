package fresh

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/testkit/poll"
	"github.com/tape-dev/tape/testkit/short"
)

// runWatcher runs w until the test ends, and returns once its first pass
// has run (its watches are in place). The test fails if the watcher stops
// before that, or returns an error.
func runWatcher(t *testing.T, w *Watcher) {
	t.Helper()
	done, cancel := startWatching(t, w)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watcher: %v", err)
		}
	})
}

// startWatching runs w until the test ends, or until cancel, and returns
// once its first pass has run; done gets what Run returns. The test fails
// if the watcher stops before its first pass.
func startWatching(t *testing.T, w *Watcher) (done <-chan error, cancel func()) {
	t.Helper()
	first := make(chan struct{})
	var once sync.Once
	onPass := w.OnPass
	w.OnPass = func(st projector.Stats, err error) {
		if onPass != nil {
			onPass(st, err)
		}
		once.Do(func() { close(first) })
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	select {
	case <-first:
	case err := <-ran:
		t.Fatalf("watcher stopped before its first pass: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher's first pass did not come")
	}
	return ran, cancel
}

func startWatcher(t *testing.T, p *projector.Projector) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var passes sync.WaitGroup
	passes.Add(1)
	var once sync.Once
	w := &Watcher{P: p, OnPass: func(projector.Stats, error) { once.Do(passes.Done) }}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	passes.Wait() // the first pass has run: the watches are in place
	return func() error {
		cancel()
		return <-done
	}
}

func TestWatcherFollowsWriters(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	watching := openProjector(t, ws)
	stop := startWatcher(t, watching)
	reader := openProjector(t, ws) // another connection, as another process reads

	// A line appended by hand.
	file := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start/messages.jsonl")
	appendRaw(t, file, `{"role":"user","content":"zebra crossing"}`+"\n")
	poll.Until(t, 5*time.Second, "hand-appended line searchable", func() bool { return found(t, reader, "zebra") })

	// A new tape and anchor folder made with mkdir -p, written at once.
	dir := filepath.Join(ws.Dir(), "tapes/new/anchors/001_start")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, filepath.Join(dir, "x.jsonl"), `{"role":"user","content":"giraffe"}`+"\n")
	poll.Until(t, 5*time.Second, "line in a new folder searchable", func() bool { return found(t, reader, "giraffe") })

	// A handoff through tape, then an append into the new anchor.
	tp, _ := ws.Tape("main")
	if _, err := tp.Handoff(context.Background(), "review", nil); err != nil {
		t.Fatal(err)
	}
	tp.Close()
	appendMsg(t, ws, "main", "okapi")
	poll.Until(t, 5*time.Second, "entry after a handoff searchable", func() bool { return found(t, reader, "okapi") })

	// A second watcher is refused, naming the first.
	second := &Watcher{P: reader}
	if err := second.Run(context.Background()); !errors.Is(err, ErrWatching) {
		t.Errorf("second watcher: %v, want ErrWatching", err)
	}
	if err := stop(); err != nil {
		t.Errorf("watcher stopped with %v", err)
	}
	if got, want := dump(t, reader, vocabulary), rebuiltDump(t, ws, vocabulary); got != want {
		t.Errorf("the watched index differs from a rebuild")
	}
}

// BenchmarkWatchLatency measures the time from an append by hand to the
// line being searchable, with a watcher running:
//
//	go test ./fresh -run '^$' -bench WatchLatency -count 6
func BenchmarkWatchLatency(b *testing.B) {
	ws := newWorkspaceB(b)
	p, err := projector.Open(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	var once sync.Once
	go (&Watcher{P: p, OnPass: func(projector.Stats, error) { once.Do(func() { close(ready) }) }}).Run(ctx)
	<-ready
	reader, err := projector.Open(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	defer reader.Close()
	file := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start/messages.jsonl")
	var latencies []time.Duration
	for i := 0; b.Loop(); i++ {
		word := "word" + string(rune('a'+i%26)) + itoa(i)
		start := time.Now()
		f, _ := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		f.WriteString(`{"role":"user","content":"` + word + `"}` + "\n")
		f.Close()
		indexed := poll.WaitEvery(10*time.Second, time.Millisecond, func() bool { // the latency is what is measured: look often
			hits, err := reader.Search(context.Background(), projector.SearchQuery{Text: word})
			if err != nil {
				b.Fatal(err)
			}
			return len(hits) > 0
		})
		if !indexed {
			b.Fatalf("%s not searchable within 10 s of its append", word)
		}
		latencies = append(latencies, time.Since(start))
	}
	reportPercentiles(b, latencies)
}

// A writer that never pauses longer than the debounce still sees its
// entries indexed, within MaxDelay of each.
func TestWatcherDebounceIsBounded(t *testing.T) {
	ws := newWorkspace(t)
	stop := startWatcher(t, openProjector(t, ws))
	defer stop()
	reader := openProjector(t, ws)
	file := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start/messages.jsonl")
	appendRaw(t, file, `{"role":"user","content":"first okapi"}`+"\n")
	indexed := poll.WaitEvery(5*time.Second, 2*time.Millisecond, func() bool { // keep writing every 2 ms, under the 10 ms debounce
		if found(t, reader, "okapi") {
			return true
		}
		appendRaw(t, file, `{"role":"user","content":"more"}`+"\n")
		return false
	})
	if !indexed {
		t.Fatal("a steady writer starved the watcher")
	}
}

// forwardErrors takes every error at once, however long its reader is
// away: fsnotify sends some while holding the lock the reader may be
// waiting for.
func TestForwardErrorsNeverBlocks(t *testing.T) {
	t.Parallel()
	in := make(chan error)
	out := forwardErrors(in)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := range 3 * maxPendingErrors {
			in <- fmt.Errorf("error %d", i)
		}
	}()
	select {
	case <-sent:
	case <-time.After(10 * time.Second):
		t.Fatal("sending errors blocked while nobody read them")
	}
	if err := <-out; err == nil || err.Error() != "error 0" {
		t.Fatalf("first error forwarded: %v, want error 0", err)
	}
	// Closed by fsnotify, it closes out, what is pending dropped: no
	// goroutine is left waiting for a reader.
	close(in)
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-out:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the forwarder did not close its channel after fsnotify closed its own")
		}
	}
}

// A folder renamed and then deleted before fsnotify reads the rename makes
// fsnotify fail to remove a watch the kernel had dropped (EINVAL): nothing
// was lost, and the watcher says nothing of it (staleWatch).
func TestWatcherQuietWhenFoldersMoveAndGo(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	p := openProjector(t, ws)
	var mu sync.Mutex
	var errs []error
	w := &Watcher{P: p, OnPass: func(_ projector.Stats, err error) {
		if err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	}}
	runWatcher(t, w) // w.fw is set
	anchors := filepath.Join(ws.Dir(), "tapes/main/anchors")
	for i := range short.Sized(300, 60) {
		dir := filepath.Join(anchors, fmt.Sprintf("%03d_tmp", 100+i))
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		poll.Until(t, 5*time.Second, "the watch of a new folder", func() bool {
			return slices.Contains(w.fw.WatchList(), dir)
		})
		moved := dir + "-moved"
		if err := os.Rename(dir, moved); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(moved); err != nil {
			t.Fatal(err)
		}
	}
	appendMsg(t, ws, "main", "after the churn, a quokka")
	reader := openProjector(t, ws)
	poll.Until(t, 10*time.Second, "the watcher to index the append", func() bool { return found(t, reader, "quokka") })
	mu.Lock()
	defer mu.Unlock()
	for _, err := range errs {
		t.Errorf("watcher reported: %v", err)
	}
}

// waitReturn waits for Run to return, and fails the test if it does not
// within timeout.
func waitReturn(t *testing.T, done <-chan error, timeout time.Duration) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(timeout):
		t.Fatalf("the watcher still runs after %s", timeout)
		return nil
	}
}

// A watcher with Idle exits once no reader has synced with it for that
// long, and a reader's barrier puts that off.
func TestWatcherExitsWhenIdle(t *testing.T) {
	ws := newWorkspace(t)
	// Syncs a quarter of Idle apart: a sync that takes up to three
	// quarters of it (a loaded CI machine took more than 200 ms of 400)
	// still finds the watcher there.
	idle := 2 * time.Second
	w := &Watcher{P: openProjector(t, ws), Idle: idle}
	done, _ := startWatching(t, w)
	reader := openProjector(t, ws)
	var lastAsked time.Time
	for range 3 { // each sync puts the exit off by Idle
		lastAsked = time.Now()
		syncWatcher(t, reader)
		time.Sleep(idle / 4)
	}
	if err := waitReturn(t, done, 10*time.Second); err != nil {
		t.Fatalf("idle watcher returned %v, want nil", err)
	}
	if gone := time.Since(lastAsked); gone < idle {
		t.Errorf("the watcher exited %s after the last sync began, before Idle (%s)", gone, idle)
	}
	if watcherRunning(reader.Workspace()) {
		t.Error("watch.lock is still held after the watcher exited")
	}
}

// A watcher told to retire answers the next reader with an error (so it
// catches up itself at once, instead of waiting out its timeout), and
// returns.
func TestWatcherRetiresAtABarrier(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	retire := make(chan bool, 1)
	retire <- false
	w := &Watcher{P: openProjector(t, ws), Retire: func() bool { return <-retire }}
	done, _ := startWatching(t, w)
	reader := openProjector(t, ws)
	syncWatcher(t, reader) // not yet
	retire <- true
	start := time.Now()
	ok, err := SyncWatcher(context.Background(), reader, time.Minute)
	if ok || err != nil {
		t.Fatalf("SyncWatcher with a retiring watcher = %v, %v; want false, nil", ok, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the reader waited %s for a watcher that retired", d)
	}
	if err := waitReturn(t, done, 10*time.Second); err != nil {
		t.Fatalf("retired watcher returned %v, want nil", err)
	}
}

// A watcher whose workspace folder is removed returns ErrWorkspaceGone
// instead of watching nothing for ever.
func TestWatcherStopsWhenTheWorkspaceGoes(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	done, _ := startWatching(t, &Watcher{P: openProjector(t, ws)})
	if err := os.RemoveAll(ws.Dir()); err != nil {
		t.Fatal(err)
	}
	if err := waitReturn(t, done, 10*time.Second); !errors.Is(err, ErrWorkspaceGone) {
		t.Fatalf("Run after the workspace was removed = %v, want ErrWorkspaceGone", err)
	}
}

// A folder the watcher could not watch (a full inotify table) makes no
// events: a reader's barrier must still see a line appended there.
func TestWatcherLooksAtFoldersWithoutAWatch(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "other", "first")
	folder := filepath.Join(ws.Dir(), "tapes/other/anchors/001_session-start")
	if _, err := os.Stat(folder); err != nil {
		t.Fatal(err)
	}
	w := &Watcher{P: openProjector(t, ws)}
	w.addWatch = func(path string) error {
		if path == folder {
			return syscall.ENOSPC
		}
		return w.fw.Add(path)
	}
	done, _ := startWatching(t, w)
	reader := openProjector(t, ws)
	for i, word := range []string{"quokka", "numbat"} {
		appendRaw(t, filepath.Join(folder, "messages.jsonl"), `{"role":"user","content":"`+word+`"}`+"\n")
		syncWatcher(t, reader)
		if !found(t, reader, word) {
			t.Fatalf("sync %d: a line appended in a folder without a watch is not in the index", i)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("the watcher stopped: %v", err)
	default:
	}
}

// The reconciliation, a pass over everything, waits at least a hundred
// times as long as such a pass takes.
func TestReconcileAfterScalesWithTheFullPass(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ reconcile, fullPass, want time.Duration }{
		{0, 0, 30 * time.Second},
		{0, 100 * time.Millisecond, 30 * time.Second},
		{0, 2 * time.Second, 200 * time.Second},
		{time.Second, 50 * time.Millisecond, 5 * time.Second},
	} {
		w := &Watcher{Reconcile: tt.reconcile, fullPass: tt.fullPass}
		if got := w.reconcileAfter(); got != tt.want {
			t.Errorf("Reconcile %s, full pass %s: reconcileAfter = %s, want %s", tt.reconcile, tt.fullPass, got, tt.want)
		}
	}
}

// A Remove or Rename event under the path of a folder that is there now
// keeps the folder watched: fsnotify names a folder's events by the path
// it was watched at, so a folder moved away and removed (tape reset) sends
// its Remove events under the path of the new folder of the same name,
// which the watcher may be watching already. Forgetting it lost the new
// folder's writes, and readers were told the index held them.
func TestWatcherKeepsAFolderAStaleEventNames(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "okapi")
	w := &Watcher{P: openProjector(t, ws), dirty: projector.NewChanges()}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	w.fw = fw
	w.addAll()
	folder := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start")
	if !slices.Contains(fw.WatchList(), folder) {
		t.Fatalf("the folder is not watched: %v", fw.WatchList())
	}
	for _, op := range []fsnotify.Op{fsnotify.Remove, fsnotify.Rename} {
		if !w.changed(fsnotify.Event{Name: folder, Op: op}) {
			t.Fatalf("%v of a tape folder is no change", op)
		}
		if !slices.Contains(fw.WatchList(), folder) {
			t.Errorf("after a stale %v event, the folder there is not watched: %v", op, fw.WatchList())
		}
	}
	if err := os.RemoveAll(folder); err != nil {
		t.Fatal(err)
	}
	w.changed(fsnotify.Event{Name: folder, Op: fsnotify.Remove})
	if slices.Contains(fw.WatchList(), folder) {
		t.Errorf("a folder removed is still watched: %v", fw.WatchList())
	}
}
