//go:build postgres

package remote

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tape-dev/tape/testkit/tapetest"
)

// The sync's main property: after any sequence of changes to the files
// (appends, bad and torn lines, handoffs, truncations, rewrites, deleted
// files, folders and tapes, resets, merged forks), synced at random
// points, the server holds row for row what one sync of the final files
// writes into an empty database. Small transactions make the syncs
// commit mid-file.
func TestSyncIncrementalEqualsClean(t *testing.T) {
	for seed := range seeds(12) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			ws := newWorkspace(t)
			ix := openIndex(t, ws)
			conn := connect(t, server.DB(t))
			opts := SyncOptions{BatchRows: 1 + int(seed%7)}
			m := &tapetest.Mutator{T: t, R: rand.New(rand.NewPCG(seed, 29)), WS: ws}
			for step := range 60 {
				before := len(m.Log)
				m.Step()
				if (len(m.Log) > before && m.Log[len(m.Log)-1] == "catch-up") || step%7 == 0 {
					catchUp(t, ix)
					if _, err := Sync(t.Context(), ix, conn, opts); err != nil {
						t.Fatalf("after %v: %v", m.Log, err)
					}
				}
			}
			syncNow(t, ix, conn)
			clean := connect(t, server.DB(t))
			syncNow(t, ix, clean)
			wsID := identity(t, ws)
			if got, want := dump(t, conn, wsID), dump(t, clean, wsID); got != want {
				t.Fatalf("after %v\nincremental:\n%s\nclean:\n%s", m.Log, got, want)
			}
		})
	}
}

// seeds is how many seeds a property test runs: n, or a fifth of them
// with -short.
func seeds(n uint64) uint64 {
	if testing.Short() {
		return max(1, n/5)
	}
	return n
}
