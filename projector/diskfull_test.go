package projector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// A pass that runs out of space fails with ErrDiskFull, saying what to
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
	p.maxPages = fmt.Sprintf("&_pragma=max_page_count(%d)", pages)
	if _, err := p.DB().Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		appendMsg(t, ws, "main", fmt.Sprintf("zebra %d %s", i, strings.Repeat("stripes ", 50)))
	}

	_, err := p.CatchUp(context.Background())
	if !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), "free space") {
		t.Fatalf("catch-up past the index's pages: %v; want ErrDiskFull saying what to do", err)
	}

	var warned []error
	r := Reading{Stale: func(err error) { warned = append(warned, err) }}
	got, err := ReadFresh(context.Background(), p, r, func() (bool, error) { return found(t, p, "okapi"), nil })
	if err != nil || !got {
		t.Errorf("a read on a full disk: found %v, %v; want the index as it stands", got, err)
	}
	if len(warned) != 1 || !errors.Is(warned[0], ErrDiskFull) {
		t.Errorf("Stale was told %v; want once, ErrDiskFull", warned)
	}
	if err := p.Freshen(context.Background(), Reading{}); !errors.Is(err, ErrDiskFull) {
		t.Errorf("Freshen without Stale on a full disk: %v; want ErrDiskFull", err)
	}
}

func TestIsDiskFull(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("write: %w", syscall.ENOSPC), true},
		{fmt.Errorf("write: %w", syscall.EDQUOT), true},
		{fmt.Errorf("write: %w", syscall.EIO), false},
		{errors.New("no space left on device"), false}, // words are not a cause
		{nil, false},
	} {
		if got := IsDiskFull(tc.err); got != tc.want {
			t.Errorf("IsDiskFull(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
