package web

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/calls"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// How many rows a page lists. The server never renders more.
const (
	sessionsPage = 50
	entriesPage  = 200
	callsPage    = 50
	usagePage    = 100
	anchorsShown = 100 // of a tape's timeline, around the anchor shown
	lookAhead    = 20  // entries past a page folded for the results of its calls: results follow their calls
	searchHits   = 50
	maxHits      = 500
)

// Frame is what every page's layout shows: its title, the search box, the
// tape it is of and the section it is in.
type Frame struct {
	Title   string
	Query   string // the search box's text
	Tape    string // the tape the page shows: the box offers to search it alone
	Nav     string // sessions, search, calls, usage
	Version string
}

func (s *Server) frame(title string) Frame {
	return Frame{Title: title, Version: s.opts.Version}
}

type errorPage struct {
	Frame
	Status  int
	Message string
}

// pager links the pages of a list.
type pager struct {
	From, To, Total int // 1-based, as shown
	Prev, Next      string
}

// newPager is the pager of a list of total rows at offset, of which shown
// are shown; link makes the URL of the page at an offset.
func newPager(offset, shown, total, size int, link func(offset int) string) pager {
	p := pager{From: min(offset+1, total), To: offset + shown, Total: total}
	if offset > 0 {
		p.Prev = link(max(0, offset-size))
	}
	if offset+shown < total {
		p.Next = link(offset + shown)
	}
	return p
}

// pageOffset reads ?page= (1-based) as an offset.
func pageOffset(r *http.Request, size int) (int, error) {
	v := r.URL.Query().Get("page")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1<<20 {
		return 0, badRequest("page %q: want a page number, 1 or more", v)
	}
	return (n - 1) * size, nil
}

// withPage is path with the query q, its page set to offset's, and
// without a token.
func withPage(path string, q url.Values, offset, size int) string {
	q = cloneValues(q)
	q.Del("token")
	if offset == 0 {
		q.Del("page")
	} else {
		q.Set("page", strconv.Itoa(offset/size+1))
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

func cloneValues(q url.Values) url.Values {
	c := make(url.Values, len(q))
	for k, v := range q {
		c[k] = append([]string(nil), v...)
	}
	return c
}

// listParams reads a list's ?tape= (a tape's name; "" for every tape)
// and ?page= (as an offset in pages of size).
func listParams(r *http.Request, size int) (tape string, offset int, err error) {
	if v := r.URL.Query().Get("tape"); v != "" {
		if tape, err = tapeParam(v); err != nil {
			return "", 0, err
		}
	}
	offset, err = pageOffset(r, size)
	return tape, offset, err
}

// tapeParam is the tape a URL names, which must be a tape's name.
func tapeParam(name string) (string, error) {
	if err := tapelog.ValidateTapeName(name); err != nil {
		return "", notFound("no tape %q", name)
	}
	return name, nil
}

// served runs fn on the index made fresh (projector.ServedRead).
func served[T any](ctx context.Context, s *Server, fn func(ix *projector.Projector) (T, error)) (T, error) {
	return projector.ServedRead(ctx, s.ix, fn)
}

// The sessions page.

type sessionsData struct {
	Frame
	Filter   string
	Sessions []sessionRow
	Pager    pager
}

type sessionRow struct {
	sessions.Session
	URL   string
	Forks int
}

func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	offset, err := pageOffset(r, sessionsPage)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	filter := r.URL.Query().Get("q")
	type listed struct {
		list  []sessions.Session
		total int
	}
	got, err := served(r.Context(), s, func(ix *projector.Projector) (listed, error) {
		list, total, err := sessions.List(r.Context(), ix, sessions.Filter{Match: filter, Page: views.Page{Limit: sessionsPage, Offset: offset}})
		return listed{list, total}, err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d := sessionsData{Frame: s.frame("Sessions"), Filter: filter}
	d.Nav = "sessions"
	for _, ss := range got.list {
		d.Sessions = append(d.Sessions, sessionRow{Session: clipSession(ss), URL: tapeURL(ss.Name), Forks: s.ws.CountForks(ss.Name)})
	}
	d.Pager = newPager(offset, len(got.list), got.total, sessionsPage, func(o int) string { return withPage("/", r.URL.Query(), o, sessionsPage) })
	s.respond(w, r, http.StatusOK, "sessions", d)
}

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
	got, err := read.EntryPage(ctx, ix, read.EntryQuery{Tape: tape, Pick: read.Pick{One: folder}}, pg)
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
	if len(list) == 1 {
		t.session = list[0]
	}
	return t, err
}

func (s *Server) tapeData(tape string, t tapeRead) (tapeData, error) {
	t.session = clipSession(t.session)
	d := tapeData{Frame: s.frame(cmp.Or(t.session.Title, tape)), Session: t.session}
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
func clipSession(s sessions.Session) sessions.Session {
	s.Title, s.CWD, s.Branch, s.Model = clip(s.Title), clip(s.CWD), clip(s.Branch), clip(s.Model)
	s.Source, s.Parent = clip(s.Source), clip(s.Parent)
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

// The search page.

type searchData struct {
	Frame
	Scope    string // the tape searched, "" for every tape
	Hits     []hitRow
	RankedBy string
	More     string // the URL of a search for more hits
	Warnings []string
	Message  string
	Searched bool
}

type hitRow struct {
	Tape, ID, Kind, Date, Anchor, Folder string
	Spans                                []projector.SnippetSpan
	URL, TapeURL                         string
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := searchData{Frame: s.frame("Search")}
	d.Nav, d.Query = "search", q.Get("q")
	if d.Query != "" {
		d.Title = d.Query + " · Search"
	}
	n := searchHits
	if v := q.Get("n"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > maxHits {
			s.fail(w, r, badRequest("n %q: want 1 to %d hits", v, maxHits))
			return
		}
	}
	if v := q.Get("tape"); v != "" {
		tape, err := tapeParam(v)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		d.Scope, d.Tape = tape, tape
	}
	if d.Query == "" {
		s.respond(w, r, http.StatusOK, "search", d)
		return
	}
	sq := projector.SearchQuery{Text: d.Query, Kinds: q["kind"], Limit: n}
	if d.Scope != "" {
		sq.Tapes = []string{d.Scope}
	}
	got, err := served(r.Context(), s, func(ix *projector.Projector) (read.Found, error) {
		return read.Search(r.Context(), ix, sq, "")
	})
	if errors.Is(err, projector.ErrEmptyQuery) {
		d.Message = fmt.Sprintf("%q has no word to search for.", d.Query)
		s.respond(w, r, http.StatusOK, "search", d)
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d.Searched, d.RankedBy = true, projector.RankedByBM25
	for _, le := range got.Unlisted {
		d.Warnings = append(d.Warnings, le.Error()+"; not searched")
	}
	if got.More {
		more := cloneValues(q)
		more.Del("token")
		more.Set("n", strconv.Itoa(min(maxHits, 2*n)))
		if n < maxHits {
			d.More = "/search?" + more.Encode()
		}
	}
	for _, h := range got.Hits {
		e := h.Entry
		d.RankedBy = h.RankedBy
		d.Hits = append(d.Hits, hitRow{Tape: e.Pos.Tape, ID: e.ID, Kind: clip(e.Kind), Date: clip(e.Date), Anchor: clip(e.Pos.Anchor), Folder: e.Pos.Folder,
			Spans: projector.SnippetSpans(h.Snippet), URL: entryURL(e.Pos.Tape, e.ID), TapeURL: tapeURL(e.Pos.Tape)})
	}
	s.respond(w, r, http.StatusOK, "search", d)
}

// The calls page.

type callsData struct {
	Frame
	Status, Name string
	Counts       map[string]int // by status, and "" for all
	Calls        []callRow
	Pager        pager
}

type callRow struct {
	calls.Listed
	URL, TapeURL string
	Took         string
	Args, Result string
}

func (s *Server) calls(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := callsData{Frame: s.frame("Tool calls"), Status: q.Get("status"), Name: q.Get("name")}
	d.Nav = "calls"
	switch d.Status {
	case "", calls.StatusPending, calls.StatusCompleted, calls.StatusFailed:
	default:
		s.fail(w, r, badRequest("status %q: want pending, completed or failed", d.Status))
		return
	}
	tape, offset, err := listParams(r, callsPage)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d.Tape = tape
	type listed struct {
		list   []calls.Listed
		total  int
		counts map[string]int
	}
	got, err := served(r.Context(), s, func(ix *projector.Projector) (listed, error) {
		f := calls.Filter{Tape: d.Tape, Status: d.Status, Name: d.Name, Page: views.Page{Limit: callsPage, Offset: offset}}
		list, total, _, err := calls.List(r.Context(), ix, f)
		if err != nil {
			return listed{}, err
		}
		counts := map[string]int{}
		for _, st := range []string{"", calls.StatusPending, calls.StatusCompleted, calls.StatusFailed} {
			if counts[st], err = calls.Count(r.Context(), ix, calls.Filter{Tape: d.Tape, Status: st, Name: d.Name}); err != nil {
				return listed{}, err
			}
		}
		return listed{list, total, counts}, nil
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d.Counts = got.counts
	for _, c := range got.list {
		row := callRow{Listed: c, TapeURL: tapeURL(c.Tape), Args: wording.OneLine(compact(c.Arguments), 160)}
		row.Name = clip(c.Name)
		if c.Entry != "" { // "" for a call whose line changed since it was indexed
			row.URL = entryURL(c.Tape, c.Entry)
		}
		if c.DurationMS != nil {
			row.Took = took(*c.DurationMS)
		}
		if c.Result != nil {
			text, _ := resultText(c.Result)
			row.Result = wording.OneLine(text, 160)
		}
		d.Calls = append(d.Calls, row)
	}
	d.Pager = newPager(offset, len(got.list), got.total, callsPage, func(o int) string { return withPage("/calls", q, o, callsPage) })
	s.respond(w, r, http.StatusOK, "calls", d)
}

// The usage page.

type usageData struct {
	Frame
	By     string
	Groups []usageRow
	Totals usage.Row
	Chart  chart
	Pager  pager
}

type usageRow struct {
	usage.Row
	Group, URL string
}

func (s *Server) usage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := usageData{Frame: s.frame("Usage"), By: cmp.Or(q.Get("by"), "day")}
	d.Nav = "usage"
	switch d.By {
	case "tape", "anchor", "model", "day":
	default:
		s.fail(w, r, badRequest("by %q: want tape, anchor, model or day", d.By))
		return
	}
	tape, offset, err := listParams(r, usagePage)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d.Tape = tape
	type summed struct {
		rows, days []usage.Row
		total      int
		totals     usage.Row
	}
	got, err := served(r.Context(), s, func(ix *projector.Projector) (summed, error) {
		var g summed
		var err error
		ctx := r.Context()
		if g.days, _, err = usage.Sum(ctx, ix, usage.Filter{By: "day", Tape: d.Tape}); err != nil {
			return g, err
		}
		all := g.days
		if d.By == "day" {
			// The newest day first, as the other lists of the page: the
			// chart above shows the days in time order.
			all = slices.Clone(g.days)
			slices.Reverse(all)
		} else if all, _, err = usage.Sum(ctx, ix, usage.Filter{By: d.By, Tape: d.Tape}); err != nil {
			return g, err
		}
		g.rows, g.total = views.PageOf(all, views.Page{Limit: usagePage, Offset: offset}), len(all)
		if d.Tape == "" {
			g.totals, err = usage.Total(ctx, ix)
			return g, err
		}
		rows, _, err := usage.Sum(ctx, ix, usage.Filter{By: "tape", Tape: d.Tape})
		if len(rows) == 1 {
			g.totals = rows[0]
		}
		return g, err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d.Totals = got.totals
	for _, u := range got.rows {
		row := usageRow{Row: u}
		switch d.By {
		case "tape":
			row.Group, row.URL = u.Tape, tapeURL(u.Tape)
		case "anchor":
			row.Group = fmt.Sprintf("%s %03d %s", u.Tape, u.AnchorSeq, u.Anchor)
			row.URL = tapeURL(u.Tape)
		case "model":
			row.Group = cmp.Or(clip(u.Model), "(no model)")
		case "day":
			row.Group = cmp.Or(u.Day, "(no date)")
		}
		d.Groups = append(d.Groups, row)
	}
	d.Chart = dayChart(got.days)
	d.Pager = newPager(offset, len(got.rows), got.total, usagePage, func(o int) string { return withPage("/usage", q, o, usagePage) })
	s.respond(w, r, http.StatusOK, "usage", d)
}

// compact is a call's arguments on one line.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, argumentsJSON(raw)) != nil {
		return string(raw)
	}
	return b.String()
}
