package tui

import (
	"context"

	"github.com/tape-dev/tape/fresh"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/sessions"
)

// Reader is what the UI reads: the shared read layer, behind the few
// questions its screens ask.
type Reader interface {
	// Sessions lists the sessions, the most recently written first: the
	// first limit of them (0 for all), and how many there are.
	Sessions(ctx context.Context, limit int) ([]sessions.Session, int, error)
	// Search runs a query (its Tapes narrow it to some tapes).
	Search(ctx context.Context, q projector.SearchQuery) (read.Found, error)
	// Entries reads a tape's entries from offset on, in tape order (at
	// most limit of them; 0 for all), and its anchors.
	Entries(ctx context.Context, tape string, offset, limit int) (read.Entries, error)
	// Resume is how to reopen a session in its agent.
	Resume(ctx context.Context, tape string) (read.Resume, error)
	// Version changes when the index does; reading it first makes the
	// index fresh (new lines agents wrote), so the screens reread when it
	// moves.
	Version(ctx context.Context) (string, error)
}

// Index is the Reader of a workspace's index, as a long-running reader
// shares it (fresh.Served): Version freshens it, the other reads read it
// as it stands, so that a keystroke's search waits for no catch-up.
type Index struct{ Served *fresh.Served }

func (x Index) Sessions(ctx context.Context, limit int) ([]sessions.Session, int, error) {
	got, err := fresh.ServedReadAsIs(ctx, x.Served, func(ix *projector.Projector) (read.Tapes, error) {
		return read.ListTapes(ctx, ix, sessions.Filter{Page: views.Page{Limit: limit}})
	})
	return got.Page, got.Total, err
}

func (x Index) Search(ctx context.Context, q projector.SearchQuery) (read.Found, error) {
	return fresh.ServedReadAsIs(ctx, x.Served, func(ix *projector.Projector) (read.Found, error) {
		return read.Search(ctx, ix, q, "")
	})
}

func (x Index) Entries(ctx context.Context, tape string, offset, limit int) (read.Entries, error) {
	return fresh.ServedReadAsIs(ctx, x.Served, func(ix *projector.Projector) (read.Entries, error) {
		q := read.EntryQuery{Tape: tape, Pick: read.Pick{All: true}}
		return read.EntryPage(ctx, ix, q, views.Page{Offset: offset, Limit: limit})
	})
}

func (x Index) Resume(ctx context.Context, tape string) (read.Resume, error) {
	return fresh.ServedReadAsIs(ctx, x.Served, func(ix *projector.Projector) (read.Resume, error) {
		return read.ResumeOf(ctx, ix, tape)
	})
}

// Version is the index's EntriesVersion, the index made fresh first.
func (x Index) Version(ctx context.Context) (string, error) {
	return fresh.ServedRead(ctx, x.Served, func(ix *projector.Projector) (string, error) { return ix.EntriesVersion(ctx) })
}
