package projector

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/short"
	"github.com/tape-dev/tape/testkit/tapetest"
	"github.com/tape-dev/tape/views/recency"
)

var vocabulary = tapetest.Vocabulary

// TestIncrementalEqualsRebuild is the projector's main property: after any
// sequence of changes to the files, with catch-ups at random points, the
// incremental index answers exactly as a full rebuild of the same files.
func TestIncrementalEqualsRebuild(t *testing.T) {
	t.Parallel() // long, on a workspace of its own (0074)
	for seed := range short.Seeds(25) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			ws := newWorkspace(t)
			p := openProjector(t, ws)
			p.foldChunk = 1 + int(seed%3)     // folds that span chunks; the rebuild it is compared with reads 4096 at a time
			p.checkpointsAt = 1 + int(seed%2) // the first build writes its checkpoints folder by folder
			p.recency.Bits = 1 + int(seed%3)  // blocks of 2 to 8 rowids, which changes empty
			m := &tapetest.Mutator{T: t, R: rand.New(rand.NewPCG(seed, 7)), WS: ws}
			for step := range 80 {
				before := len(m.Log)
				m.Step()
				if (len(m.Log) > before && m.Log[len(m.Log)-1] == "catch-up") || step%9 == 0 {
					catchUp(t, p)
				}
			}
			catchUp(t, p)
			recencyIsTheEntries(t, p)
			got, want := everything(t, p, vocabulary, nil), rebuiltEverything(t, ws, vocabulary, nil)
			if got != want {
				t.Fatalf("after %v\nincremental:\n%s\nrebuild:\n%s", m.Log, got, want)
			}
			if got, want := indexedIDs(t, p), readIDs(t, ws); got != want {
				t.Fatalf("after %v\nindexed:\n%s\nin the files:\n%s", m.Log, got, want)
			}
		})
	}
}

// The same property when folders look settled: after every change, the
// folders changed in the last minute get a distinct time an hour ago, so
// later catch-ups trust their listings and skip unchanged folders, the
// paths a test run within the 2 s racy window never takes otherwise.
func TestIncrementalEqualsRebuildOnSettledFolders(t *testing.T) {
	t.Parallel() // long, on a workspace of its own (0074)
	var listed, visited int
	for seed := range short.Seeds(25) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			ws := newWorkspace(t)
			p := openProjector(t, ws)
			m := &tapetest.Mutator{T: t, R: rand.New(rand.NewPCG(seed, 11)), WS: ws}
			var s settler
			settle := func() { s.settle(ws) }
			for step := range 80 {
				before := len(m.Log)
				m.Step()
				settle()
				if (len(m.Log) > before && m.Log[len(m.Log)-1] == "catch-up") || step%9 == 0 {
					st := catchUp(t, p)
					listed += st.Listed
					visited += len(m.Folders())
				}
			}
			catchUp(t, p)
			if got, want := everything(t, p, vocabulary, nil), rebuiltEverything(t, ws, vocabulary, nil); got != want {
				t.Fatalf("after %v\nincremental:\n%s\nrebuild:\n%s", m.Log, got, want)
			}
		})
	}
	if listed*2 > visited {
		t.Errorf("listed %d folders of %d visited; the settled-folder path was hardly taken", listed, visited)
	}
}

// The same property on a workspace of many small tapes, the shape of
// issue 18: more tapes than the scan holds ahead of the walk (tapeChunk,
// scanAhead), one of them with more folders than the scan stats itself
// (prefetchChunk), settled, so that catch-ups take the tapes' kept
// listings and stat through the tapes folder, and walks that find a
// change stop with chunks scanned and not walked.
func TestIncrementalEqualsRebuildAcrossTapeChunks(t *testing.T) {
	t.Parallel() // long, on a workspace of its own (0074)
	ctx := context.Background()
	tapes := tapeChunk*(scanAhead+1) + 3
	for seed := range short.Seeds(4) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			ws := newWorkspace(t)
			for i := range tapes {
				appendMsgs(t, ws, fmt.Sprintf("t%03d", i), []string{vocabulary[i%len(vocabulary)]})
			}
			big, err := ws.Tape("t000")
			if err != nil {
				t.Fatal(err)
			}
			for i := range prefetchChunk + 2 {
				if _, err := big.Handoff(ctx, fmt.Sprintf("step %d", i), nil); err != nil {
					t.Fatal(err)
				}
				appendMsgs(t, ws, "t000", []string{vocabulary[i%len(vocabulary)]})
			}
			big.Close()
			p := openProjector(t, ws)
			m := &tapetest.Mutator{T: t, R: rand.New(rand.NewPCG(seed, 13)), WS: ws}
			var s settler
			s.settle(ws)
			catchUp(t, p)
			for step := range 40 {
				before := len(m.Log)
				m.Step()
				s.settle(ws)
				if (len(m.Log) > before && m.Log[len(m.Log)-1] == "catch-up") || step%5 == 0 {
					catchUp(t, p)
				}
			}
			catchUp(t, p)
			if got, want := dump(t, p, vocabulary), rebuiltDump(t, ws, vocabulary); got != want {
				t.Fatalf("after %v\nincremental:\n%s\nrebuild:\n%s", m.Log, got, want)
			}
			if got, want := indexedIDs(t, p), readIDs(t, ws); got != want {
				t.Fatalf("after %v\nindexed:\n%s\nin the files:\n%s", m.Log, got, want)
			}
		})
	}
}

// indexedIDs lists the tape and id of every entry of the index, sorted.
func indexedIDs(t *testing.T, p *Projector) string {
	t.Helper()
	rows, err := p.db.Query(`SELECT tape || ' ' || id FROM entries ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return strings.Join(ids, "\n")
}

// readIDs lists the tape and id of every entry the log package reads from
// the files, sorted as indexedIDs.
func readIDs(t *testing.T, ws *tapelog.Workspace) string {
	t.Helper()
	names, err := ws.Tapes()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, name := range names {
		tp, err := ws.Tape(name)
		if err != nil {
			t.Fatal(err)
		}
		for e, err := range tp.All(context.Background()) {
			if err == nil {
				ids = append(ids, name+" "+e.ID)
			}
		}
		tp.Close()
	}
	slices.Sort(ids)
	return strings.Join(ids, "\n")
}

// settler dates the anchor folders, and the tapes' anchors folders,
// changed in the last minute to distinct times an hour back, so that later
// catch-ups trust their listings (see racyWindow) and skip unchanged
// folders.
type settler struct{ tick int }

func (s *settler) settle(ws *tapelog.Workspace) {
	dirs, _ := filepath.Glob(filepath.Join(ws.Dir(), "tapes/*/anchors/*"))
	tapes, _ := filepath.Glob(filepath.Join(ws.Dir(), "tapes/*/anchors"))
	for _, d := range append(dirs, tapes...) {
		if fi, err := os.Stat(d); err == nil && time.Since(fi.ModTime()) < time.Minute {
			s.tick++
			old := time.Now().Add(-time.Hour).Add(time.Duration(s.tick) * time.Millisecond)
			os.Chtimes(d, old, old)
		}
	}
}

// recencyIsTheEntries fails unless the recency blocks are what the
// entries make of them (package recency): the latest time of each block
// of rowids, for the blocks that hold entries.
func recencyIsTheEntries(t *testing.T, p *Projector) {
	t.Helper()
	var got, want strings.Builder
	dumpQuery(t, p, &got, `SELECT block, coalesce(max_ns, '-') FROM recency_blocks ORDER BY block`)
	dumpQuery(t, p, &want, `SELECT rowid >> `+strconv.Itoa(cmp.Or(p.recency.Bits, recency.BlockBits))+`, coalesce(max(time_ns), '-') FROM entries GROUP BY 1 ORDER BY 1`)
	if got.String() != want.String() {
		t.Fatalf("recency blocks:\n%s\nwant, from the entries:\n%s", got.String(), want.String())
	}
}
