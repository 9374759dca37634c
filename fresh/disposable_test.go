package fresh

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/testkit/poll"
	"github.com/tape-dev/tape/testkit/short"
	"github.com/tape-dev/tape/testkit/tapetest"
)

// Deleting the index at any moment, with a watcher running and a reader
// catching up, leads to the same answers as a rebuild.
func TestIndexDeletedWhileWatching(t *testing.T) {
	t.Parallel()
	for seed := range short.Seeds(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			ws := newWorkspace(t)
			watching := openProjector(t, ws)
			stop := startWatcher(t, watching)
			r := rand.New(rand.NewPCG(seed, 1))
			m := &tapetest.Mutator{T: t, R: r, WS: ws}
			for i := range 60 {
				m.Step()
				switch r.IntN(10) {
				case 0:
					removeIndex(t, ws.Dir())
				case 1:
					if r.IntN(2) == 0 {
						os.Remove(filepath.Join(ws.Dir(), projector.IndexFile)) // only the database: its WAL stays behind
					}
				case 2: // a reader opens the index, whatever state it is in, and catches up
					p := openProjector(t, ws)
					catchUp(t, p)
					p.Close()
				}
				if i%7 == 0 {
					time.Sleep(time.Duration(r.IntN(15)) * time.Millisecond) // let the watcher run now and then
				}
			}
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			p := openProjector(t, ws)
			catchUp(t, p)
			if got, want := dump(t, p, vocabulary), rebuiltDump(t, ws, vocabulary); got != want {
				t.Fatalf("after %v\nindex:\n%s\nrebuild:\n%s", m.Log, got, want)
			}
			// The watcher's own connection followed the deletions too.
			catchUp(t, watching)
			if got, want := dump(t, watching, vocabulary), rebuiltDump(t, ws, vocabulary); got != want {
				t.Fatalf("the watcher's index differs from a rebuild")
			}
		})
	}
}

// The watcher follows a deleted index to the new file, so a reader that
// does not catch up itself still sees what the watcher indexes.
func TestWatcherFollowsDeletedIndex(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	stop := startWatcher(t, openProjector(t, ws))
	defer stop()
	for i := range 3 {
		removeIndex(t, ws.Dir())
		word := fmt.Sprintf("okapi%d", i)
		appendMsg(t, ws, "main", word)
		poll.Until(t, 5*time.Second, word+" searchable without catching up", func() bool {
			p, err := projector.Open(context.Background(), ws) // no CatchUp: the watcher's work only
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			return found(t, p, word)
		})
	}
}
