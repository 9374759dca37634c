package projector

import "context"

// What a watcher asks of the index. The watcher itself, and the rule by
// which a read syncs with it, are package fresh's; the index gives it a
// catch-up scoped to what its events named, and tells it whether the
// index it has open is still the one at index.db (generation.go).

// Changes is what a watcher saw change since its last pass: the folders a
// scoped catch-up looks at (CatchUpChanges). Make one with NewChanges.
// It is not safe for concurrent use: a watcher keeps it in the goroutine
// that runs its loop.
type Changes struct{ sc *scope }

// NewChanges returns an empty set of changes.
func NewChanges() *Changes { return &Changes{sc: newScope()} }

// Add records a change at rel, a path relative to the workspace folder,
// as an fsnotify event names it. A path outside tapes/, or in a fork, is
// no change to the index.
func (c *Changes) Add(rel string) { c.sc.add(rel) }

// Empty reports whether nothing was recorded.
func (c *Changes) Empty() bool { return c.sc.empty() }

// CatchUpChanges is CatchUp looking only at the folders of c (decision
// 0027), or at every folder if c is nil or the index is not the one this
// Projector last caught up.
func (p *Projector) CatchUpChanges(ctx context.Context, c *Changes) (Stats, error) {
	if c == nil {
		return p.catchUpScoped(ctx, nil)
	}
	return p.catchUpScoped(ctx, c.sc)
}

// RemoveKilledBuilds removes the scratch files of a search index build
// that a killed pass left (index-build*.db, which hold the tapes' words),
// if no pass runs. A watcher calls it at a reader's barrier, so that
// they are not kept until its next pass with something to do.
func (p *Projector) RemoveKilledBuilds() { p.removeKilledBuilds() }
