package web

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Who may ask. Without a token the server answers only requests whose
// Host is a loopback name: it binds to loopback then (the CLI sees to
// it), and a page of another site that a browser was tricked into
// sending here under its own name (DNS rebinding) must not read a
// workspace of secrets. With a token, every request must carry it.

// tokenCookie is the name of the cookie a request with ?token= sets, so
// that the page's links and its live stream carry the token without it
// in their URLs. Cookies are kept by host, not port: each port has its
// own, so that two servers on one machine keep theirs.
func tokenCookie(r *http.Request) string {
	if _, port, err := net.SplitHostPort(r.Host); err == nil && port != "" {
		return "tape_token_" + port
	}
	return "tape_token"
}

// guard wraps h with the checks every request passes first: its method
// (the server only reads), its Host or its token, and the headers every
// answer carries.
func (s *Server) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secureHeaders(w.Header())
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "tape serve only reads: "+r.Method+" is not allowed", http.StatusMethodNotAllowed)
			return
		}
		if s.opts.Token == "" {
			if !loopbackHost(r.Host) {
				http.Error(w, "tape serve answers requests to localhost only; to serve other hosts, start it with --token", http.StatusForbidden)
				return
			}
			h.ServeHTTP(w, r)
			return
		}
		given, fromQuery := requestToken(r)
		if subtle.ConstantTimeCompare([]byte(given), []byte(s.opts.Token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tape"`)
			http.Error(w, "tape serve needs its token: open the URL it printed, with ?token=", http.StatusUnauthorized)
			return
		}
		if fromQuery {
			// The cookie, then the same page without the token in its
			// URL: one copied from the address bar shares the page, not
			// the token. Lax lets a link from elsewhere (a chat, a mail)
			// open a page; the server only reads.
			http.SetCookie(w, &http.Cookie{Name: tokenCookie(r), Value: s.opts.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
			http.Redirect(w, r, withoutToken(r.URL), http.StatusSeeOther)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// withoutToken is the Location of u's page without its token: u's path
// and query, as a path of this server alone. Written as the request
// named it, //evil.example/ would be a scheme-relative URL, another
// site's: the path starts with one slash, whatever it started with (a
// backslash, which browsers read as a slash, is escaped in an escaped
// path).
func withoutToken(u *url.URL) string {
	q := u.Query()
	q.Del("token")
	loc := "/" + strings.TrimLeft(u.EscapedPath(), "/")
	if len(q) > 0 {
		loc += "?" + q.Encode()
	}
	return loc
}

// requestToken is the token a request carries, and whether it came in
// its query.
func requestToken(r *http.Request) (token string, fromQuery bool) {
	if t := r.URL.Query().Get("token"); t != "" {
		return t, true
	}
	if c, err := r.Cookie(tokenCookie(r)); err == nil {
		return c.Value, false
	}
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return t, false
	}
	return "", false
}

// loopbackHost reports whether a request's Host names this machine's
// loopback: localhost or a loopback address, with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsLoopback reports whether addr (host:port) binds to loopback only: a
// server bound anywhere else needs a token.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	return loopbackHost(host)
}

// secureHeaders are set on every answer. The policy runs no inline script
// and loads nothing from elsewhere: a payload that slipped through
// escaping still could not run.
func secureHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}
