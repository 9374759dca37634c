package projector

import (
	"context"
	"sync"

	tapelog "github.com/tape-dev/tape/log"
)

// Served is the index of a workspace as a long-running server shares it
// among its requests (tape mcp's tools, tape serve's pages): opened by
// the first read, built if the workspace has none, kept until Close, and
// made fresh before every read by the one rule of fresh.go. A Projector
// runs one pass at a time, so reads take turns.
type Served struct {
	ws      *tapelog.Workspace
	holder  string
	reading Reading

	mu sync.Mutex
	ix *Projector
}

// NewServed returns the index of ws as a server named holder (in the lock
// file, for those who wait) reads it, made fresh as r says.
func NewServed(ws *tapelog.Workspace, holder string, r Reading) *Served {
	return &Served{ws: ws, holder: holder, reading: r}
}

// ServedRead runs read on the index made fresh (ReadFresh), and returns
// what it read.
func ServedRead[T any](ctx context.Context, s *Served, read func(ix *Projector) (T, error)) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ix == nil {
		ix, err := Open(ctx, s.ws)
		if err != nil {
			var none T
			return none, err
		}
		ix.Holder = s.holder
		s.ix = ix
	}
	return ReadFresh(ctx, s.ix, s.reading, func() (T, error) { return read(s.ix) })
}

// Close closes the index, if a read opened it.
func (s *Served) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ix == nil {
		return nil
	}
	err := s.ix.Close()
	s.ix = nil
	return err
}
