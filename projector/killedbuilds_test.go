package projector

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/tape-dev/tape/internal/fts5"
)

// KilledBuilds names the files a killed build left, unless a pass runs
// (fresh's TestDoctorReportsAKilledBuild checks that tape doctor reports
// them).
func TestKilledBuildsNamesWhatAKilledPassLeft(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "okapi")
	p := openProjector(t, ws)
	catchUp(t, p)
	if left := p.KilledBuilds(); len(left) != 0 {
		t.Fatalf("KilledBuilds after a pass = %v; want none", left)
	}
	if err := os.WriteFile(ws.Abs(fts5.BuildFile(1)), []byte("words"), 0o600); err != nil {
		t.Fatal(err)
	}
	if left := p.KilledBuilds(); !slices.Equal(left, []string{fts5.BuildFile(1)}) {
		t.Errorf("KilledBuilds = %v; want %s", left, fts5.BuildFile(1))
	}
	held := openProjector(t, ws)
	if err := held.withLock(context.Background(), 0, func() error {
		if got := p.KilledBuilds(); len(got) != 0 {
			t.Errorf("KilledBuilds while a pass holds the index = %v; want none: it may be building", got)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if left := p.KilledBuilds(); len(left) != 1 {
		t.Errorf("KilledBuilds once the pass let go = %v; want %s: naming them removes nothing", left, fts5.BuildFile(1))
	}
}
