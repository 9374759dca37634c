package read

import (
	"context"

	"github.com/tape-dev/tape/bub"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
)

// EntryQuery is a read of a tape's entries: the anchors Pick picks, of
// the given kinds.
type EntryQuery struct {
	Tape  string
	Pick  Pick
	Kinds []string // nil for all
	Last  int      // ReadEntries only: the last N; 0 for all
}

// Entries is what a read of a tape's entries found.
type Entries struct {
	Tape    []tapelog.Anchor // every anchor of the tape, in order
	Anchors []tapelog.Anchor // the anchors read, in tape order
	Counts  map[string]int   // entries of each anchor of the tape, by folder (projector.Projector.Anchors)
	Entries []tapelog.Entry  // in tape order
	Total   int              // EntryPage: the entries the query selects, in all pages
	Start   int              // EntryPage: the offset of the page's first entry, at most Total
	// Bad are the lines of the anchors' files that the index could not
	// read, with whether a person acknowledged each; Stale, those that
	// changed since it read them. Neither is in Entries.
	Bad   []BadLine
	Stale []error
}

// BadLine is a line the index could not read.
type BadLine struct {
	*tapelog.LineError
	Acknowledged bool // a person said they know of it (tape doctor says how): no front end warns of it
}

// Folders are the folders of the anchors read.
func (r Entries) Folders() []string { return folders(r.Anchors) }

// Unread are the lines a front end warns of, in the order to warn: the
// bad lines no person acknowledged, then the lines that changed since the
// index read them.
func (r Entries) Unread() []error {
	var out []error
	for _, b := range r.Bad {
		if !b.Acknowledged {
			out = append(out, b.LineError)
		}
	}
	return append(out, r.Stale...)
}

// ReadEntries reads the entries q selects (the last q.Last of them, if
// set), with the lines it could not read.
func ReadEntries(ctx context.Context, ix *projector.Projector, q EntryQuery) (Entries, error) {
	r, err := pick(ctx, ix, q)
	if err != nil {
		return r, err
	}
	f := projector.EntryFilter{Tape: q.Tape, Folders: r.Folders(), Kinds: q.Kinds, Last: q.Last}
	if r.Entries, r.Stale, err = ix.Entries(ctx, f); err != nil {
		return r, err
	}
	r.Bad, err = badLines(ctx, ix, q.Tape, f.Folders)
	return r, err
}

// EntryPage reads page pg of the entries q selects (q.Last unused), with
// the lines it could not read. Pages count from the first entry, so that
// appends move none; an Offset below 0 counts from the end (-Limit: the
// newest page).
func EntryPage(ctx context.Context, ix *projector.Projector, q EntryQuery, pg views.Page) (Entries, error) {
	r, err := pick(ctx, ix, q)
	if err != nil {
		return r, err
	}
	f := projector.EntryFilter{Tape: q.Tape, Folders: r.Folders(), Kinds: q.Kinds}
	if r.Entries, r.Total, r.Stale, err = ix.EntryPage(ctx, f, pg); err != nil {
		return r, err
	}
	r.Start = min(pg.Offset, r.Total)
	if pg.Offset < 0 {
		r.Start = max(0, r.Total+pg.Offset)
	}
	r.Bad, err = badLines(ctx, ix, q.Tape, f.Folders)
	return r, err
}

// Context is what a context read found: the entries of the span, in tape
// order, and the lines it could not read.
type Context struct {
	Entries []tapelog.Entry
	Unread  []error // as Entries.Unread
}

// ReadContext reads the span of tape a context covers (bub.ContextSpan:
// the whole tape with all, else the entries after anchor, or after the
// last anchor when anchor is ""), the anchor entry it starts after left
// out.
func ReadContext(ctx context.Context, ix *projector.Projector, tape, anchor string, all bool) (Context, error) {
	anchors, _, err := ix.Anchors(ctx, tape)
	if err != nil {
		return Context{}, err
	}
	span, err := bub.ContextSpan(anchors, anchor, all)
	if err != nil {
		return Context{}, err
	}
	entries, stale, err := ix.Entries(ctx, projector.EntryFilter{Tape: tape, Folders: span.Folders})
	if err != nil {
		return Context{}, err
	}
	bad, err := badLines(ctx, ix, tape, span.Folders)
	if err != nil {
		return Context{}, err
	}
	return Context{Entries: span.Trim(entries), Unread: Entries{Bad: bad, Stale: stale}.Unread()}, nil
}

// pick reads tape's anchors and picks q's.
func pick(ctx context.Context, ix *projector.Projector, q EntryQuery) (Entries, error) {
	var r Entries
	anchors, counts, err := ix.Anchors(ctx, q.Tape)
	if err != nil {
		return r, err
	}
	r.Tape, r.Counts = anchors, counts
	r.Anchors, err = q.Pick.Anchors(anchors)
	return r, err
}

// badLines are the bad lines of tape's folders, each marked
// acknowledged or not.
func badLines(ctx context.Context, ix *projector.Projector, tape string, folders []string) ([]BadLine, error) {
	bad, err := ix.BadLines(ctx, tape, folders)
	if err != nil || len(bad) == 0 {
		return nil, err
	}
	unacked := map[*tapelog.LineError]bool{}
	for _, le := range ix.Workspace().Unacknowledged(bad) {
		unacked[le] = true
	}
	out := make([]BadLine, len(bad))
	for i, le := range bad {
		out[i] = BadLine{LineError: le, Acknowledged: !unacked[le]}
	}
	return out, nil
}

func folders(anchors []tapelog.Anchor) []string {
	out := make([]string, len(anchors))
	for i, a := range anchors {
		out[i] = a.Folder
	}
	return out
}
