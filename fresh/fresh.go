package fresh

import (
	"context"
	"errors"
	"time"

	"github.com/tape-dev/tape/projector"
)

// Freshness: the one rule by which a reader of the index sees what is on
// disk when it asks. A read first makes the index fresh: through a
// running `tape watch` if there is one (SyncWatcher, a barrier: a
// millisecond, where a catch-up stats every file), else by catching up
// itself. Every reader asks here: the CLI's read commands, and whatever
// else serves the index (an MCP or web server).

// ReadWait is how long a read waits for another process that is writing
// the index before it reads the index as it stands.
const ReadWait = 10 * time.Second

// Reading says how a read makes the index fresh.
type Reading struct {
	// Progress, if set, is told the counts of a catch-up as it goes (a
	// first build of a large workspace takes a while).
	Progress func(projector.Stats)
	// Stale, if set, is told when another process held the index for
	// longer than ReadWait, or the disk is full: the read then sees the
	// index as it stands, and the caller says so (the CLI warns). If it
	// is nil, that is an error that wraps projector.ErrLocked or
	// projector.ErrDiskFull.
	Stale func(err error)
	// StartWatcher, if set, is called when no watcher runs on the
	// workspace, before the read catches up itself: the CLI starts one in
	// the background (config.json's "watch": "auto"), so that the reads
	// after this one sync with it instead of statting every file. It must
	// not wait for the watcher.
	StartWatcher func()
}

// syncOrStart asks a running watcher to catch up (SyncWatcher), unless
// the index is new (a watcher kept another), and, if none runs, has r
// start one for the reads to come.
func syncOrStart(ctx context.Context, p *projector.Projector, r Reading) (bool, error) {
	if !p.Fresh {
		synced, err := SyncWatcher(ctx, p, SyncTimeout)
		if err != nil || synced {
			return synced, err
		}
	}
	if r.StartWatcher != nil && !watcherRunning(p.Workspace()) {
		r.StartWatcher()
	}
	return false, nil
}

// locked hands an error that wraps projector.ErrLocked or
// projector.ErrDiskFull to Stale, if it is set.
func (r Reading) locked(err error) error {
	if r.Stale != nil && (errors.Is(err, projector.ErrLocked) || errors.Is(err, projector.ErrDiskFull)) {
		r.Stale(err)
		return nil
	}
	return err
}

// Freshen brings the index up to what was on disk when it was called.
// Like every pass of a Projector, it is not to run beside another pass of
// the same Projector (it sets OnProgress for its own): a server that
// shares one serializes them (Served).
func Freshen(ctx context.Context, p *projector.Projector, r Reading) error {
	if synced, err := syncOrStart(ctx, p, r); err != nil || synced {
		return err
	}
	if r.Progress != nil {
		prev := p.OnProgress
		p.OnProgress = r.Progress
		defer func() { p.OnProgress = prev }()
	}
	_, err := p.CatchUpWait(ctx, ReadWait)
	return r.locked(err)
}

// Read runs read on the index made fresh (Freshen) and returns what it
// read. With no watcher to ask, on an index that is not new, it runs
// read beside the catch-up, and keeps what read found if no connection
// changed the index from before read to after the catch-up; otherwise it
// runs read again. A search at 1M entries with no watcher spent half its
// time catching up before it could start. (The catch-up first compares
// the files with the state record, read here before read; it opens a
// connection of its own only if they changed.)
func Read[T any](ctx context.Context, p *projector.Projector, r Reading, read func() (T, error)) (T, error) {
	var none T
	if !p.Fresh {
		synced, err := syncOrStart(ctx, p, r)
		if err != nil {
			return none, err
		}
		if !synced {
			return readBeside(ctx, p, r, read)
		}
	} else if err := Freshen(ctx, p, r); err != nil {
		return none, err
	}
	return read()
}

// readBeside is Read for an index that no watcher keeps: read runs
// beside the catch-up.
func readBeside[T any](ctx context.Context, p *projector.Projector, r Reading, read func() (T, error)) (T, error) {
	var none T
	before, err := p.DataVersion(ctx)
	if err != nil {
		return none, err
	}
	rec := p.ReadStateRecord(ctx) // what the catch-up compares the files with first
	done := make(chan error, 1)
	go func() {
		_, err := p.CatchUpBeside(ctx, ReadWait, rec)
		done <- err
	}()
	found, readErr := read()
	caughtUp := <-done
	switch {
	case errors.Is(caughtUp, projector.ErrLocked), errors.Is(caughtUp, projector.ErrDiskFull):
		if err := r.locked(caughtUp); err != nil {
			return found, err
		}
		return found, readErr
	case errors.Is(caughtUp, projector.ErrReplaced):
		if err := Freshen(ctx, p, r); err != nil {
			return found, err
		}
		return read()
	case caughtUp != nil:
		return found, caughtUp
	}
	after, err := p.DataVersion(ctx)
	if err != nil || after != before {
		return read()
	}
	return found, readErr
}
