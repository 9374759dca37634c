package web

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/testkit/corpus"
)

// The pages' own cost, in process (the handler, the index already fresh
// with no watcher to ask, so each request runs a catch-up that finds
// nothing): what BENCHMARKS.md's `tape-bench serve` figures hold besides
// HTTP and a watcher's barrier.

// benchWorkspace generates a corpus into a new workspace and indexes it.
func benchWorkspace(b *testing.B, gen func(dir string) error) *tapelog.Workspace {
	b.Helper()
	dir := filepath.Join(b.TempDir(), ".tape")
	if err := gen(dir); err != nil {
		b.Fatal(err)
	}
	ws, err := tapelog.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	ix, err := projector.Open(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.CatchUp(context.Background()); err != nil {
		b.Fatal(err)
	}
	return ws
}

func benchPage(b *testing.B, ws *tapelog.Workspace, target string) {
	h := newServer(b, ws, Options{}).Handler()
	if res := get(b, h, target); res.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d", target, res.StatusCode)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		get(b, h, target)
	}
}

// BenchmarkTapePage: the page of a tape of 10,000 entries in one anchor
// (an imported session's shape): its newest 200, and its first 200.
func BenchmarkTapePage(b *testing.B) {
	ws := benchWorkspace(b, func(dir string) error {
		_, err := corpus.Generate(dir, corpus.Options{Entries: 10000, PerAnchor: 10000, Seed: 1})
		return err
	})
	b.Run("newest", func(b *testing.B) { benchPage(b, ws, "/t/session-000") })
	b.Run("first", func(b *testing.B) { benchPage(b, ws, "/t/session-000/a/001_phase-1") })
}

// BenchmarkSessionsPage: the first page of 1,000 sessions.
func BenchmarkSessionsPage(b *testing.B) {
	ws := benchWorkspace(b, func(dir string) error {
		_, err := corpus.GenerateSessions(dir, corpus.SessionOptions{Tapes: 1000, Seed: 1})
		return err
	})
	benchPage(b, ws, "/")
}
