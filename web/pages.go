package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tape-dev/tape/fresh"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/sessions"
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

// served runs fn on the index made fresh (fresh.ServedRead).
func served[T any](ctx context.Context, s *Server, fn func(ix *projector.Projector) (T, error)) (T, error) {
	return fresh.ServedRead(ctx, s.ix, fn)
}

// The sessions page.

type sessionsData struct {
	Frame
	Filter   string
	Sessions []sessionRow
	Pager    pager
	Warnings []string // names in the tapes folder no listing shows (read.Tapes.Unlisted)
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
	got, err := served(r.Context(), s, func(ix *projector.Projector) (read.Tapes, error) {
		return read.ListTapes(r.Context(), ix, sessions.Filter{Match: filter, Page: views.Page{Limit: sessionsPage, Offset: offset}})
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d := sessionsData{Frame: s.frame("Sessions"), Filter: filter}
	d.Nav = "sessions"
	for _, p := range got.Unlisted {
		d.Warnings = append(d.Warnings, clip(p.Path+": "+p.Problem))
	}
	for _, ss := range got.Page {
		d.Sessions = append(d.Sessions, sessionRow{Session: s.clipSession(ss), URL: tapeURL(ss.Name), Forks: s.ws.CountForks(ss.Name)})
	}
	d.Pager = newPager(offset, len(got.Page), got.Total, sessionsPage, func(o int) string { return withPage("/", r.URL.Query(), o, sessionsPage) })
	s.respond(w, r, http.StatusOK, "sessions", d)
}

// compact is a call's arguments on one line.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, argumentsJSON(raw)) != nil {
		return string(raw)
	}
	return b.String()
}
