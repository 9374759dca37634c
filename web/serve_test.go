package web

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/testkit/poll"
)

// What tape serve's HTTP server does with clients that hold on: idle
// connections are closed, live streams are capped, and last.

// startHTTP serves s on a loopback port as tape serve does
// (HTTPServer), and returns its address.
func startHTTP(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	hs := s.HTTPServer(ctx)
	go hs.Serve(ln)
	t.Cleanup(func() {
		cancel()
		hs.Close()
	})
	return ln.Addr().String()
}

// closedByServer reports whether the server closed conn (a read ends
// with EOF) within 10 s; what the server sent before is read and dropped.
func closedByServer(t *testing.T, conn net.Conn) bool {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return true // EOF (io.Copy's nil) or a reset
}

// TestIdleConnectionsClose: a keep-alive connection no request comes on
// is closed after Timeouts.Idle, even one whose request got a 401 from a
// server with a token; one that never ends its headers, after
// Timeouts.ReadHeader.
func TestIdleConnectionsClose(t *testing.T) {
	t.Parallel()
	s := newServer(t, fixture(t), Options{Token: "s3cret", Timeouts: Timeouts{Idle: 200 * time.Millisecond, ReadHeader: 200 * time.Millisecond}})
	addr := startHTTP(t, s)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || res.Close {
		t.Fatalf("a request without the token: %d, close %v; want 401 on a connection kept alive", res.StatusCode, res.Close)
	}
	if !closedByServer(t, conn) {
		t.Errorf("an idle keep-alive connection is still open after 10 s; want it closed after %v", s.opts.Timeouts.Idle)
	}

	half, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer half.Close()
	if _, err := io.WriteString(half, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"); err != nil {
		t.Fatal(err)
	}
	if !closedByServer(t, half) {
		t.Errorf("a connection that never ends its headers is still open after 10 s; want it closed after %v", s.opts.Timeouts.ReadHeader)
	}
}

// TestStreamOutlivesTimeouts: a live stream is open as long as its page,
// past the server's read, write and idle timeouts, and sends what is
// written then.
func TestStreamOutlivesTimeouts(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	const d = 200 * time.Millisecond
	s := newServer(t, ws, Options{Poll: 20 * time.Millisecond, Timeouts: Timeouts{ReadHeader: d, Read: d, Idle: d, Write: d}})
	addr := startHTTP(t, s)
	live := openStream(t, "http://"+addr+"/t/demo/live?at=002_review/2/m3&from=0")
	// A connection opened after the stream and closed as idle: the
	// timeouts have passed for the stream too.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /static/style.css HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if !closedByServer(t, conn) {
		t.Fatalf("an idle connection is still open after 10 s")
	}
	appendLines(t, filepath.Join(ws.Dir(), "tapes", "demo", "anchors", "002_review", "messages.jsonl"),
		`{"id":"late","kind":"message","payload":{"role":"user","content":"after the timeouts"},"date":"2026-11-20T10:00:02Z"}`)
	if ev := live.next("late"); ev.name != "entries" || !strings.Contains(ev.data, `id="e-late"`) {
		t.Fatalf("after the timeouts: %+v", ev)
	}
}

// TestRedirectStaysOnServer: the redirect that takes the token out of a
// URL names a path of this server, never a scheme-relative URL of
// another (//evil.example/).
func TestRedirectStaysOnServer(t *testing.T) {
	t.Parallel()
	const token = "s3cret"
	h := newServer(t, fixture(t), Options{Token: token}).Handler()
	base, _ := url.Parse("http://127.0.0.1:7070/")
	for target, want := range map[string]string{
		"//evil.example/":         "/evil.example/",
		"///evil.example/":        "/evil.example/",
		"/\\evil.example/":        "/%5Cevil.example/",
		"/%2F%2Fevil.example/x":   "/%2F%2Fevil.example/x",
		"/%5C%5Cevil.example/":    "/%5C%5Cevil.example/",
		"//evil.example/?q=a%20b": "/evil.example/?q=a+b",
		"/calls?status=failed":    "/calls?status=failed",
	} {
		sep := "?"
		if strings.Contains(target, "?") {
			sep = "&"
		}
		res := get(t, h, target+sep+"token="+token)
		loc := res.Header.Get("Location")
		u, err := url.Parse(loc)
		if res.StatusCode != http.StatusSeeOther || err != nil || loc != want || base.ResolveReference(u).Host != base.Host || strings.Contains(loc, `\`) {
			t.Errorf("GET %s with the token: %d to %q; want 303 to %q, on this server", target, res.StatusCode, loc, want)
		}
	}
}

// TestLiveStreamCap: past MaxStreams open streams, a stream is answered
// 503 with Retry-After; once one closes, the next is served.
func TestLiveStreamCap(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	s := newServer(t, ws, Options{Poll: 20 * time.Millisecond, MaxStreams: 2})
	addr := startHTTP(t, s)
	const target = "/t/demo/live?at=002_review/2/m3&from=0"
	first := openStream(t, "http://"+addr+target)
	openStream(t, "http://"+addr+target)
	res, err := http.Get("http://" + addr + target)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("a third stream past MaxStreams 2: %d, Retry-After %q; want 503 with a Retry-After", res.StatusCode, res.Header.Get("Retry-After"))
	}
	first.cancel()
	if !poll.Wait(10*time.Second, func() bool { return s.streams.Load() == 1 }) {
		t.Fatalf("a closed stream still counts: %d open", s.streams.Load())
	}
	third := openStream(t, "http://"+addr+target)
	appendLines(t, filepath.Join(ws.Dir(), "tapes", "demo", "anchors", "002_review", "messages.jsonl"),
		`{"id":"m4","kind":"message","payload":{"role":"user","content":"four"},"date":"2026-11-20T10:00:02Z"}`)
	if ev := third.next("m4"); ev.name != "entries" || !strings.Contains(ev.data, `id="e-m4"`) {
		t.Fatalf("a stream opened once another closed: %+v", ev)
	}
}

// TestIdleStreamsDoNotRead: a stream reads the index at the looks that
// found it changed, not at each look: idle, it reads (almost) nothing,
// and a change comes at the next look, not after idleReads of them;
// whether the server catches the index up itself on its own connection
// (an index it made) or beside it (one it found).
func TestIdleStreamsDoNotRead(t *testing.T) {
	t.Parallel()
	for _, found := range []bool{false, true} {
		t.Run(fmt.Sprintf("found=%v", found), func(t *testing.T) {
			t.Parallel() // each waits out its files' racy window: seconds of looks
			idleStreamDoesNotRead(t, found)
		})
	}
}

// idleStreamDoesNotRead is TestIdleStreamsDoNotRead on an index the
// server made (found false) or found.
func idleStreamDoesNotRead(t *testing.T, found bool) {
	ws := fixture(t)
	if found {
		first := newServer(t, ws, Options{})
		get(t, first.Handler(), "/")
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s := newServer(t, ws, Options{Poll: 20 * time.Millisecond})
	addr := startHTTP(t, s)
	live := openStream(t, "http://"+addr+"/t/demo/live?at=002_review/2/m3&from=0")
	// The files were just written: for a couple of seconds the
	// catch-up reads them again at each look (projector's
	// racyWindow). Once the index's version holds for 10 looks:
	settled(t, s, 10)
	reads := s.looks.reads.Load()
	settled(t, s, 40)
	if n := s.looks.reads.Load() - reads; n > 1 {
		t.Errorf("index found %v: an idle stream read the index %d times in 40 looks of an index that did not change; want none", found, n)
	}
	before := s.looks.done.Load()
	appendLines(t, filepath.Join(ws.Dir(), "tapes", "demo", "anchors", "002_review", "messages.jsonl"),
		`{"id":"m4","kind":"message","payload":{"role":"user","content":"four"},"date":"2026-11-20T10:00:02Z"}`)
	if ev := live.next("m4"); ev.name != "entries" || !strings.Contains(ev.data, `id="e-m4"`) {
		t.Fatalf("index found %v: after a change: %+v", found, ev)
	}
	// At the next look, or a few more on a busy machine; a change that
	// moved no part of the version would come at the idleReads-th.
	if looks := s.looks.done.Load() - before; looks > 20 {
		t.Errorf("index found %v: a change came %d looks after it was written; want it at the next", found, looks)
	}
}

// settled waits, within 20 s, until the index's version holds for n
// looks in a row.
func settled(t *testing.T, s *Server, n int64) {
	t.Helper()
	v, since := s.looks.current(), s.looks.done.Load()
	poll.Until(t, 20*time.Second, fmt.Sprintf("the index's version to hold for %d looks", n), func() bool {
		if s.looks.done.Load() >= since+n {
			return true
		}
		if cur := s.looks.current(); cur != v {
			v, since = cur, s.looks.done.Load()
		}
		return false
	})
}
