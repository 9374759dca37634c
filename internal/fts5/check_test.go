package fts5

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// With the SQLite linked in, the check passes.
func TestCheckJoinPasses(t *testing.T) {
	t.Parallel()
	if err := CheckJoin(context.Background(), nil); err != nil {
		t.Fatalf("the check of the FTS5 join fails with the SQLite linked in: %v", err)
	}
}

// rewriteStructure changes the structure record of the part attached as
// schema.
func rewriteStructure(ctx context.Context, tx *sql.Tx, schema string, change func(*Structure)) error {
	var rec []byte
	if err := tx.QueryRowContext(ctx, `SELECT block FROM `+schema+`.entries_fts_data WHERE id = ?`, StructureRowid).Scan(&rec); err != nil {
		return err
	}
	s, err := DecodeStructure(rec)
	if err != nil {
		return err
	}
	change(&s)
	_, err = tx.ExecContext(ctx, `UPDATE `+schema+`.entries_fts_data SET block = ? WHERE id = ?`, s.Encode(), StructureRowid)
	return err
}

// loseSegments makes part 1's structure record list no segments, as a
// SQLite that lists them elsewhere would look to the join: the join goes
// through, and only what the joined index answers shows it wrong.
func loseSegments(ctx context.Context, tx *sql.Tx) error {
	return rewriteStructure(ctx, tx, "build1", func(s *Structure) {
		s.DropSegments()
	})
}

// The check fails when the parts are not what the join expects, whether
// the join itself refuses them or only the joined index's answers, or the
// encoder's bytes, show it.
func TestFTSJoinCheckFails(t *testing.T) {
	t.Parallel()
	exec := func(q string, args ...any) func(context.Context, *sql.Tx) error {
		return func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, q, args...)
			return err
		}
	}
	for _, tc := range []struct {
		name  string
		fault func(context.Context, *sql.Tx) error
		want  string
	}{
		{"segments the structure record does not list", loseSegments, "the joined index answers"},
		{"a varint written longer than SQLite writes it",
			exec(`UPDATE build1.entries_fts_data SET block = substr(block, 1, 8) || x'80' || substr(block, 9) WHERE id = ?`, StructureRowid),
			"encodes back as"},
		{"a record of a kind the join does not know", exec(`INSERT INTO build1.entries_fts_data (id, block) VALUES (5, x'00')`), "unknown kind"},
		{"averages records of different lengths",
			exec(`UPDATE build1.entries_fts_data SET block = block || x'00' WHERE id = ?`, AveragesRowid), "averages record"},
		{"a structure record of another format",
			func(ctx context.Context, tx *sql.Tx) error {
				return rewriteStructure(ctx, tx, "build1", (*Structure).AsV1)
			}, "another structure format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckJoin(context.Background(), tc.fault)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "check of the FTS5 join (SQLite 3.") {
				t.Fatalf("check: %v; want an error naming SQLite's version and saying %q", err, tc.want)
			}
		})
	}
}

// BenchmarkFTSJoinCheck measures the check a Projector runs before its
// first join:
//
//	go test ./internal/fts5 -run '^$' -bench FTSJoinCheck -count 3
func BenchmarkFTSJoinCheck(b *testing.B) {
	for b.Loop() {
		if err := CheckJoin(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
}
