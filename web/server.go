package web

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tape-dev/tape/fresh"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/pricing"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/redact"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Options configure a server.
type Options struct {
	// Token, if set, is asked of every request: as ?token= (which then
	// sets a cookie, so that links work), the cookie, or an Authorization
	// bearer. A request without it gets 401.
	Token string
	// Reading is how a request makes the index fresh before it reads
	// (fresh.Read): the CLI passes the one its reads use.
	Reading fresh.Reading
	// Poll is how often a live page's stream looks for new entries;
	// 0 means DefaultPoll.
	Poll time.Duration
	// Version is tape's version, shown at the foot of each page.
	Version string
	// Log, if set, is told of requests that failed on the server's side.
	Log *slog.Logger
	// MaxStreams is how many live streams the server keeps open at once;
	// 0 means DefaultMaxStreams.
	MaxStreams int
	// Timeouts are how long HTTPServer's server waits on a client; a
	// zero field is its default.
	Timeouts Timeouts
	// Prices price the usage page's runs; nil shows tokens alone.
	Prices *pricing.Table
	// Redactor, if set, replaces the secrets of every page and live event
	// with [REDACTED:<kind>] (redact.go).
	Redactor *redact.Redactor
}

// DefaultMaxStreams is how many live pages a server follows at once. A
// stream holds a connection and a goroutine for as long as its page is
// open, and each reads the index when it changes: the cap bounds what
// anyone who may ask (anyone on loopback, without a token) can make the
// server hold. One person's tabs are far fewer (a browser opens six
// connections to a server, and a hidden tab closes its stream); a stream
// past the cap is answered 503 with Retry-After, and the page tries again.
const DefaultMaxStreams = 64

// streamRetry is the Retry-After of a stream past MaxStreams, in seconds.
const streamRetry = 10

// Timeouts are how long the server waits on a client.
type Timeouts struct {
	// ReadHeader bounds reading a request's headers: a client that
	// connects and sends nothing, or a header a byte at a time, is let go.
	ReadHeader time.Duration
	// Read bounds reading a whole request (tape serve's have no body).
	// Once a request is read, net/http lifts it, and a live stream lasts.
	Read time.Duration
	// Idle closes a keep-alive connection no request came on for this
	// long, whatever the last answer was (a 401 too).
	Idle time.Duration
	// Write bounds writing an answer. A page is rendered whole before its
	// first byte, so this is the time a client takes to read it. A live
	// stream, open as long as its page, sets it again before each event:
	// a client that stopped reading is let go at its next event.
	Write time.Duration
}

// The default Timeouts. Idle is half a minute: a person clicks a link
// within it, and the next connection over loopback or a LAN costs a
// handshake.
const (
	defaultReadHeaderTimeout = 10 * time.Second
	defaultReadTimeout       = 30 * time.Second
	defaultIdleTimeout       = 30 * time.Second
	defaultWriteTimeout      = time.Minute
)

func (t Timeouts) orDefaults() Timeouts {
	return Timeouts{
		ReadHeader: cmp.Or(t.ReadHeader, defaultReadHeaderTimeout),
		Read:       cmp.Or(t.Read, defaultReadTimeout),
		Idle:       cmp.Or(t.Idle, defaultIdleTimeout),
		Write:      cmp.Or(t.Write, defaultWriteTimeout),
	}
}

// HTTPServer is the HTTP server `tape serve` runs: the server's handler
// with its timeouts, each request's context derived from base (which
// ends the live streams when it ends).
func (s *Server) HTTPServer(base context.Context) *http.Server {
	t := s.opts.Timeouts
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		IdleTimeout:       t.Idle,
		WriteTimeout:      t.Write,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
}

// DefaultPoll is how often a live page's stream looks for new entries:
// each look is a barrier with a running watcher, or a catch-up (a
// millisecond or two when nothing changed).
const DefaultPoll = 300 * time.Millisecond

// Server serves one workspace's pages.
type Server struct {
	ws     *tapelog.Workspace
	opts   Options
	ix     *fresh.Served
	pages  map[string]*template.Template
	static http.Handler
	// streams counts the live streams open now, and looks wakes them
	// (live.go).
	streams atomic.Int64
	looks   looks
	// passes counts the batches of work that read or changed something,
	// of the passes this server ran on the index's own connection
	// (Reading.Progress): a part of the index's version its live streams
	// compare (looks.go).
	passes atomic.Uint64
}

// New returns the server of ws. Close closes its index.
func New(ws *tapelog.Workspace, opts Options) (*Server, error) {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.MaxStreams <= 0 {
		opts.MaxStreams = DefaultMaxStreams
	}
	opts.Timeouts = opts.Timeouts.orDefaults()
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, err
	}
	files := http.StripPrefix("/static/", http.FileServerFS(sub))
	static := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") { // a folder: no listing
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
	s := &Server{ws: ws, opts: opts, pages: pages, static: static}
	progress := opts.Reading.Progress
	s.opts.Reading.Progress = func(st projector.Stats) {
		if st.FilesRead+st.Entries+st.Removed+st.BadLines > 0 || st.Bytes > 0 {
			s.passes.Add(1)
		}
		if progress != nil {
			progress(st)
		}
	}
	s.ix = fresh.NewServed(ws, "tape serve", s.opts.Reading)
	return s, nil
}

// Close closes the server's index.
func (s *Server) Close() error { return s.ix.Close() }

// pageNames are the pages, each templates/<name>.html with the shared
// templates/layout.html.
var pageNames = []string{"sessions", "tape", "search", "calls", "usage", "error"}

func parsePages() (map[string]*template.Template, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", "templates/chat.html")
	if err != nil {
		return nil, fmt.Errorf("parse the layout: %w", err)
	}
	pages := make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		t, err := template.Must(base.Clone()).ParseFS(templateFiles, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("parse page %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// httpError is an error a page answers with its status.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// fail answers a request with err: its status and message for an
// httpError, else 500, and the error to the log.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := http.StatusInternalServerError, "the server could not read the workspace: "+err.Error()
	if he := (*httpError)(nil); errors.As(err, &he) {
		status, msg = he.status, he.msg
	} else if s.opts.Log != nil {
		s.opts.Log.Error("request failed", "path", r.URL.Path, "err", err)
	}
	s.respond(w, r, status, "error", errorPage{Frame: s.frame(http.StatusText(status)), Status: status, Message: msg})
}

// respond answers with the page of the given name, rendered whole before
// the first byte is sent, so that a template's failure is a 500 and not
// half a page.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	var b bytes.Buffer
	if err := s.pages[name].ExecuteTemplate(&b, name+".html", data); err != nil {
		if s.opts.Log != nil {
			s.opts.Log.Error("render", "page", name, "path", r.URL.Path, "err", err)
		}
		http.Error(w, "tape serve could not render this page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store") // tapes hold secrets: no copy on disk
	w.WriteHeader(status)
	w.Write(b.Bytes())
}
