package web

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/redact"
)

// With a redactor, what a live page receives as the tape grows has its
// secrets replaced too: the stream's events, not only the pages.
func TestLiveEventsAreRedacted(t *testing.T) {
	t.Parallel()
	r, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	ws := fixture(t)
	srv := httptest.NewServer(newServer(t, ws, Options{Poll: 20 * time.Millisecond, Redactor: r}).Handler())
	t.Cleanup(srv.Close)
	review := filepath.Join(ws.Dir(), "tapes", "demo", "anchors", "002_review", "messages.jsonl")
	const live = "/t/demo/live?at=002_review%2F2%2Fm3&from=0"
	s := openStream(t, srv.URL+live)
	secret := "ghp_" + strings.Repeat("Zq8Lm2Xv4N", 4)[:36]
	appendLines(t, review, `{"id":"m4","kind":"message","payload":{"role":"assistant","content":"export GH_TOKEN=`+secret+`"},"date":"2026-11-20T10:00:02Z"}`)
	ev := s.next("m4")
	if strings.Contains(ev.data, secret[:12]) || !strings.Contains(ev.data, "GH_TOKEN") || !strings.Contains(ev.data, "[REDACTED:github-pat]") {
		t.Fatalf("the live event of m4: %s", ev.data)
	}
}
