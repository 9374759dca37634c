package projector

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tape-dev/tape/internal/fts5"
	"github.com/tape-dev/tape/internal/searchlang"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
	"github.com/tape-dev/tape/testkit/short"
)

// corpusWorkspace is a workspace with n generated entries over two tapes,
// large enough that FTS5 flushes and merges segments.
func corpusWorkspace(t *testing.T, n int) *tapelog.Workspace {
	t.Helper()
	dir := t.TempDir() + "/.tape"
	if _, err := corpus.Generate(dir, corpus.Options{Entries: n, PerAnchor: 200, Tapes: 2, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	ws, err := tapelog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// rankedDump is dump plus what the search index alone decides: bm25 ranks
// of common and rare words, and FTS5's own check of its structures.
func rankedDump(t *testing.T, p *Projector, words []string) string {
	t.Helper()
	if _, err := p.DB().Exec(`INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 0)`); err != nil {
		t.Fatalf("FTS5 integrity-check: %v", err)
	}
	var b strings.Builder
	b.WriteString(dump(t, p, words))
	for _, w := range words {
		fmt.Fprintf(&b, "ranked %s:\n", w)
		expr, _ := searchlang.MatchExpr(w)
		dumpQuery(t, p, &b, `SELECT e.tape, e.id, round(bm25(entries_fts), 9) FROM entries_fts f JOIN entries e ON e.rowid = f.rowid
			WHERE entries_fts MATCH ? ORDER BY bm25(entries_fts), e.tape, e.id LIMIT 50`, expr)
	}
	return b.String()
}

var corpusWords = []string{"error", "file", "the", "错误", corpus.RareWord(1000), corpus.RareWord(3000), "zzznothing"}

// A search index built beside and copied in is the index built in place,
// whether built in one part or joined from several.
func TestBuildBesideEqualsBuildInPlace(t *testing.T) {
	t.Parallel()                 // long, on a workspace of its own (0074)
	n := short.Sized(4000, 1001) // with the rare word of entry 3000, or of 1000 (corpusWords)
	ws := corpusWorkspace(t, n)
	p := openProjector(t, ws)
	p.noBuild = true
	if _, err := p.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	inPlace := rankedDump(t, p, corpusWords)
	if !strings.Contains(inPlace, "ranked "+corpus.RareWord(short.Sized(3000, 1000))+":\nsession-") {
		t.Fatalf("the rare word is not found:\n%.2000s", inPlace)
	}
	p.noBuild = false
	type build struct {
		parts int
		block int64
		hash  int
	}
	builds := []build{
		{}, // the defaults
		{parts: 1, block: 1},
		{parts: 2, block: 1, hash: 32 << 10},
		{parts: 3, block: 7, hash: 16 << 10},
	}
	if testing.Short() { // the race detector's pass: one build, in three parts
		builds = builds[3:]
	}
	for _, tc := range builds {
		p.buildParts, p.buildBlock, p.buildHash = tc.parts, tc.block, tc.hash
		if _, err := p.Rebuild(context.Background()); err != nil {
			t.Fatal(err)
		}
		if beside := rankedDump(t, p, corpusWords); beside != inPlace {
			t.Fatalf("built beside in %+v:\n%.3000s\nbuilt in place:\n%.3000s", tc, beside, inPlace)
		}
	}
}

// The connection that searched and wrote the index before a rebuild copied
// a new one in goes on writing it correctly: FTS5 caches the structure of
// an index per connection, and a stale one would lose or corrupt segments.
func TestCatchUpAfterBuildBeside(t *testing.T) {
	t.Parallel() // long, on a workspace of its own (0074)
	ws := corpusWorkspace(t, short.Sized(3000, 500))
	p := openProjector(t, ws)
	catchUp(t, p) // from empty: built beside
	for round := range short.Sized(3, 2) {
		if _, err := p.Search(context.Background(), SearchQuery{Text: "error"}); err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			appendMsg(t, ws, "main", fmt.Sprintf("round%d word%d after the rebuild", round, i))
		}
		catchUp(t, p) // in place, on the connection that searched
		if _, err := p.Rebuild(context.Background()); err != nil {
			t.Fatal(err)
		}
		appendMsg(t, ws, "main", fmt.Sprintf("round%d last", round))
		catchUp(t, p)
	}
	words := append([]string{"round0", "round1", "word49", "last"}, corpusWords...)
	want := rebuilt(t, ws, func(p *Projector) string { return rankedDump(t, p, words) })
	if got := rankedDump(t, p, words); got != want {
		t.Fatalf("after rebuilds and catch-ups:\n%.3000s\nrebuilt:\n%.3000s", got, want)
	}
}

// The scratch files are private while they exist, and gone after the
// pass; those a killed pass left, even ones that are not databases, and
// of a build in more parts than this one, are replaced or removed.
func TestBuildScratchFile(t *testing.T) {
	t.Parallel()
	n := short.Sized(500, 250) // smaller in the race pass (0074)
	ws := corpusWorkspace(t, n)
	var paths []string
	for k := range fts5.MaxParts {
		paths = append(paths, ws.Abs(fts5.BuildFile(k)))
		if err := os.WriteFile(paths[k], []byte("left by a killed pass"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := openProjector(t, ws)
	p.buildParts, p.buildBlock = 2, 1
	modes := map[string][]os.FileMode{}
	p.OnProgress = func(Stats) {
		for _, path := range paths {
			if fi, err := os.Stat(path); err == nil {
				modes[path] = append(modes[path], fi.Mode().Perm())
			}
		}
	}
	st, err := p.Rebuild(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries < n {
		t.Fatalf("rebuild indexed %d entries, want at least %d", st.Entries, n)
	}
	for k, path := range paths {
		if k < 2 && len(modes[path]) == 0 {
			t.Fatalf("no scratch file %s while the rebuild ran", path)
		}
		if k >= 2 && len(modes[path]) > 0 {
			t.Fatalf("scratch file %s of a killed pass stayed while the rebuild ran", path)
		}
		for _, m := range modes[path] {
			if m != 0o600 {
				t.Fatalf("scratch file %s mode %v, want 0600", path, m)
			}
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("scratch file %s after the pass: %v", path, err)
		}
	}
}

// A catch-up of an index that has entries, which builds nothing beside,
// still removes the scratch files a killed pass left: they hold the tapes'
// words.
func TestCatchUpRemovesScratchFiles(t *testing.T) {
	t.Parallel()
	ws := corpusWorkspace(t, 100)
	p := openProjector(t, ws)
	catchUp(t, p)
	// Settled, with a state record, so that a catch-up would find nothing
	// to do and need no pass: it must still make one to remove them.
	settleWithRecord(t, ws, p)
	for k := range fts5.MaxParts {
		if err := os.WriteFile(ws.Abs(fts5.BuildFile(k)), []byte("left by a killed pass"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	catchUp(t, p)
	for k := range fts5.MaxParts {
		if _, err := os.Stat(ws.Abs(fts5.BuildFile(k))); !os.IsNotExist(err) {
			t.Errorf("scratch file %s after a catch-up: %v", fts5.BuildFile(k), err)
		}
	}
}

// A pass whose build cannot be joined (a structure record this version
// cannot read) runs again and builds in place, instead of failing every
// pass.
func TestBuildThatCannotBeJoinedBuildsInPlace(t *testing.T) {
	t.Parallel()               // long, on a workspace of its own (0074)
	n := short.Sized(500, 250) // smaller in the race pass (0074)
	ws := corpusWorkspace(t, n)
	p := openProjector(t, ws)
	p.buildParts, p.buildBlock = 2, 1
	copies := 0
	p.beforeCopy = func(ctx context.Context, tx sqlTx) error {
		copies++
		_, err := tx.ExecContext(ctx, `UPDATE build1.entries_fts_data SET block = x'ff00' WHERE id = ?`, fts5.StructureRowid)
		return err
	}
	st, err := p.Rebuild(context.Background())
	if err != nil {
		t.Fatalf("rebuild with a build that cannot be joined: %v", err)
	}
	if copies != 1 || st.Entries < n {
		t.Fatalf("rebuild: %d copies tried, %d entries; want one, and every entry", copies, st.Entries)
	}
	got := rankedDump(t, p, corpusWords)
	p.noBuild, p.beforeCopy = true, nil
	if _, err := p.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := rankedDump(t, p, corpusWords); got != want {
		t.Fatalf("after the failed join:\n%.2000s\nin place:\n%.2000s", got, want)
	}
}

// A pass that cannot make its scratch file builds in place.
func TestBuildInPlaceWithoutScratch(t *testing.T) {
	t.Parallel()               // long, on a workspace of its own (0074)
	n := short.Sized(500, 250) // smaller in the race pass (0074)
	ws := corpusWorkspace(t, n)
	if err := os.MkdirAll(ws.Abs(fts5.BuildFile(0))+"/in-the-way", 0o700); err != nil {
		t.Fatal(err)
	}
	p := openProjector(t, ws)
	st, err := p.Rebuild(context.Background())
	if err != nil {
		t.Fatalf("rebuild with a folder where the scratch file goes: %v", err)
	}
	if st.Entries < n {
		t.Fatalf("rebuild indexed %d entries, want at least %d", st.Entries, n)
	}
	sameAsBuiltInPlace(t, p, "built without a scratch file")
}

// sameAsBuiltInPlace fails unless p's index answers (rankedDump, with
// FTS5's integrity-check) as one rebuilt in place does.
func sameAsBuiltInPlace(t *testing.T, p *Projector, what string) {
	t.Helper()
	got := rankedDump(t, p, corpusWords)
	p.noBuild = true
	if _, err := p.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := rankedDump(t, p, corpusWords); got != want {
		t.Fatalf("%s:\n%.2000s\nbuilt in place:\n%.2000s", what, got, want)
	}
}

// The builder's merge setting stays in the build: index.db keeps FTS5's
// defaults for the passes that write it in place.
func TestBuildLeavesDefaultConfig(t *testing.T) {
	t.Parallel()
	ws := corpusWorkspace(t, 300)
	p := openProjector(t, ws)
	if _, err := p.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	var keys []string
	rows, err := p.DB().Query(`SELECT k FROM entries_fts_config ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		rows.Scan(&k)
		keys = append(keys, k)
	}
	if strings.Join(keys, ",") != "version" {
		t.Fatalf("entries_fts_config keys after a rebuild: %v, want only version", keys)
	}
}
