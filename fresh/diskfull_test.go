package fresh

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tape-dev/tape/projector"
)

// A pass that runs out of space fails with projector.ErrDiskFull, saying what to
// do, and a read answers from the index as it stands with a warning
// (Reading.Stale) instead of failing: issue 29 found every read failing
// on a full disk, with no word of what to do. The index's pages are
// capped with SQLite's max_page_count, which fails a write with
// SQLITE_FULL as a full disk does. The read catches up beside it, on a
// connection of its own (the index is not new: a pass filled it); Freshen
// on the Projector's.
func TestFullDiskReadsTheIndexAsItStands(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "okapi")
	p := openProjector(t, ws)
	catchUp(t, p)
	var pages int
	if err := p.DB().QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	// Every connection's: a read catches up beside on one of its own.
	if err := p.LimitPagesForTest(pages); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		appendMsg(t, ws, "main", fmt.Sprintf("zebra %d %s", i, strings.Repeat("stripes ", 50)))
	}

	_, err := p.CatchUp(context.Background())
	if !errors.Is(err, projector.ErrDiskFull) || !strings.Contains(err.Error(), "free space") {
		t.Fatalf("catch-up past the index's pages: %v; want projector.ErrDiskFull saying what to do", err)
	}

	var warned []error
	r := Reading{Stale: func(err error) { warned = append(warned, err) }}
	got, err := Read(context.Background(), p, r, func() (bool, error) { return found(t, p, "okapi"), nil })
	if err != nil || !got {
		t.Errorf("a read on a full disk: found %v, %v; want the index as it stands", got, err)
	}
	if len(warned) != 1 || !errors.Is(warned[0], projector.ErrDiskFull) {
		t.Errorf("Stale was told %v; want once, projector.ErrDiskFull", warned)
	}
	if err := Freshen(context.Background(), p, Reading{}); !errors.Is(err, projector.ErrDiskFull) {
		t.Errorf("Freshen without Stale on a full disk: %v; want projector.ErrDiskFull", err)
	}
}
