package fresh

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/tape-dev/tape/internal/fileutil"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/testkit/poll"
	"github.com/tape-dev/tape/testkit/short"
	"github.com/tape-dev/tape/testkit/tapetest"
)

// startQuietWatcher runs a watcher whose only passes, after the first,
// are those readers ask for: no debounce fires and no reconciliation runs
// within a test. It records every pass.
func startQuietWatcher(t *testing.T, p *projector.Projector) (passes func() []projector.Stats) {
	t.Helper()
	var mu sync.Mutex
	var got []projector.Stats
	runWatcher(t, &Watcher{P: p, Debounce: time.Hour, MaxDelay: time.Hour, Reconcile: time.Hour,
		OnPass: func(st projector.Stats, err error) {
			if err != nil {
				t.Errorf("watcher pass: %v", err)
			}
			mu.Lock()
			got = append(got, st)
			mu.Unlock()
		}})
	return func() []projector.Stats {
		mu.Lock()
		defer mu.Unlock()
		return append([]projector.Stats(nil), got...)
	}
}

func syncWatcher(t *testing.T, p *projector.Projector) {
	t.Helper()
	ok, err := SyncWatcher(context.Background(), p, 10*time.Second)
	if err != nil || !ok {
		t.Fatalf("SyncWatcher = %v, %v; want the watcher to answer", ok, err)
	}
}

// A reader that syncs with the watcher sees a change made just before,
// although the watcher's debounce would not have fired for an hour; the
// watcher looks only at the folder that changed; and no barrier is left.
func TestSyncWatcherSeesWhatWasWrittenBefore(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	for _, tape := range []string{"main", "side"} {
		tp, _ := ws.Tape(tape)
		for _, name := range []string{"one", "two", "three"} {
			if _, err := tp.Handoff(context.Background(), name, nil); err != nil {
				t.Fatal(err)
			}
		}
		tp.Close()
	}
	passes := startQuietWatcher(t, openProjector(t, ws))
	reader := openProjector(t, ws)

	appendMsg(t, ws, "side", "pangolin")
	syncWatcher(t, reader)
	if !found(t, reader, "pangolin") {
		t.Fatal("an entry appended before the sync is not searchable after it")
	}
	all := passes()
	if last := all[len(all)-1]; len(all) != 2 || last.Folders != 1 || last.FilesRead != 1 {
		t.Errorf("passes %+v; want the first and one that looked at the one changed folder", all)
	}
	syncWatcher(t, reader) // nothing changed: answered without a pass
	if n := len(passes()); n != 2 {
		t.Errorf("%d passes after a sync with nothing new; want none more", n-2)
	}
	if left, _ := os.ReadDir(ws.Abs(syncDir)); len(left) != 0 {
		t.Errorf("barriers left behind: %v", left)
	}
}

func TestSyncWatcherWithoutWatcher(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	p := openProjector(t, ws)
	start := time.Now()
	ok, err := SyncWatcher(context.Background(), p, time.Minute)
	if ok || err != nil {
		t.Fatalf("SyncWatcher with no watcher = %v, %v; want false, nil", ok, err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("SyncWatcher with no watcher waited %s", d)
	}
}

// A watcher whose pass failed writes the error into the barrier; the
// reader then catches up itself at once, instead of waiting its timeout.
func TestSyncWatcherFallsBackWhenThePassFailed(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	p := openProjector(t, ws)
	lock, err := ws.OpenPrivate(watchLockFile)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := fileutil.Lock(lock); err != nil {
		t.Fatal(err)
	}
	if err := ws.MkdirPrivate(syncDir); err != nil {
		t.Fatal(err)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	if err := fw.Add(ws.Abs(syncDir)); err != nil {
		t.Fatal(err)
	}
	failing := &Watcher{P: p}
	go func() { // a watcher whose passes fail
		for ev := range fw.Events {
			if name, ok := failing.barrier(ev); ok {
				failing.answer([]string{name}, fmt.Errorf("disk on fire"))
			}
		}
	}()
	start := time.Now()
	ok, err := SyncWatcher(context.Background(), p, time.Minute)
	if ok || err != nil {
		t.Fatalf("SyncWatcher after a failed pass = %v, %v; want false, nil", ok, err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("SyncWatcher waited %s for a watcher that had answered", d)
	}
	poll.Until(t, 10*time.Second, "the reader removes its barrier", func() bool {
		left, _ := os.ReadDir(ws.Abs(syncDir))
		return len(left) == 0
	})
}

// The projector's main property through a watcher: after any sequence of
// changes, a reader that synced with the watcher, whose passes only look
// at the folders its events named, answers as a full rebuild does.
func TestWatcherSyncEqualsRebuild(t *testing.T) {
	t.Parallel() // long, on a workspace of its own (0074)
	for seed := range short.Seeds(12) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			ws := newWorkspace(t)
			passes := startQuietWatcher(t, openProjector(t, ws))
			reader := openProjector(t, ws)
			m := &tapetest.Mutator{T: t, R: rand.New(rand.NewPCG(seed, 13)), WS: ws}
			for step := range short.Sized(60, 30) {
				before := len(m.Log)
				m.Step()
				if (len(m.Log) > before && m.Log[len(m.Log)-1] == "catch-up") || step%7 == 0 {
					syncWatcher(t, reader)
					if got, want := dump(t, reader, vocabulary), rebuiltDump(t, ws, vocabulary); got != want {
						t.Fatalf("after %v\nwatcher:\n%s\nrebuild:\n%s", m.Log, got, want)
					}
				}
			}
			scoped := 0
			for _, st := range passes()[1:] {
				if st.Folders < len(m.Folders()) {
					scoped++
				}
			}
			if scoped == 0 {
				t.Error("no pass of the watcher was scoped to the folders that changed")
			}
		})
	}
}

// Writes to a fork cost a running watcher nothing: no pass, and nothing
// of the fork is searchable, until the merge writes to the tape's anchors.
func TestWatcherIgnoresForks(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	tp, _ := ws.Tape("main")
	defer tp.Close()
	appendMsg(t, ws, "main", "before")
	early, err := tp.Fork(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	passes := startQuietWatcher(t, openProjector(t, ws))
	reader := openProjector(t, ws)
	late, err := tp.Fork(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{early, late} {
		fork, err := tp.OpenFork(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, word := range []string{"穿山甲", "pangolin"} {
			if _, err := fork.Append(context.Background(), tapelog.Entry{Kind: tapelog.KindMessage, Payload: []byte(`{"role":"user","content":"` + word + id + `"}`)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := fork.Handoff(context.Background(), "分支", nil); err != nil {
			t.Fatal(err)
		}
		fork.Close()
	}
	syncWatcher(t, reader)
	if n := len(passes()); n != 1 {
		t.Errorf("%d passes after writes to forks only; want just the first", n)
	}
	if found(t, reader, "pangolin"+late) || found(t, reader, "pangolin"+early) {
		t.Error("a fork's entry is searchable before the merge")
	}
	if _, err := tp.Merge(context.Background(), late, tapelog.MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	syncWatcher(t, reader)
	if !found(t, reader, "pangolin"+late) || found(t, reader, "pangolin"+early) {
		t.Error("after merging one fork, search should find its entries and not the other fork's")
	}
}

// A tape renamed while the watcher runs is followed under its new name:
// its later appends are seen by a reader that syncs (review: events kept
// the old name, and syncs answered from a stale index until the next
// reconciliation). tape reset --archive moves an anchors folder the same
// way, and its watches must go with it.
func TestWatcherFollowsARenamedTape(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "a", "alpha one")
	passes := startQuietWatcher(t, openProjector(t, ws))
	reader := openProjector(t, ws)
	if err := os.Rename(filepath.Join(ws.Dir(), "tapes/a"), filepath.Join(ws.Dir(), "tapes/b")); err != nil {
		t.Fatal(err)
	}
	appendMsg(t, ws, "b", "bravo two")
	syncWatcher(t, reader)
	appendMsg(t, ws, "b", "charlie three")
	syncWatcher(t, reader)
	for _, word := range []string{"bravo", "charlie"} {
		if !found(t, reader, word) {
			t.Errorf("%q, appended to the renamed tape, is not found after a sync", word)
		}
	}
	if got, want := dump(t, reader, []string{"alpha", "charlie"}), rebuiltDump(t, ws, []string{"alpha", "charlie"}); got != want {
		t.Errorf("index differs from a rebuild:\n%s\n---\n%s", got, want)
	}
	if n := len(passes()); n < 3 {
		t.Errorf("%d passes; want the first and one per sync", n)
	}
}

func TestWatcherForgetsAMovedFolderAndWhatIsBelow(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "x")
	appendMsg(t, ws, "mainly", "y") // a name that starts like the other: not below it
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	w := &Watcher{P: openProjector(t, ws), fw: fw, dirty: projector.NewChanges()}
	w.addAll()
	before := len(fw.WatchList())
	w.forget(filepath.Join(ws.Dir(), "tapes", "main"))
	after := fw.WatchList()
	if len(after) != before-3 { // tapes/main, its anchors, its one folder
		t.Errorf("%d watches after forgetting tapes/main, want %d: %v", len(after), before-3, after)
	}
	for _, p := range after {
		if strings.Contains(p, filepath.Join("tapes", "main")+string(filepath.Separator)) || strings.HasSuffix(p, filepath.Join("tapes", "main")) {
			t.Errorf("still watching %s", p)
		}
	}
}
