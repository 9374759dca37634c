package projector

import (
	"context"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/benchcpu"
	"github.com/tape-dev/tape/testkit/corpus"
)

// benchCorpus is a workspace with n generated entries.
func benchCorpus(b *testing.B, n int) *tapelog.Workspace {
	b.Helper()
	dir := b.TempDir() + "/.tape"
	if _, err := corpus.Generate(dir, corpus.Options{Entries: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	ws, err := tapelog.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws
}

// BenchmarkRebuild measures a full rebuild of a 20,000-entry corpus, with
// the search index built beside (what Rebuild does) and, as the baseline,
// in place:
//
//	go test ./projector -run '^$' -bench Rebuild -count 6
func BenchmarkRebuild(b *testing.B) {
	ws := benchCorpus(b, benchEntries)
	for _, mode := range []struct {
		name    string
		noBuild bool
	}{{"beside", false}, {"in-place", true}} {
		b.Run(mode.name, func(b *testing.B) {
			p, err := Open(context.Background(), ws)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			p.noBuild = mode.noBuild
			var st Stats
			for b.Loop() {
				if st, err = p.Rebuild(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(st.Bytes)
			b.ReportMetric(float64(st.Entries)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// benchEntries is the corpus size of BenchmarkRebuild.
const benchEntries = 20000

// BenchmarkCatchUpNoChange measures a catch-up that finds nothing new, on a
// tape of 1,000 anchor folders, in process (tape-bench catchup measures the
// whole command):
//
//	go test ./projector -run '^$' -bench CatchUpNoChange -count 6
func BenchmarkCatchUpNoChange(b *testing.B) {
	p := thousandFolders(b, false)
	for b.Loop() {
		st, err := p.CatchUp(context.Background())
		if err != nil || st.FilesRead != 0 {
			b.Fatalf("no-change catch-up: %+v, %v", st, err)
		}
	}
}

// thousandFolders makes a workspace of one tape of 1,000 anchor folders of
// 10 entries each, its folders settled or not (see settler), and returns a
// Projector that caught up with it.
func thousandFolders(b *testing.B, settled bool) *Projector {
	b.Helper()
	dir := b.TempDir() + "/.tape"
	if _, err := corpus.Generate(dir, corpus.Options{Entries: 10000, PerAnchor: 10, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	ws, err := tapelog.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	if settled {
		var s settler
		s.settle(ws)
	}
	p, err := Open(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	if _, err := p.CatchUp(context.Background()); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkQuickCatchUp measures what a reader does before trusting the
// index when nothing changed, on a tape of 1,000 settled anchor folders:
// read the state record, then walk the files against it (dry):
//
//	go test ./projector -run '^$' -bench QuickCatchUp -count 6
func BenchmarkQuickCatchUp(b *testing.B) {
	p := thousandFolders(b, true)
	if _, err := p.CatchUp(context.Background()); err != nil { // finds nothing new, and writes the record
		b.Fatal(err)
	}
	ctx := context.Background()
	if p.ReadStateRecord(ctx) == nil {
		b.Fatal("no state record")
	}
	b.Run("record", func(b *testing.B) {
		for b.Loop() {
			if p.ReadStateRecord(ctx) == nil {
				b.Fatal("no state record")
			}
		}
	})
	b.Run("walk", func(b *testing.B) {
		rec := p.ReadStateRecord(ctx)
		for b.Loop() {
			if _, same := p.unchangedFrom(ctx, rec); !same {
				b.Fatal("the files changed")
			}
		}
	})
}

// BenchmarkSearch measures Search in process over a 20,000-entry corpus:
// the query, reading each hit's line and cutting its snippet, for a rare
// word, a common one and a phrase (tape-bench search measures the whole
// command at 1M entries):
//
//	go test ./projector -run '^$' -bench 'Search$' -count 6
func BenchmarkSearch(b *testing.B) {
	ws := benchCorpus(b, benchEntries)
	p, err := Open(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	if _, err := p.CatchUp(context.Background()); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{corpus.RareWord(1234), "deadline", `"database transaction"`} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				hits, err := p.Search(context.Background(), SearchQuery{Text: q, Limit: 20})
				if err != nil || len(hits) == 0 {
					b.Fatalf("search %s: %d hits, %v", q, len(hits), err)
				}
			}
		})
	}
}

// manyTapes makes a workspace in the users' shape: n small tapes of one
// anchor folder each (35 entries in 3 files, as `tape-bench gen -tapes`
// makes them), settled, so that a no-change catch-up can trust every
// listing, as it can a few seconds after the last write.
func manyTapes(b *testing.B, n int) *tapelog.Workspace {
	b.Helper()
	dir := b.TempDir() + "/.tape"
	if _, err := corpus.Generate(dir, corpus.Options{Entries: 35 * n, Tapes: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	ws, err := tapelog.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	var s settler
	s.settle(ws)
	return ws
}

// manyTapesCount is the tapes of the many-tapes benchmarks: a tenth of the
// 10,000 of issue 18, to keep a rebuild within a few seconds.
const manyTapesCount = 1000

// BenchmarkRebuildManyTapes measures a full rebuild of 1,000 tapes of one
// folder each (35,000 entries), where per-tape and per-folder costs show
// (tape-bench rebuild measures the whole command at 10,000):
//
//	go test ./projector -run '^$' -bench RebuildManyTapes -count 6
func BenchmarkRebuildManyTapes(b *testing.B) {
	ws := manyTapes(b, manyTapesCount)
	p, err := Open(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var st Stats
	cpu := benchcpu.Start()
	for b.Loop() {
		if st, err = p.Rebuild(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Entries)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	cpu.Report(b)
}

// BenchmarkWalkManyTapes measures the walk of a rebuild of 1,000 tapes of
// one folder each alone: listing the tapes and their folders, stat'ing,
// opening, reading and parsing their files, with the ops it sends
// dropped. It shows the walker's costs per tape, folder and file, which
// in BenchmarkRebuildManyTapes run beside SQLite's:
//
//	go test ./projector -run '^$' -bench WalkManyTapes -count 6
func BenchmarkWalkManyTapes(b *testing.B) {
	ws := manyTapes(b, manyTapesCount)
	ctx := context.Background()
	cpu := benchcpu.Start()
	for b.Loop() {
		ops := make(chan op, 64)
		drained := make(chan int)
		go func() {
			n := 0
			for o := range ops {
				n += len(o.entries)
			}
			drained <- n
		}()
		st := state{tapes: map[string]bool{}, folders: map[fileKey]folderMark{}, files: map[fileKey]checkpoint{},
			unreadable: map[fileKey]string{}, tapeListings: map[string]tapeListing{}}
		st.index()
		var stats Stats
		w := &walker{ws: ws, st: st, out: ops, stats: &stats}
		err := w.walk(ctx)
		close(ops)
		if n := <-drained; err != nil || n != 35*manyTapesCount {
			b.Fatalf("walk: %d entries, %v", n, err)
		}
	}
	cpu.Report(b)
}

// BenchmarkCatchUpManyTapes measures a catch-up that finds nothing new on
// 1,000 tapes of one folder each, in process: "record" is what every read
// command does without a watcher (read the state record, walk the files
// against it); "pass" is the pass under the lock that loads the rows, as
// when there is no record:
//
//	go test ./projector -run '^$' -bench CatchUpManyTapes -count 6
func BenchmarkCatchUpManyTapes(b *testing.B) {
	ws := manyTapes(b, manyTapesCount)
	p, err := Open(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	for range 2 { // the second finds nothing new, and writes the record
		if _, err := p.CatchUp(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("record", func(b *testing.B) {
		cpu := benchcpu.Start()
		for b.Loop() {
			st, err := p.CatchUp(ctx)
			if err != nil || st.ops != 0 || st.Folders != manyTapesCount {
				b.Fatalf("no-change catch-up: %+v, %v", st, err)
			}
		}
		cpu.Report(b)
	})
	b.Run("pass", func(b *testing.B) {
		cpu := benchcpu.Start()
		defer cpu.Report(b)
		for b.Loop() {
			var st Stats
			err := p.withLock(ctx, LockWait, func() error { return p.passLocked(ctx, false, nil, &st) })
			if err != nil || st.ops != 0 || st.FilesRead != 0 {
				b.Fatalf("no-change pass: %+v, %v", st, err)
			}
		}
	})
}
