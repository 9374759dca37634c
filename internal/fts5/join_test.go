package fts5

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/internal/searchlang"
	"github.com/tape-dev/tape/internal/sqlitefile"
	"github.com/tape-dev/tape/testkit/short"
)

// ftsIndexDB opens a database of its own with the search table, on one
// connection.
func ftsIndexDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db := openDB(sqlitefile.URI(path))
	t.Cleanup(func() { db.Close() })
	return db
}

// tokenized is text as package projector writes an entry's search text
// to entries_fts: its tokens, and the parts of its identifiers.
func tokenized(text string) (tokens, parts string) {
	return searchlang.Tokenize(text), searchlang.IdentifierParts(text)
}

// ftsOp is one write to a search index.
type ftsOp struct {
	rowid int64
	text  string
	del   bool
}

// ftsOps makes n inserts in rowid order from start, with removals of
// earlier rows among them, some of the newest row, whose rowid is then
// used again, as SQLite does.
func ftsOps(r *rand.Rand, start int64, n int, live map[int64]bool) []ftsOp {
	words := func() string {
		var b strings.Builder
		for range 3 + r.IntN(30) {
			// A few common words, many rare ones, some Chinese bigrams,
			// some camelCase names (for the parts column).
			switch x := r.IntN(10); {
			case x < 4:
				fmt.Fprintf(&b, "w%d ", r.IntN(20))
			case x < 5:
				fmt.Fprintf(&b, "newHandler%c ", 'a'+r.IntN(5))
			case x < 9:
				fmt.Fprintf(&b, "r%d ", r.IntN(3000))
			default:
				b.WriteString("错误 误请 ")
			}
		}
		return b.String()
	}
	var ops []ftsOp
	next := start
	for range n {
		if r.IntN(20) == 0 && len(live) > 0 { // remove an earlier row
			ids := liveIDs(live)
			id := ids[r.IntN(len(ids))]
			ops = append(ops, ftsOp{rowid: id, del: true})
			delete(live, id)
		}
		if r.IntN(50) == 0 && live[next-1] { // remove the newest row: its rowid comes back
			next--
			ops = append(ops, ftsOp{rowid: next, del: true})
			delete(live, next)
		}
		ops = append(ops, ftsOp{rowid: next, text: words()})
		live[next] = true
		next++
	}
	return ops
}

// liveIDs is the rows of live in rowid order: drawn from by a seeded
// source, they make the same ops every run (ranging over the map made
// other ones each time, and a failure that came one run in three).
func liveIDs(live map[int64]bool) []int64 {
	ids := slices.Collect(maps.Keys(live))
	slices.Sort(ids)
	return ids
}

// removeSome adds to ops the removal of about one live row in ten.
func removeSome(r *rand.Rand, ops []ftsOp, live map[int64]bool) []ftsOp {
	for _, id := range liveIDs(live) {
		if r.IntN(10) == 0 {
			ops = append(ops, ftsOp{rowid: id, del: true})
			delete(live, id)
		}
	}
	return ops
}

// applyInPlace writes ops to db's entries_fts in one transaction.
func applyInPlace(t *testing.T, db *sql.DB, ops []ftsOp) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, o := range ops {
		if o.del {
			_, err = tx.Exec(`DELETE FROM entries_fts WHERE rowid = ?`, o.rowid)
		} else {
			text, parts := tokenized(o.text)
			_, err = tx.Exec(`INSERT INTO entries_fts (rowid, text, parts) VALUES (?, ?, ?)`, o.rowid, text, parts)
		}
		if err != nil {
			t.Fatalf("op %+v: %v", o, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// ftsSnapshot is what a search index answers: FTS5's check of its
// structures, every instance of every term (fts5vocab), the documents
// and their sizes, and bm25 ranks, which depend on the index's totals.
func ftsSnapshot(t *testing.T, db *sql.DB) string {
	t.Helper()
	if _, err := db.Exec(`INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 0)`); err != nil {
		t.Fatalf("FTS5 integrity-check: %v", err)
	}
	if _, err := db.Exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, entries_fts, instance)`); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	hash := func(label, q string, args ...any) {
		rows, err := db.Query(q, args...)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		h, n := sha256.New(), 0
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(h, "%v\n", vals)
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		fmt.Fprintf(&b, "%s: %d rows, %x\n", label, n, h.Sum(nil)[:8])
	}
	hash("instances", `SELECT term, doc, col, offset FROM temp.vocab ORDER BY term, doc, offset`)
	hash("documents", `SELECT id, sz FROM entries_fts_docsize ORDER BY id`)
	for _, w := range []string{"w1", "w7", "r5", "r2999", "错误", "w3 r17", `"w1 w2"`} {
		hash("ranked "+w, `SELECT rowid, round(bm25(entries_fts), 9) FROM entries_fts WHERE entries_fts MATCH ? ORDER BY bm25(entries_fts), rowid`, w)
	}
	return b.String()
}

// An index built in parts and joined is the index built in place, and
// goes on being the same under more inserts, removals (of rows of every
// part: each found through its origin) and a merge of all its segments.
func TestJoinedBuildEqualsInPlace(t *testing.T) {
	t.Parallel() // long, on a workspace of its own (0074)
	type join struct {
		parts int
		block int64
		hash  int // builders' hashsize: small makes many segments, and merges
		n     int
	}
	joins := []join{
		{parts: 1, block: 1, hash: 64 << 10, n: short.Sized(1500, 100)},
		{parts: 2, block: 1, n: short.Sized(1500, 100)},
		{parts: 2, block: 1, hash: 32 << 10, n: short.Sized(3000, 200)},
		{parts: 2, block: 64, hash: 16 << 10, n: short.Sized(3000, 200)},
		{parts: 3, block: 5, hash: 16 << 10, n: short.Sized(3000, 200)},
	}
	if testing.Short() { // the race detector's pass: a join of one, two and three parts
		joins = []join{joins[0], joins[2], joins[4]}
	}
	for _, tc := range joins {
		t.Run(fmt.Sprintf("parts=%d,block=%d,hash=%d", tc.parts, tc.block, tc.hash), func(t *testing.T) {
			ctx := context.Background()
			r := rand.New(rand.NewPCG(uint64(tc.parts), uint64(tc.block)))
			live := map[int64]bool{}
			ops := ftsOps(r, 1, tc.n, live)

			dir := t.TempDir()
			ref := ftsIndexDB(t, filepath.Join(dir, "ref.db"))
			if _, err := ref.Exec(Schema); err != nil {
				t.Fatal(err)
			}
			applyInPlace(t, ref, ops)

			build, err := NewBuild(t.TempDir(), tc.parts, tc.block)
			if err != nil {
				t.Fatal(err)
			}
			defer build.Close()
			build.SetHashSize(tc.hash)
			applyToBuild(t, build, ops)
			if built, err := build.Finish(ctx); err != nil || !built {
				t.Fatalf("finish: built %v, %v", built, err)
			}
			segments := joinTo(t, build, filepath.Join(dir, "joined.db"))
			if segments != tc.parts { // each part merged whole
				t.Fatalf("joined index has %d segments, want %d", segments, tc.parts)
			}

			joined := ftsIndexDB(t, filepath.Join(dir, "joined.db"))
			want, got := ftsSnapshot(t, ref), ftsSnapshot(t, joined)
			if got != want {
				t.Fatalf("joined:\n%s\nbuilt in place:\n%s", got, want)
			}
			more := removeSome(r, ftsOps(r, int64(tc.n)*2, short.Sized(500, 100), live), live) // rows of every part
			for _, db := range []*sql.DB{ref, joined} {
				applyInPlace(t, db, more)
			}
			if want, got = ftsSnapshot(t, ref), ftsSnapshot(t, joined); got != want {
				t.Fatalf("after more writes, joined:\n%s\nbuilt in place:\n%s", got, want)
			}
			for _, db := range []*sql.DB{ref, joined} {
				if _, err := db.Exec(`INSERT INTO entries_fts (entries_fts) VALUES ('optimize')`); err != nil {
					t.Fatal(err)
				}
			}
			if want, got = ftsSnapshot(t, ref), ftsSnapshot(t, joined); got != want {
				t.Fatalf("after optimize, joined:\n%s\nbuilt in place:\n%s", got, want)
			}
		})
	}
}

// A joined index takes the inserts and removals of later catch-ups as
// one built in place does, whatever levels its parts' segments were
// merged to. Two parts of 500 rows, built from many seeds: about one seed
// in three merged the first part to a shallower level than the second,
// and until the parts' origins were numbered deepest first, removing
// rows after more inserts left rows that searches found with nothing
// behind them ("database disk image is malformed").
func TestJoinedIndexTakesDeletes(t *testing.T) {
	t.Parallel() // long, on a workspace of its own (0074)
	ctx := context.Background()
	crossed := 0                        // seeds whose first part sat shallower than the second
	for seed := range short.Seeds(40) { // under -short, four: seed 2 crosses
		r := rand.New(rand.NewPCG(seed, 1))
		live := map[int64]bool{}
		ops := ftsOps(r, 1, 500, live) // 200 rows a part never crossed
		dir := t.TempDir()
		ref := ftsIndexDB(t, filepath.Join(dir, "ref.db"))
		if _, err := ref.Exec(Schema); err != nil {
			t.Fatal(err)
		}
		applyInPlace(t, ref, ops)
		build, err := NewBuild(t.TempDir(), 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range build.parts {
			p.merge = 16 // FTS5's default: the parts' levels differ in small builds
		}
		applyToBuild(t, build, ops)
		if built, err := build.Finish(ctx); err != nil || !built {
			t.Fatalf("seed %d: finish: built %v, %v", seed, built, err)
		}
		if build.parts[0].deepestLevel(t) < build.parts[1].deepestLevel(t) {
			crossed++
		}
		joinTo(t, build, filepath.Join(dir, "joined.db"))
		build.Close()
		joined := ftsIndexDB(t, filepath.Join(dir, "joined.db"))
		more := removeSome(r, ftsOps(r, 1000, short.Sized(500, 200), live), live)
		for _, db := range []*sql.DB{ref, joined} {
			applyInPlace(t, db, more)
		}
		if want, got := ftsSnapshot(t, ref), ftsSnapshot(t, joined); got != want {
			t.Fatalf("seed %d: after inserts and removals, joined:\n%s\nbuilt in place:\n%s", seed, got, want)
		}
	}
	if crossed == 0 {
		t.Errorf("no seed merged its first part shallower than its second: the case this test is for was not tried")
	}
}

// deepestLevel is the deepest level of a finished part's index.
func (p *part) deepestLevel(t *testing.T) int {
	t.Helper()
	var rec []byte
	if err := p.db.QueryRow(`SELECT block FROM entries_fts_data WHERE id = ?`, StructureRowid).Scan(&rec); err != nil {
		t.Fatal(err)
	}
	s, err := DecodeStructure(rec)
	if err != nil {
		t.Fatal(err)
	}
	return s.Deepest()
}

// applyToBuild sends ops to a build beside, as a pass does.
func applyToBuild(t *testing.T, build *Build, ops []ftsOp) {
	t.Helper()
	ctx := context.Background()
	for _, o := range ops {
		var err error
		if o.del {
			err = build.Remove(ctx, []int64{o.rowid})
		} else {
			text, parts := tokenized(o.text)
			err = build.Add(ctx, o.rowid, text, parts)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// joinTo copies a finished build into a new database at path, as a pass
// does, on a connection closed after, and returns its segment count.
func joinTo(t *testing.T, build *Build, path string) int {
	t.Helper()
	ctx := context.Background()
	db := openDB(sqlitefile.URI(path))
	defer db.Close()
	if _, err := db.Exec(Schema); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := build.Attach(ctx, conn); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := build.CopyInto(ctx, tx); err != nil {
		t.Fatal(err)
	}
	var rec []byte
	if err := tx.QueryRow(`SELECT block FROM main.entries_fts_data WHERE id = ?`, StructureRowid).Scan(&rec); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	s, err := DecodeStructure(rec)
	if err != nil {
		t.Fatal(err)
	}
	return s.Segments()
}

// The structure records FTS5 writes decode, and encode to the same bytes.
func TestStructureRoundTrip(t *testing.T) {
	db := ftsIndexDB(t, filepath.Join(t.TempDir(), "s.db"))
	for _, q := range []string{Schema,
		`INSERT INTO entries_fts (entries_fts, rank) VALUES ('hashsize', 8192)`,
		`INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', 0)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	ops := ftsOps(r, 1, 2000, map[int64]bool{})
	levels := 0
	for i := 0; i < len(ops); i += 100 { // a record after each transaction
		applyInPlace(t, db, ops[i:min(i+100, len(ops))])
		var rec []byte
		if err := db.QueryRow(`SELECT block FROM entries_fts_data WHERE id = ?`, StructureRowid).Scan(&rec); err != nil {
			t.Fatal(err)
		}
		s, err := DecodeStructure(rec)
		if err != nil {
			t.Fatalf("decode % x: %v", rec, err)
		}
		if !s.IsV2() {
			t.Fatal("a contentless_delete table's structure record is not V2")
		}
		if got := s.Encode(); !bytes.Equal(got, rec) {
			t.Fatalf("encode(decode(% x)) = % x", rec, got)
		}
		levels = max(levels, s.Levels())
	}
	if levels < 2 {
		t.Fatalf("the records had at most %d levels: the test does not cover crisis merges", levels)
	}
}

// A part whose last rows have no tokens gives them the origin its next
// segment would have had: the join moves the next part's origins beyond
// them, so that no row falls in a segment of another part (FTS5 counts a
// row's delete as a tombstone of the segments its origin falls in).
func TestJoinPastRowsWithoutTokens(t *testing.T) {
	ctx := context.Background()
	var ops []ftsOp
	for id := int64(1); id <= 5; id++ { // part 0 (block 10): words, a delete that flushes them, empty rows
		ops = append(ops, ftsOp{rowid: id, text: fmt.Sprintf("alpha w%d", id)})
	}
	ops = append(ops, ftsOp{rowid: 3, del: true})
	for id := int64(6); id <= 9; id++ {
		ops = append(ops, ftsOp{rowid: id, text: ""})
	}
	for id := int64(10); id <= 19; id++ { // part 1
		ops = append(ops, ftsOp{rowid: id, text: fmt.Sprintf("beta w%d", id)})
	}
	build, err := NewBuild(t.TempDir(), 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer build.Close()
	applyToBuild(t, build, ops)
	if _, err := build.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "joined.db")
	joinTo(t, build, path)
	db := ftsIndexDB(t, path)
	var rec []byte
	if err := db.QueryRow(`SELECT block FROM entries_fts_data WHERE id = ?`, StructureRowid).Scan(&rec); err != nil {
		t.Fatal(err)
	}
	s, err := DecodeStructure(rec)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT id, origin FROM entries_fts_docsize`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var origin uint64
		if err := rows.Scan(&id, &origin); err != nil {
			t.Fatal(err)
		}
		for _, g := range s.Ranges() {
			ownPart := (g.Origin1 > 1) == (id >= 10) // part 0's one segment starts at origin 1
			if !ownPart && origin >= g.Origin1 && origin <= g.Origin2 {
				t.Errorf("row %d (origin %d) falls in segment %d of the other part (origins %d-%d)", id, origin, g.ID, g.Origin1, g.Origin2)
			}
		}
	}
}
