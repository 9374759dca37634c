package remote

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/redact"
)

// Mirror keeps a server in step with a local index that a watcher keeps
// live (`tape watch --sync URL`): it syncs when kicked, one sync at a
// time, kicks that come meanwhile making one more. A server that is slow
// or gone delays only the mirror: Kick never blocks, so neither the
// watcher nor the writers wait for the server. A failed sync is tried
// again after Retry, doubled each time up to MaxRetry, on a new
// connection when the server went away.
type Mirror struct {
	IX  *projector.Projector
	URL string
	// Retry is the first wait after a failure; 0 means a second.
	// MaxRetry bounds the waits; 0 means a minute.
	Retry, MaxRetry time.Duration
	// OnSync, if set, is told of each sync's outcome.
	OnSync func(SyncStats, error)
	// Redactor, if set, replaces the secrets of what is sent
	// (SyncOptions.Redactor).
	Redactor *redact.Redactor

	kick chan struct{}
}

// Kick asks for a sync, without waiting for it.
func (m *Mirror) Kick() {
	select {
	case m.kick <- struct{}{}:
	default: // one is asked for already
	}
}

// NewMirror returns a mirror of ix to the server at url, ready to Kick
// and Run.
func NewMirror(ix *projector.Projector, url string) *Mirror {
	return &Mirror{IX: ix, URL: url, kick: make(chan struct{}, 1)}
}

// Run syncs on every kick until ctx is done; the first sync runs at once.
func (m *Mirror) Run(ctx context.Context) error {
	retry, maxRetry := cmp.Or(m.Retry, time.Second), cmp.Or(m.MaxRetry, time.Minute)
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	wait := retry
	m.Kick()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-m.kick:
		}
		st, err := m.syncOnce(ctx, &conn)
		if ctx.Err() != nil {
			return nil
		}
		if m.OnSync != nil {
			m.OnSync(st, err)
		}
		if err == nil {
			wait = retry
			continue
		}
		select { // try again after a wait, twice as long each time
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
			wait = min(2*wait, maxRetry)
			m.Kick()
		}
	}
}

// syncOnce syncs on *conn, connecting first if it is nil, and drops a
// connection the server is gone from.
func (m *Mirror) syncOnce(ctx context.Context, conn **pgx.Conn) (SyncStats, error) {
	if *conn == nil {
		c, err := Connect(ctx, m.URL)
		if err != nil {
			return SyncStats{}, err
		}
		*conn = c
	}
	st, err := Sync(ctx, m.IX, *conn, SyncOptions{Redactor: m.Redactor})
	if err != nil && !errors.Is(err, ErrSyncRunning) { // a new connection for the next try: this one may be broken
		(*conn).Close(context.Background())
		*conn = nil
	}
	return st, err
}
