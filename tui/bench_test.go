package tui

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tape-dev/tape/fresh"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/testkit/corpus"
	"github.com/tape-dev/tape/views/sessions"
)

// benchIndex is the index of the workspace in TAPE_UI_BENCH_DIR (a
// folder holding .tape, indexed: bin/tape-bench gen -tapes 10000 -out
// DIR, then tape reindex in it), else of 1,000 sessions made here.
func benchIndex(b *testing.B) Index {
	b.Helper()
	dir := os.Getenv("TAPE_UI_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
		if _, err := corpus.GenerateSessions(filepath.Join(dir, tapelog.DirName), corpus.SessionOptions{Tapes: 1000}); err != nil {
			b.Fatal(err)
		}
	}
	ws, err := tapelog.Open(filepath.Join(dir, tapelog.DirName))
	if err != nil {
		b.Fatal(err)
	}
	served := fresh.NewServed(ws, "tape ui bench", fresh.Reading{})
	b.Cleanup(func() { served.Close(); ws.Close() })
	x := Index{Served: served}
	if _, err := x.Version(context.Background()); err != nil { // catches up
		b.Fatal(err)
	}
	return x
}

// benchModel is a model at 200×50 with the sessions read, as a person
// sees it when the first screen is drawn.
func benchModel(b *testing.B, x Index) *driver {
	d := &driver{t: &testing.T{}, m: New(context.Background(), Options{Reader: x, Poll: -1})}
	d.m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	msg := (<-d.m.first).(sessionsMsg) // the first page, read since New
	if msg.err != nil {
		b.Fatal(msg.err)
	}
	d.m.Update(msg)
	return d
}

// BenchmarkKeystroke types queries into the search a key at a time, as
// tape ui runs them (the pause in typing, the search, the screen drawn),
// and reports the time from each key to the screen showing the hits of
// the text typed so far, at its median and 95th percentile; beside it,
// the baseline: each of those searches alone, on the same index, as the
// read layer answers it (search/key):
//
//	TAPE_UI_BENCH_DIR=/tmp/u10k go test ./tui -run '^$' -bench Keystroke -count 6
func BenchmarkKeystroke(b *testing.B) {
	x := benchIndex(b)
	queries := []string{"build failed", "构建失败", "timeout config", "网络请求", "goroutine leak", "deploy"}
	var took []time.Duration
	for b.Loop() {
		d := benchModel(b, x)
		d.m.Update(keyPress("/"))
		for _, q := range queries {
			for _, r := range q {
				start := time.Now()
				d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
				if d.m.search.shown != d.m.search.input.Value() {
					b.Fatalf("after typing %q the screen shows the hits of %q", d.m.search.input.Value(), d.m.search.shown)
				}
				_ = d.m.draw()
				took = append(took, time.Since(start))
			}
			d.m.search.input.SetValue("")
		}
	}
	reportPercentiles(b, took, "key")
	var alone []time.Duration
	for _, q := range queries {
		for i := range len([]rune(q)) {
			start := time.Now()
			if _, err := x.Search(context.Background(), projector.SearchQuery{Text: string([]rune(q)[:i+1]), Limit: searchPage, Relax: true}); err != nil {
				b.Fatal(err)
			}
			alone = append(alone, time.Since(start))
		}
	}
	reportPercentiles(b, alone, "search")
}

// BenchmarkFirstScreen is the time from nothing to the sessions list
// drawn: the sessions read from the index, sorted, and the screen drawn
// (the process's start is tape-bench ui's, and BENCHMARKS.md's).
//
//	TAPE_UI_BENCH_DIR=/tmp/u10k go test ./tui -run '^$' -bench FirstScreen -count 6
func BenchmarkFirstScreen(b *testing.B) {
	x := benchIndex(b)
	for b.Loop() {
		d := benchModel(b, x)
		if s := d.m.draw(); !strings.Contains(s, " sessions") || len(d.m.list.all) == 0 {
			b.Fatalf("the first screen shows no session:\n%s", s)
		}
	}
}

// reportPercentiles reports the median and the 95th percentile of took,
// in milliseconds per unit.
func reportPercentiles(b *testing.B, took []time.Duration, unit string) {
	slices.Sort(took)
	at := func(p float64) float64 { return float64(took[int(p*float64(len(took)-1))]) / 1e6 }
	b.ReportMetric(at(0.5), "ms-p50/"+unit)
	b.ReportMetric(at(0.95), "ms-p95/"+unit)
	b.ReportMetric(0, "ns/op")
}

// BenchmarkOpenSession opens the workspace's longest session as enter
// does (its entries read, the chat built, its lines laid out at 200
// columns), then toggles a fold, and reports both:
//
//	TAPE_UI_BENCH_DIR=/tmp/c10k go test ./tui -run '^$' -bench OpenSession -count 6
func BenchmarkOpenSession(b *testing.B) {
	x := benchIndex(b)
	all, _, err := x.Sessions(context.Background(), 0)
	if err != nil || len(all) == 0 {
		b.Fatalf("no session to open: %v", err)
	}
	longest := slices.MaxFunc(all, func(a, c sessions.Session) int { return a.Entries - c.Entries })
	th := newTheme(true)
	var opened, toggled []time.Duration
	for b.Loop() {
		start := time.Now()
		got, err := x.Entries(context.Background(), longest.Name, 0, 0)
		if err != nil {
			b.Fatal(err)
		}
		s := newSession(longest, "")
		s.chat.add(got.Entries)
		s.anchors, s.loaded = got.Tape, true
		s.layout(200, th)
		opened = append(opened, time.Since(start))
		blk := s.chat.blocks[len(s.chat.blocks)/2]
		start = time.Now()
		blk.folded, blk.linesAt = !blk.folded, 0
		s.relayout()
		s.layout(200, th)
		toggled = append(toggled, time.Since(start))
	}
	b.ReportMetric(float64(longest.Entries), "entries")
	reportPercentiles(b, opened, "open")
	slices.Sort(toggled)
	b.ReportMetric(float64(toggled[len(toggled)/2])/1e6, "ms-p50/toggle")
}
