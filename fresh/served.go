package fresh

import (
	"context"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// Served is the index of a workspace as a long-running server shares it
// among its requests (tape mcp's tools, tape serve's pages): opened by
// the first read, built if the workspace has none, kept until Close, and
// made fresh before every read by the one rule of fresh.go. A Projector
// runs one pass at a time, so reads take turns; one that waits for its
// turn gives up when its context ends (a client gone, a server stopping).
type Served struct {
	ws      *tapelog.Workspace
	holder  string
	reading Reading

	turn chan struct{} // holds a token while a read has the index
	ix   *projector.Projector
}

// NewServed returns the index of ws as a server named holder (in the lock
// file, for those who wait) reads it, made fresh as r says.
func NewServed(ws *tapelog.Workspace, holder string, r Reading) *Served {
	return &Served{ws: ws, holder: holder, reading: r, turn: make(chan struct{}, 1)}
}

// ServedRead runs read on the index made fresh (Read), and returns what
// it read.
func ServedRead[T any](ctx context.Context, s *Served, read func(ix *projector.Projector) (T, error)) (T, error) {
	return served(ctx, s, func(ix *projector.Projector) (T, error) {
		return Read(ctx, ix, s.reading, func() (T, error) { return read(ix) })
	})
}

// ServedReadAsIs runs read on the index as it stands: for a reader that
// made it fresh a moment ago, as a web page's live streams do, one
// freshening for them all at each look (package web).
func ServedReadAsIs[T any](ctx context.Context, s *Served, read func(ix *projector.Projector) (T, error)) (T, error) {
	return served(ctx, s, read)
}

// served runs fn on the index when its turn comes, opening it first.
func served[T any](ctx context.Context, s *Served, fn func(ix *projector.Projector) (T, error)) (T, error) {
	var none T
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return none, ctx.Err()
	}
	defer func() { <-s.turn }()
	if s.ix == nil {
		ix, err := projector.Open(ctx, s.ws)
		if err != nil {
			return none, err
		}
		ix.Holder = s.holder
		s.ix = ix
	}
	return fn(s.ix)
}

// Close closes the index, if a read opened it, once the read under way
// is done.
func (s *Served) Close() error {
	s.turn <- struct{}{}
	defer func() { <-s.turn }()
	if s.ix == nil {
		return nil
	}
	err := s.ix.Close()
	s.ix = nil
	return err
}
