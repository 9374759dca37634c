package projector

import (
	"context"
	"sync"

	"github.com/tape-dev/tape/internal/fileutil"
	"github.com/tape-dev/tape/internal/fts5"
)

// A pass that starts from an empty index (a rebuild, or the first pass of
// a new index.db) builds its search index beside it, in parts, and copies
// it in before it commits (package fts5, which says what that buys and
// what it rests on). This file holds the Projector's side: how a pass
// makes its build, the check of the join kept once per Projector, and the
// removal of the scratch files a killed pass left.

// newBuild prepares the build beside of a pass, in the workspace's
// folder: one part per core (two at most) unless a test set buildParts.
// It returns nil if the pass must write the search index in place: the
// scratch files cannot be made (a folder in the way, say).
func (p *Projector) newBuild() *fts5.Build {
	parts, block := fts5.DefaultParts(), fts5.DefaultBlock
	if p.buildParts > 0 {
		parts, block = p.buildParts, p.buildBlock
	}
	build, err := fts5.NewBuild(p.ws.Dir(), parts, block)
	if err != nil {
		return nil
	}
	build.SetHashSize(p.buildHash)
	return build
}

// removeKilledBuilds removes what a killed pass left, if no pass runs:
// the index lock is free. A watcher calls it when a reader asks, so that
// a rebuild killed beside it leaves nothing for long, though the watcher
// may have no pass to run.
func (p *Projector) removeKilledBuilds() {
	p.withKilledBuilds(func() {
		fts5.RemoveBuilds(p.ws.Dir()) //nolint:errcheck // the next pass tries again
	})
}

// KilledBuilds names the scratch files of a search index build that a
// killed pass left (index-build*.db, relative to the workspace folder),
// if no pass runs: they hold the tapes' words. A running pass's are its
// own, and none is named. tape doctor reports them (fresh.Doctor).
func (p *Projector) KilledBuilds() []string {
	var left []string
	p.withKilledBuilds(func() { left = fts5.BuildsLeft(p.ws.Dir()) })
	return left
}

// withKilledBuilds runs fn holding the index lock if a build's scratch
// files are there and no pass runs, since a pass may be building them.
func (p *Projector) withKilledBuilds(fn func()) {
	if !buildsLeft(p.ws) {
		return
	}
	if free, err := fileutil.TryLock(p.lock.File()); err != nil || !free {
		return // a pass runs: the files are its own, or it removes them
	}
	defer fileutil.Unlock(p.lock.File()) //nolint:errcheck // closing releases it anyway
	fn()
}

// ftsJoinCheck runs fts5.CheckJoin the first time a Projector's pass would
// join a search index built in parts, and keeps the answer: the SQLite linked
// in does not change while the process runs. It is a field of the
// Projector rather than a package-level once so that a test can break it
// for one Projector.
type ftsJoinCheck struct {
	mu   sync.Mutex // a watcher's passes and a command's may ask at once
	done bool
	err  error
	// fault, if set, runs in the check's join transaction just before the
	// join, its parts attached as build0 and build1: tests change the
	// parts there as a SQLite of another format would have written them.
	fault func(ctx context.Context, tx sqlTx) error
}

// result runs the check the first time it is asked and returns its
// answer: nil if a build in parts may be joined. A check cut short by ctx
// is not kept: it says nothing of SQLite.
func (c *ftsJoinCheck) result(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done {
		err := fts5.CheckJoin(ctx, c.fault)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.done, c.err = true, err
	}
	return c.err
}
