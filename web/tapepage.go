package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/sessions"
)

// The page of a tape, and of one of its anchors.

type tapeData struct {
	Frame
	Session sessions.Session
	Anchors []anchorRow
	Earlier int // anchors before those listed
	Later   int // anchors after those listed
	// The anchors just outside those listed, whose pages list the ones
	// beyond; "" for none.
	EarlierURL, LaterURL string
	Anchor               anchorRow
	Entries              template.HTML // the entries' items, rendered within pageBytes (renderPage)
	Bad                  []badLine
	BadMore              int // bad lines past badShown, not listed
	Warnings             []string
	Pager                pager
	Live                 string // the live stream's URL, when the page ends where the tape does
	Resume               string // the command that reopens the session in its agent (tape resume)
}

type anchorRow struct {
	Name, Folder, Date, State, URL string
	Seq                            int64
	Entries                        int
	Current                        bool
}

type badLine struct {
	Path, Reason string
	Line         int
	Acknowledged bool
}

func (s *Server) tape(w http.ResponseWriter, r *http.Request) {
	s.anchorPage(w, r, "")
}

func (s *Server) anchor(w http.ResponseWriter, r *http.Request) {
	folder := r.PathValue("folder")
	if _, _, ok := tapelog.ParseFolderName(folder); !ok {
		s.fail(w, r, notFound("no anchor %q: an anchor's folder is NNN_slug", folder))
		return
	}
	s.anchorPage(w, r, folder)
}

// tapeRead is what a tape's page reads of the index, in one read.
type tapeRead struct {
	session sessions.Session
	anchors []tapelog.Anchor
	counts  map[string]int
	at      int // the anchor shown
	entries []tapelog.Entry
	items   []*item // the entries as the page shows them
	start   int     // the offset of the first entry in the anchor's
	newest  bool    // the page of the anchor's newest entries: cut by bytes at its start
	total   int
	stale   []error
	bad     []read.BadLine
	resume  string // the shell line that reopens the session in its agent; "" for none
}

// anchorPage is the page of folder's entries in the tape the URL names;
// folder "" is the tape's page: its last anchor, from its newest entries.
func (s *Server) anchorPage(w http.ResponseWriter, r *http.Request, folder string) {
	tape, err := tapeParam(r.PathValue("tape"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	pg := views.Page{Limit: entriesPage}
	if folder == "" {
		pg.Offset = -entriesPage
	}
	if v := r.URL.Query().Get("from"); v != "" {
		if pg.Offset, err = strconv.Atoi(v); err != nil || pg.Offset < 0 {
			s.fail(w, r, badRequest("from %q: want the offset of an entry in its anchor, 0 or more", v))
			return
		}
	}
	got, err := served(r.Context(), s, func(ix *projector.Projector) (tapeRead, error) {
		return readTape(r.Context(), ix, tape, folder, pg)
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d, err := s.tapeData(tape, got)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.respond(w, r, http.StatusOK, "tape", d)
}

func readTape(ctx context.Context, ix *projector.Projector, tape, folder string, pg views.Page) (tapeRead, error) {
	var t tapeRead
	got, err := read.EntryPage(ctx, ix, read.EntryQuery{Tape: tape, Pick: read.Pick{Folder: folder}}, pg)
	switch {
	case len(got.Tape) == 0 && (err == nil || errors.Is(err, tapelog.ErrNoAnchor)):
		return t, notFound("no tape %q", tape)
	case errors.Is(err, tapelog.ErrNoAnchor):
		return t, notFound("tape %s has no anchor %s", tape, folder)
	case err != nil:
		return t, err
	}
	t.anchors, t.counts, t.at = got.Tape, got.Counts, slices.IndexFunc(got.Tape, func(a tapelog.Anchor) bool { return a.Folder == got.Anchors[0].Folder })
	t.entries, t.total, t.stale, t.bad, t.start, t.newest = got.Entries, got.Total, got.Stale, got.Bad, got.Start, pg.Offset < 0
	f := projector.EntryFilter{Tape: tape, Folders: got.Folders()}
	if t.start >= t.total {
		return t, notFound("anchor %s of tape %s has %d entries: from=%d is past them", f.Folders[0], tape, t.total, pg.Offset)
	}
	c := newChat(tape)
	t.items = c.add(t.entries)
	if end := t.start + pg.Limit; end < t.total && c.pending() {
		// Calls at the page's end may be answered on the next: fold the
		// entries after it too, without showing them.
		ahead, _, _, err := ix.EntryPage(ctx, f, views.Page{Limit: lookAhead, Offset: end})
		if err != nil {
			return t, err
		}
		c.add(ahead)
	}
	c.finish()
	list, _, err := sessions.List(ctx, ix, sessions.Filter{Tape: tape, Page: views.Page{Limit: 1}})
	if err != nil {
		return t, err
	}
	if len(list) == 1 {
		t.session = list[0]
	}
	if len(t.anchors) > 0 {
		t.resume = read.ResumeFor(t.session, t.anchors[0]).Shell()
	}
	return t, nil
}

func (s *Server) tapeData(tape string, t tapeRead) (tapeData, error) {
	t.session = s.clipSession(t.session)
	d := tapeData{Frame: s.frame(cmp.Or(t.session.Title, tape)), Session: t.session, Resume: t.resume}
	d.Tape, d.Session.Name = tape, tape
	lo := max(0, min(t.at-anchorsShown/2, len(t.anchors)-anchorsShown))
	hi := min(len(t.anchors), lo+anchorsShown)
	d.Earlier, d.Later = lo, len(t.anchors)-hi
	if lo > 0 {
		d.EarlierURL = anchorURL(tape, t.anchors[lo-1].Folder)
	}
	if hi < len(t.anchors) {
		d.LaterURL = anchorURL(tape, t.anchors[hi].Folder)
	}
	for i := lo; i < hi; i++ {
		d.Anchors = append(d.Anchors, newAnchorRow(tape, t.anchors[i], t.counts, i == t.at, timelineStateBytes))
	}
	d.Anchor = newAnchorRow(tape, t.anchors[t.at], t.counts, true, foldBytes)
	for i, le := range t.bad {
		if i == badShown {
			d.BadMore = len(t.bad) - badShown
			break
		}
		d.Bad = append(d.Bad, badLine{Path: le.Path, Line: le.Line, Reason: clip(le.Reason), Acknowledged: le.Acknowledged})
	}
	for _, err := range t.stale {
		d.Warnings = append(d.Warnings, clip(err.Error()))
	}
	path := anchorURL(tape, d.Anchor.Folder)
	link := func(o int) string { return path + "?from=" + strconv.Itoa(o) }
	// Pages are cut by pageBytes too. Lines that could not be read are
	// counted in the offsets but their places are not known: counting
	// none of them, a page cut by bytes may show again what the one
	// before it did, and skips nothing.
	if !t.newest {
		var shown int
		var err error
		if d.Entries, shown, err = s.renderPage(t.items); err != nil {
			return d, err
		}
		if shown < len(t.items) { // the next page starts at the first not shown
			d.Pager = newPager(t.start, shown, t.total, entriesPage, link)
			return d, nil
		}
	} else {
		var err error
		if d.Entries, err = s.newestPage(tape, &t); err != nil {
			return d, err
		}
	}
	d.Pager = newPager(t.start, len(t.entries)+len(t.stale), t.total, entriesPage, link)
	if t.at == len(t.anchors)-1 && t.start+entriesPage >= t.total {
		at := place{folder: d.Anchor.Folder, offset: t.total}
		if len(t.stale) == 0 && len(t.entries) > 0 { // else the entry before is unknown: not checked
			at.id = t.entries[len(t.entries)-1].ID
		}
		d.Live = liveURL(tape, at, t.start)
	}
	return d, nil
}

// newAnchorRow is an anchor as the pages list it, its state indented to
// at most stateBytes.
// newestPage renders the newest of t's items that fit in pageBytes, and
// moves t's start to the first of them: the entries before are the
// previous page's. What is left is folded again, so that a result whose
// call was left out shows itself.
func (s *Server) newestPage(tape string, t *tapeRead) (template.HTML, error) {
	items := t.items
	for {
		html, skipped, err := s.renderNewest(items)
		if err != nil || skipped == 0 {
			return html, err
		}
		t.start += skipped
		t.entries = t.entries[skipped:]
		c := newChat(tape)
		items = c.add(t.entries)
		c.finish()
	}
}

func newAnchorRow(tape string, a tapelog.Anchor, counts map[string]int, current bool, stateBytes int) anchorRow {
	row := anchorRow{Name: clip(a.Name), Folder: a.Folder, Date: clip(a.Entry.Date), Seq: a.Seq, Entries: counts[a.Folder],
		URL: anchorURL(tape, a.Folder), Current: current}
	if a.Unanchored {
		row.Name = "(before the first anchor)"
	}
	if len(a.State) > 0 && string(a.State) != "{}" && string(a.State) != "null" {
		var folded int
		if row.State, folded = indent(a.State, stateBytes); folded > 0 {
			row.State += fmt.Sprintf("\n… %d more bytes", folded)
		}
	}
	return row
}

// clipSession is a session with what its entries named cut to labelBytes:
// a title read from a first prompt of megabytes is a line on the page.
func (srv *Server) clipSession(s sessions.Session) sessions.Session {
	s.Title, s.CWD, s.Branch, s.Model = clip(s.Title), clip(s.CWD), clip(s.Branch), clip(s.Model)
	s.Source, s.Parent = clip(s.Source), clip(s.Parent)
	if r := srv.opts.Redactor; r != nil { // a title cut inside a secret keeps no part of it
		cut := strings.HasSuffix(s.Title, "…")
		s.Title = r.Title(strings.TrimSuffix(s.Title, "…"))
		if cut && !strings.HasSuffix(s.Title, "…") {
			s.Title += "…"
		}
	}
	return s
}

// entry redirects to the page of an entry's anchor that holds it.
func (s *Server) entry(w http.ResponseWriter, r *http.Request) {
	tape, err := tapeParam(r.PathValue("tape"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	id := r.PathValue("id")
	type place struct {
		folder string
		offset int
		ok     bool
	}
	p, err := served(r.Context(), s, func(ix *projector.Projector) (place, error) {
		folder, offset, ok, err := ix.EntryPlace(r.Context(), tape, id)
		return place{folder, offset, ok}, err
	})
	switch {
	case err != nil:
		s.fail(w, r, err)
		return
	case !p.ok:
		s.fail(w, r, notFound("tape %s has no entry %q", tape, id))
		return
	}
	from := p.offset / entriesPage * entriesPage
	if from < p.offset {
		// The page of entriesPage that holds it, unless pageBytes cuts
		// that page before it: then the page that starts at it.
		shown, err := s.pageShows(r.Context(), tape, p.folder, from, id)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if !shown {
			from = p.offset
		}
	}
	to := anchorURL(tape, p.folder)
	if from > 0 {
		to += "?from=" + strconv.Itoa(from)
	}
	http.Redirect(w, r, to+"#e-"+url.PathEscape(id), http.StatusSeeOther)
}

// pageShows reports whether the page of folder's entries from offset
// shows the entry id, as the page renders it.
func (s *Server) pageShows(ctx context.Context, tape, folder string, offset int, id string) (bool, error) {
	t, err := served(ctx, s, func(ix *projector.Projector) (tapeRead, error) {
		return readTape(ctx, ix, tape, folder, views.Page{Limit: entriesPage, Offset: offset})
	})
	if err != nil {
		return false, err
	}
	_, shown, err := s.renderPage(t.items)
	return slices.ContainsFunc(t.items[:shown], func(it *item) bool { return it.ID == id }), err
}
