package projector

import (
	"context"
	"testing"
)

// index.db deleted during a pass, after the pass made it ready (rm
// .tape/index.db*, which takes no lock): the pass runs again on a new
// index.db instead of failing, and leaves one that holds what a rebuild
// does. The chaos test of issue 29 found `tape reindex --full` exiting 3
// with "open index: unable to open database file" there: a pass from an
// empty index builds beside on a connection of its own, which never
// creates the file.
func TestIndexDeletedDuringPass(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		pass func(p *Projector) (Stats, error)
	}{
		{"rebuild", func(p *Projector) (Stats, error) { return p.Rebuild(context.Background()) }},
		{"first catch-up", func(p *Projector) (Stats, error) { return p.CatchUp(context.Background()) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t)
			appendMsgs(t, ws, "main", vocabulary)
			appendMsg(t, ws, "side", "zebra")
			p := openProjector(t, ws)
			deletions := 0
			p.beforePass = func() {
				if deletions == 0 {
					removeIndex(t, ws.Dir())
				}
				deletions++
			}
			if _, err := tt.pass(p); err != nil {
				t.Fatalf("a pass during which index.db was deleted: %v", err)
			}
			if deletions != 2 {
				t.Errorf("%d passes, want the one index.db was deleted in and one more", deletions)
			}
			// What a process opening index.db now reads, without catching up.
			q := openProjector(t, ws)
			if got, want := dump(t, q, vocabulary), rebuiltDump(t, ws, vocabulary); got != want {
				t.Errorf("index.db after the pass differs from a rebuild: %s", firstDiff(got, want))
			}
		})
	}
}
