package fresh

import (
	"context"

	"github.com/tape-dev/tape/projector"
)

// Doctor is p.Doctor after asking a running watcher to catch up, as a
// read asks it (tape doctor). What the watcher then has not read, though
// it answered that it had, is an index_lag problem: readers trust it
// (issue 29, decision 0068).
//
// The sync lives here, not in projector.Doctor, so that the arrow points
// one way: fresh depends on projector, and projector knows nothing of
// watchers, barriers or watch.lock; it is told what the watcher answered
// (projector.Watched).
func Doctor(ctx context.Context, p *projector.Projector) (*projector.Diagnosis, error) {
	synced, err := SyncWatcher(ctx, p, SyncTimeout)
	if err != nil {
		return nil, err
	}
	w := projector.Watched{Synced: synced}
	if synced {
		_, w.PID = Watching(p.Workspace())
	}
	return p.Doctor(ctx, w)
}
