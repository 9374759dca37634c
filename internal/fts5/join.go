package fts5

import (
	"context"
	"database/sql"
	"fmt"
)

// shadows are the tables in which FTS5 keeps entries_fts (a contentless
// table with contentless_delete has no content table). Their rows are the
// whole index: copied into a table of the same definition, they make it
// the same index.
var shadows = []string{"entries_fts_data", "entries_fts_idx", "entries_fts_docsize", "entries_fts_config"}

// Attach attaches the scratch databases of a finished build to conn, the
// connection of the pass's transaction, each under its part's schema name
// (build0, build1, ...), for CopyInto. The transaction must begin after:
// BEGIN IMMEDIATE would lock the attached builds too.
func (b *Build) Attach(ctx context.Context, conn *sql.Conn) error {
	for _, p := range b.parts {
		if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS `+p.schema, p.path); err != nil {
			return fmt.Errorf("attach search index build %s: %w", p.path, err)
		}
	}
	return nil
}

// CopyInto replaces the search index of the transaction's database with
// the one built, its parts attached to its connection (Attach): it copies
// one part as it is, and joins several (joinInto). The connection must be
// closed after the pass: FTS5 caches an index's structure per connection
// and would not see rows written beside it.
func (b *Build) CopyInto(ctx context.Context, tx Tx) error {
	var built []*part
	for _, p := range b.parts {
		if p.started {
			built = append(built, p)
		}
	}
	if len(built) == 0 {
		return nil
	}
	for _, t := range shadows {
		if _, err := tx.ExecContext(ctx, `DELETE FROM main.`+t); err != nil {
			return fmt.Errorf("copy search index: %w", err)
		}
	}
	// The builders' own settings stay behind.
	if _, err := tx.ExecContext(ctx, `INSERT INTO main.entries_fts_config SELECT * FROM `+built[0].schema+
		`.entries_fts_config WHERE k NOT IN ('automerge', 'crisismerge', 'hashsize')`); err != nil {
		return fmt.Errorf("copy search index: %w", err)
	}
	if len(built) == 1 {
		from := built[0].schema
		for _, t := range shadows[:3] {
			if _, err := tx.ExecContext(ctx, `INSERT INTO main.`+t+` SELECT * FROM `+from+`.`+t); err != nil {
				return fmt.Errorf("copy search index: %w", err)
			}
		}
		return nil
	}
	return joinInto(ctx, tx, built)
}

// joinInto copies the indexes of parts into main's entries_fts as one
// index (Join, JoinAverages): their segments renumbered, their records of
// the whole index added up.
func joinInto(ctx context.Context, tx Tx, parts []*part) error {
	structs := make([]Structure, len(parts))
	averages := make([][]byte, len(parts))
	for k, p := range parts {
		var err error
		if structs[k], averages[k], err = readPart(ctx, tx, p.schema); err != nil {
			return fmt.Errorf("join search index part %s: %w", p.path, err)
		}
	}
	joined, shifts, err := Join(structs)
	if err != nil {
		return err
	}
	avg, err := JoinAverages(averages)
	if err != nil {
		return err
	}
	for k, p := range parts {
		if err := copyPart(ctx, tx, p.schema, shifts[k]); err != nil {
			return fmt.Errorf("copy search index part %s: %w", p.path, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO main.entries_fts_data (id, block) VALUES (?, ?), (?, ?)`,
		AveragesRowid, avg, StructureRowid, joined.Encode()); err != nil {
		return fmt.Errorf("copy search index: %w", err)
	}
	return nil
}

// readPart reads the records of the whole index of the part attached as
// schema: its structure, with the origin of its last row, and its
// averages. It refuses a part with records of another kind below the
// segments, which the join would not know how to add up.
func readPart(ctx context.Context, tx Tx, schema string) (Structure, []byte, error) {
	var s Structure
	var rec, avg []byte
	err := tx.QueryRowContext(ctx, `SELECT block FROM `+schema+`.entries_fts_data WHERE id = ?`, StructureRowid).Scan(&rec)
	if err == nil {
		s, err = DecodeStructure(rec)
	}
	if err == nil {
		err = tx.QueryRowContext(ctx, `SELECT block FROM `+schema+`.entries_fts_data WHERE id = ?`, AveragesRowid).Scan(&avg)
	}
	if err == nil {
		err = tx.QueryRowContext(ctx, `SELECT coalesce(max(origin), 0) FROM `+schema+`.entries_fts_docsize`).Scan(&s.RowOrigin)
	}
	var other int
	if err == nil { // only the two records of the whole index sit below the segments
		err = tx.QueryRowContext(ctx, `SELECT count(*) FROM `+schema+`.entries_fts_data WHERE id < ? AND id NOT IN (?, ?)`,
			int64(1)<<SegidShift, AveragesRowid, StructureRowid).Scan(&other)
	}
	if err == nil && other > 0 {
		err = fmt.Errorf("%d records of an unknown kind", other)
	}
	return s, avg, err
}

// copyPart copies the segments and rows of the part attached as schema
// into main's entries_fts, renumbered by sh.
func copyPart(ctx context.Context, tx Tx, schema string, sh Shift) error {
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO main.entries_fts_data (id, block) SELECT id + ?, block FROM ` + schema + `.entries_fts_data WHERE id >= ?`,
			[]any{int64(sh.Segid) << SegidShift, int64(1) << SegidShift}},
		{`INSERT INTO main.entries_fts_idx (segid, term, pgno) SELECT segid + ?, term, pgno FROM ` + schema + `.entries_fts_idx`,
			[]any{sh.Segid}},
		{`INSERT INTO main.entries_fts_docsize (id, sz, origin) SELECT id, sz, origin + ? FROM ` + schema + `.entries_fts_docsize`,
			[]any{int64(sh.Origin)}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	return nil
}
