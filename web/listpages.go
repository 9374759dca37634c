package web

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/searchlang"
	"github.com/tape-dev/tape/internal/wording"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/calls"
	"github.com/tape-dev/tape/views/usage"
)

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
	Spans                                []searchlang.SnippetSpan
	URL, TapeURL                         string
	// FirstSome marks the first hit of the relaxed pass: the entries
	// after it hold some of the words, not all.
	FirstSome bool
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
	sq := projector.SearchQuery{Text: d.Query, Kinds: q["kind"], Limit: n, Relax: true}
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
	some := false
	for _, h := range got.Hits {
		e := h.Entry
		if h.Match == projector.MatchAll {
			d.RankedBy = h.RankedBy
		}
		if rd := s.opts.Redactor; rd != nil {
			h.Snippet = rd.Snippet(h.Snippet, e) // a match's <mark> would split a secret from the rules
		}
		d.Hits = append(d.Hits, hitRow{Tape: e.Pos.Tape, ID: e.ID, Kind: clip(e.Kind), Date: clip(e.Date), Anchor: clip(e.Pos.Anchor), Folder: e.Pos.Folder,
			Spans: searchlang.SnippetSpans(h.Snippet), URL: entryURL(e.Pos.Tape, e.ID), TapeURL: tapeURL(e.Pos.Tape),
			FirstSome: h.Match == projector.MatchSome && !some})
		some = some || h.Match == projector.MatchSome
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
	Warnings     []string // lines that changed since read, results that answer no call (read.Calls)
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
		read.Calls
		counts map[string]int
	}
	got, err := served(r.Context(), s, func(ix *projector.Projector) (listed, error) {
		f := calls.Filter{Tape: d.Tape, Status: d.Status, Name: d.Name, Page: views.Page{Limit: callsPage, Offset: offset}}
		page, err := read.ListCalls(r.Context(), ix, f)
		if err != nil {
			return listed{}, err
		}
		counts := map[string]int{}
		for _, st := range []string{"", calls.StatusPending, calls.StatusCompleted, calls.StatusFailed} {
			if counts[st], err = calls.Count(r.Context(), ix, calls.Filter{Tape: d.Tape, Status: st, Name: d.Name}); err != nil {
				return listed{}, err
			}
		}
		return listed{page, counts}, nil
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d.Counts = got.counts
	d.Warnings = callWarnings(got.Calls)
	for _, c := range got.Page {
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
	d.Pager = newPager(offset, len(got.Page), got.Total, callsPage, func(o int) string { return withPage("/calls", q, o, callsPage) })
	s.respond(w, r, http.StatusOK, "calls", d)
}

// The usage page.

type usageData struct {
	Frame
	By       string
	Groups   []usageRow
	Totals   usage.Row
	Chart    chart
	Pager    pager
	Warnings []string // runs whose token counts were not summed (read.Usage.BadUsage)
}

type usageRow struct {
	usage.Row
	Group, URL string
}

func (s *Server) usage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := usageData{Frame: s.frame("Usage"), By: cmp.Or(q.Get("by"), "day")}
	d.Nav = "usage"
	if !slices.Contains(usage.Groupings, d.By) {
		s.fail(w, r, badRequest("by %q: want one of %s", d.By, strings.Join(usage.Groupings, ", ")))
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
		total, bad int
		totals     usage.Row
	}
	got, err := served(r.Context(), s, func(ix *projector.Projector) (summed, error) {
		var g summed
		var err error
		ctx := r.Context()
		days, err := read.SumUsage(ctx, ix, usage.Filter{By: "day", Tape: d.Tape, Prices: s.opts.Prices})
		if err != nil {
			return g, err
		}
		g.days, g.bad = days.Rows, days.BadUsage
		all := g.days
		if d.By == "day" {
			// The newest day first, as the other lists of the page: the
			// chart above shows the days in time order.
			all = slices.Clone(g.days)
			slices.Reverse(all)
		} else if d.By == "week" || d.By == "month" || d.By == "block" {
			by, err := read.SumUsage(ctx, ix, usage.Filter{By: d.By, Tape: d.Tape, Prices: s.opts.Prices})
			if err != nil {
				return g, err
			}
			all = slices.Clone(by.Rows) // the newest first, as days
			slices.Reverse(all)
		} else {
			by, err := read.SumUsage(ctx, ix, usage.Filter{By: d.By, Tape: d.Tape, Prices: s.opts.Prices})
			if err != nil {
				return g, err
			}
			all = by.Rows
		}
		g.rows, g.total = views.PageOf(all, views.Page{Limit: usagePage, Offset: offset}), len(all)
		if d.Tape == "" {
			g.totals, err = usage.Total(ctx, ix, s.opts.Prices)
			return g, err
		}
		one, err := read.SumUsage(ctx, ix, usage.Filter{By: "tape", Tape: d.Tape, Prices: s.opts.Prices})
		if len(one.Rows) == 1 {
			g.totals = one.Rows[0]
		}
		return g, err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d.Totals = got.totals
	if w := read.BadUsageWarning(got.bad); w != "" {
		d.Warnings = []string{w}
	}
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
		case "day", "week", "month":
			row.Group = cmp.Or(u.Day+u.Week+u.Month, "(no date)")
		case "project":
			row.Group = cmp.Or(clip(u.Project), "(no cwd)")
		case "source":
			row.Group = cmp.Or(u.Source, "(not imported)")
		case "session":
			row.Group, row.URL = u.Tape+" "+cmp.Or(u.Source, "(not imported)"), tapeURL(u.Tape)
		case "block":
			row.Group = blockGroup(u.Block)
		}
		d.Groups = append(d.Groups, row)
	}
	d.Chart = dayChart(got.days)
	d.Pager = newPager(offset, len(got.rows), got.total, usagePage, func(o int) string { return withPage("/usage", q, o, usagePage) })
	s.respond(w, r, http.StatusOK, "usage", d)
}

// blockGroup names a 5-hour block: its start (UTC) and, for the active
// one, how long it has left and how fast it spends.
func blockGroup(b *usage.Block) string {
	if b == nil {
		return ""
	}
	g := b.Start.Format("2006-01-02 15:04 UTC")
	if state := read.BlockState(b, time.Now()); state != "" {
		g += ", " + state
	}
	return g
}

// callWarnings are what a page of calls warns of: the lines of calls or
// results that changed since the index read them, and the results that
// answer no call.
func callWarnings(got read.Calls) []string {
	var out []string
	for _, err := range got.Stale {
		out = append(out, clip(err.Error())+"; skipped")
	}
	if w := got.OrphansWarning(); w != "" {
		out = append(out, clip(w))
	}
	return out
}
