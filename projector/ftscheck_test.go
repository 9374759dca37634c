package projector

import (
	"context"
	"strings"
	"testing"

	"github.com/tape-dev/tape/internal/fts5"
	"github.com/tape-dev/tape/testkit/short"
)

// With the SQLite linked in, the check passes: a rebuild builds its search
// index beside, in parts, and joins them.
func TestFTSJoinCheckPasses(t *testing.T) {
	t.Parallel()
	if err := fts5.CheckJoin(context.Background(), nil); err != nil {
		t.Fatalf("the check of the FTS5 join fails with the SQLite linked in: %v", err)
	}
	ws := corpusWorkspace(t, 300)
	p := openProjector(t, ws)
	p.buildParts, p.buildBlock = 2, 1
	copies := 0
	p.beforeCopy = func(context.Context, sqlTx) error { copies++; return nil }
	st, err := p.Rebuild(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.SearchInPlace != "" || copies != 1 {
		t.Fatalf("rebuild: %d copies of a build beside, written in place because %q; want one copy, no reason", copies, st.SearchInPlace)
	}
}

// rewriteStructure changes the structure record of the part attached as
// schema. (internal/fts5's check_test.go has the same, for the check's own
// tests.)
func rewriteStructure(ctx context.Context, tx sqlTx, schema string, change func(*fts5.Structure)) error {
	var rec []byte
	if err := tx.QueryRowContext(ctx, `SELECT block FROM `+schema+`.entries_fts_data WHERE id = ?`, fts5.StructureRowid).Scan(&rec); err != nil {
		return err
	}
	s, err := fts5.DecodeStructure(rec)
	if err != nil {
		return err
	}
	change(&s)
	_, err = tx.ExecContext(ctx, `UPDATE `+schema+`.entries_fts_data SET block = ? WHERE id = ?`, s.Encode(), fts5.StructureRowid)
	return err
}

// loseSegments makes part 1's structure record list no segments, as a
// SQLite that lists them elsewhere would look to the join: the join goes
// through, and only what the joined index answers shows it wrong.
func loseSegments(ctx context.Context, tx sqlTx) error {
	return rewriteStructure(ctx, tx, "build1", func(s *fts5.Structure) {
		s.DropSegments()
	})
}

// A Projector whose check fails writes the search index in place, says
// why, and runs the check once: the index is the one built in place.
func TestRebuildFallsBackWhenFTSJoinCheckFails(t *testing.T) {
	t.Parallel()               // long, on a workspace of its own (0074)
	n := short.Sized(500, 250) // smaller in the race pass (0074)
	ws := corpusWorkspace(t, n)
	p := openProjector(t, ws)
	p.buildParts, p.buildBlock = 2, 1
	checks, copies := 0, 0
	p.ftsJoin.fault = func(ctx context.Context, tx sqlTx) error { checks++; return loseSegments(ctx, tx) }
	p.beforeCopy = func(context.Context, sqlTx) error { copies++; return nil }
	for range 2 {
		st, err := p.Rebuild(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(st.SearchInPlace, "the joined index answers") || st.Entries < n {
			t.Fatalf("rebuild after a failed check: %d entries, in place because %q; want every entry, and why", st.Entries, st.SearchInPlace)
		}
	}
	if checks != 1 || copies != 0 {
		t.Fatalf("two rebuilds ran %d checks and copied %d builds beside; want one check, no copy", checks, copies)
	}
	sameAsBuiltInPlace(t, p, "after a failed check") // with FTS5's integrity-check
}

// A catch-up of an index that has entries needs no check.
func TestCatchUpWithEntriesSkipsFTSJoinCheck(t *testing.T) {
	t.Parallel()
	ws := corpusWorkspace(t, 100)
	p := openProjector(t, ws)
	p.noBuild = true
	catchUp(t, p)
	p.noBuild = false
	checks := 0
	p.ftsJoin.fault = func(context.Context, sqlTx) error { checks++; return nil }
	appendMsg(t, ws, "main", "one more")
	catchUp(t, p)
	if checks != 0 {
		t.Fatalf("a catch-up of an index with entries ran %d checks of the FTS5 join", checks)
	}
}

// A build beside of one part is copied as it is, not joined: a new index
// of a small workspace, the first read of most, runs no check.
func TestBuildOfOnePartSkipsFTSJoinCheck(t *testing.T) {
	t.Parallel()
	ws := corpusWorkspace(t, 100)
	p := openProjector(t, ws)
	checks, copies := 0, 0
	p.ftsJoin.fault = func(context.Context, sqlTx) error { checks++; return nil }
	p.beforeCopy = func(context.Context, sqlTx) error { copies++; return nil }
	if _, err := p.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	if checks != 0 || copies != 1 {
		t.Fatalf("a rebuild of 100 entries ran %d checks of the FTS5 join and copied %d builds; want none, and one copy", checks, copies)
	}
}
