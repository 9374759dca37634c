package sessions_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/sessions"
)

// Each reads its rows on a goroutine of its own, a batch at a time: the
// sessions it hands on are the page's, in order, across batches, and an
// error of fn ends it at once, with the snapshot released.
func TestEachHandsOnThePageAndStops(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const tapes = 150 // more than two batches
	for i := range tapes {
		tape := fmt.Sprintf("t%03d", i)
		f.anchor(tape+"/anchors/001_start", fmt.Sprintf("2026-11-20T%02d:%02d:00Z", i/60, i%60), `{}`)
	}
	f.catchUp()
	ctx := context.Background()
	for _, pg := range []views.Page{{}, {Limit: 70, Offset: 3}, {Offset: tapes - 1}, {Offset: tapes}} {
		var got []string
		total, err := sessions.Each(ctx, f.ix, sessions.Filter{Page: pg}, func(s sessions.Session) error {
			got = append(got, s.Name)
			return nil
		})
		if err != nil || total != tapes {
			t.Fatalf("%+v: total %d, %v", pg, total, err)
		}
		var want []string
		for i := tapes - 1 - pg.Offset; i >= 0 && (pg.Limit == 0 || len(want) < pg.Limit); i-- {
			want = append(want, fmt.Sprintf("t%03d", i))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%+v: handed on %v\nwant %v", pg, got, want)
		}
	}
	stop := errors.New("stop")
	for _, after := range []int{1, 64, 65, 100} {
		calls := 0
		_, err := sessions.Each(ctx, f.ix, sessions.Filter{}, func(sessions.Session) error {
			calls++
			if calls == after {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || calls != after {
			t.Errorf("fn failing at row %d: called %d times, Each = %v", after, calls, err)
		}
		// The index has one connection: a snapshot Each kept would make
		// Count wait, so it waits with a deadline, to fail, not hang.
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		n, err := sessions.Count(cctx, f.ix, time.Time{})
		cancel()
		if err != nil || n != tapes {
			t.Fatalf("Count after a stopped Each = %d, %v", n, err)
		}
	}
}

// A listing whose context is cancelled stops handing sessions on at once,
// says so, and leaves the index free.
func TestEachStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const tapes = 200
	for i := range tapes {
		f.anchor(fmt.Sprintf("t%03d/anchors/001_start", i), fmt.Sprintf("2026-11-20T%02d:%02d:00Z", i/60, i%60), `{}`)
	}
	f.catchUp()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	_, err := sessions.Each(ctx, f.ix, sessions.Filter{}, func(sessions.Session) error {
		calls++
		if calls == 130 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || calls != 130 {
		t.Errorf("cancelled at row 130: called %d times, Each = %v", calls, err)
	}
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	if n, err := sessions.Count(cctx, f.ix, time.Time{}); err != nil || n != tapes {
		t.Fatalf("Count after a cancelled Each = %d, %v", n, err)
	}
}
