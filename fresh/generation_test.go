package fresh

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// A reader never trusts a watcher that keeps another index than its own.
// Issue 29: with a watcher running, index.db deleted and a new one made
// by a process killed before its first pass committed (tape reindex,
// SIGKILL), every read synced with the watcher, which had nothing to do
// for its old, deleted index and said so: reads answered from the empty
// new index until `tape reindex --full`.
func TestReaderNeverTrustsAWatcherOfAnotherIndex(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsgs(t, ws, "main", []string{"okapi", "zebra"})
	watching := openProjector(t, ws)
	catchUp(t, watching)
	stop := startWatcher(t, watching)
	defer stop()

	removeIndex(t, ws.Dir())
	// The killed process: it made the new index's tables, and died
	// before its pass committed anything.
	killed, err := projector.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if !killed.Fresh {
		t.Fatal("Open after the index was deleted did not make a new one")
	}
	killed.Close()

	for _, how := range []string{"SyncWatcher", "Read"} {
		reader := openProjector(t, ws)
		if reader.Fresh {
			t.Fatalf("%s: the reader made the index anew; the test wants one a killed process made", how)
		}
		switch how {
		case "SyncWatcher": // as tape reindex asks
			if synced, err := SyncWatcher(context.Background(), reader, 10*SyncTimeout); err != nil {
				t.Fatal(err)
			} else if synced && !found(t, reader, "zebra") {
				t.Errorf("%s: the watcher said the index was caught up, and it holds nothing", how)
			}
		case "Read":
			got, err := Read(context.Background(), reader, Reading{}, func() (bool, error) { return found(t, reader, "zebra"), nil })
			if err != nil {
				t.Fatal(err)
			}
			if !got {
				t.Errorf("%s: a read after the watcher answered finds nothing", how)
			}
		}
	}
}

// A watcher answers only for the index a reader reads: a barrier of
// another generation, at an index.db it has open, makes it say so.
func TestWatcherRefusesABarrierOfAnotherGeneration(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	p := openProjector(t, ws)
	w := &Watcher{P: p}
	if !w.keeps(p.Generation()) || !w.keeps("") {
		t.Fatal("a watcher does not keep its own index")
	}
	if w.keeps(otherGeneration()) {
		t.Error("a watcher keeps an index of another generation")
	}
	removeIndex(t, ws.Dir())
	if w.keeps(p.Generation()) {
		t.Error("a watcher keeps an index.db that was deleted")
	}
}

// What a killed rebuild left is removed when a reader asks the watcher,
// though the watcher has nothing to catch up: issue 29 found it kept
// for as long as the watcher ran.
func TestWatcherRemovesAKilledBuildsFiles(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "okapi")
	watching := openProjector(t, ws)
	stop := startWatcher(t, watching)
	defer stop()
	for _, name := range killedBuild {
		if err := os.WriteFile(ws.Abs(name), []byte("the words of a killed rebuild"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	reader := openProjector(t, ws)
	if synced, err := SyncWatcher(context.Background(), reader, 10*SyncTimeout); err != nil || !synced {
		t.Fatalf("SyncWatcher = %v, %v; want the watcher's answer", synced, err)
	}
	if left := buildsLeft(t, ws); len(left) != 0 {
		t.Errorf("a killed build's files %v are still there after the watcher answered a reader", left)
	}
}

// killedBuild is the scratch files of a rebuild's search index built in
// two parts (decision 0068: index-build*.db), as a kill leaves them.
var killedBuild = []string{"index-build.db", "index-build-1.db"}

// buildsLeft lists the scratch files of a build in the workspace.
func buildsLeft(t *testing.T, ws *tapelog.Workspace) []string {
	t.Helper()
	left, err := filepath.Glob(ws.Abs("index-build*.db"))
	if err != nil {
		t.Fatal(err)
	}
	return left
}

// A reader that made the index, once a pass filled it, asks a running
// watcher as any other reader does: a server (tape serve, tape mcp) that
// built the index caught up on its own for its whole life before.
func TestReaderThatMadeTheIndexAsksTheWatcher(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "okapi")
	p := openProjector(t, ws)
	if !p.Fresh {
		t.Fatal("the first Open did not make the index")
	}
	catchUp(t, p)
	var passes atomic.Int32
	w := &Watcher{P: openProjector(t, ws), OnPass: func(projector.Stats, error) { passes.Add(1) }}
	runWatcher(t, w)
	before := passes.Load()
	appendMsg(t, ws, "main", "zebra")
	got, err := Read(context.Background(), p, Reading{}, func() (bool, error) { return found(t, p, "zebra"), nil })
	if err != nil || !got {
		t.Fatalf("read after an append: found %v, %v", got, err)
	}
	if passes.Load() == before {
		t.Error("the reader that made the index caught up itself; want the watcher to")
	}
}
