package web

import "net/http"

// Handler is the server's routes, behind its guard (auth.go). Every URL
// names what it shows, so that it can be shared and kept:
//
//	/                          the sessions, newest first (?q= filters, ?page=)
//	/t/<tape>                  a tape: its anchors, and its newest entries, live
//	/t/<tape>/a/<folder>       one anchor's entries (?from= pages)
//	/t/<tape>/e/<entry id>     an entry: redirects to its place in its anchor
//	/t/<tape>/live             the stream of a live page (Server-Sent Events)
//	/search?q=                 search (?tape= narrows, ?n= more hits)
//	/calls                     the tool calls (?status= ?name= ?tape= ?page=)
//	/usage                     token usage (?by=tape|anchor|model|day ?tape=)
//	/static/...                the embedded style sheet and script
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.sessions)
	mux.HandleFunc("GET /t/{tape}", s.tape)
	mux.HandleFunc("GET /t/{tape}/a/{folder}", s.anchor)
	mux.HandleFunc("GET /t/{tape}/e/{id...}", s.entry)
	mux.HandleFunc("GET /t/{tape}/live", s.live)
	mux.HandleFunc("GET /search", s.search)
	mux.HandleFunc("GET /calls", s.calls)
	mux.HandleFunc("GET /usage", s.usage)
	mux.Handle("GET /static/", s.static)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, notFound("no page at %s", r.URL.Path))
	})
	return s.guard(s.scrubbing(mux))
}
