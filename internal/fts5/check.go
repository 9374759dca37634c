package fts5

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/internal/searchlang"
	"github.com/tape-dev/tape/internal/sqlitefile"
)

// This file checks that the SQLite linked in writes FTS5's records as the
// join (join.go, record.go) expects them: the join rewrites FTS5's
// structure and averages records, whose formats are SQLite's internals,
// not its interface, and a SQLite that changed them could make a join
// that is quietly wrong. The check builds a tiny index both ways, joined
// and in place, and compares what they answer; if they differ, the caller
// writes the search index in place, the slower way that depends on none
// of this. The SQLite linked in does not change while a process runs: a
// caller runs the check once (package projector, before a Projector's
// first join) and keeps its answer.

// checkBlock is the runs of rowids that go to each of the check's two
// parts: small, so that each part has several runs.
const checkBlock = 4

// checkRows are the check's writes: those the parts are built from,
// then those made to the joined index after the join (a catch-up's). They
// cover what the join renumbers: removals while building (tombstones,
// segments flushed early), a removed newest row whose rowid comes back,
// rows of no tokens at the end of a part (their origin is beyond the
// part's segments), then removals of rows of both parts from the joined
// index (each found in its segment through its origin).
func checkRows() (build, after []row) {
	words := []string{"alpha", "beta", "gamma", "TestFlush", "错误", "测试"} // TestFlush fills the parts column
	text := func(id int64) row {
		return checkRow(id, fmt.Sprintf("%s %s w%d", words[id%5], words[(id*3)%6], id))
	}
	for id := int64(1); id <= 23; id++ {
		r := text(id)
		if id >= 16 && id <= 19 { // part 0's last run: no tokens
			r.text, r.parts = "", ""
		}
		build = append(build, r)
		switch id { // as many in each part, so that their segments have the same ids
		case 10:
			build = append(build, row{rowid: 2, del: true})
		case 11, 23:
			build = append(build, row{rowid: id, del: true}, checkRow(id, "alpha gamma again"))
		case 12:
			build = append(build, row{rowid: 5, del: true})
		}
	}
	for id := int64(24); id <= 31; id++ {
		after = append(after, text(id))
	}
	for _, id := range []int64{1, 6, 17, 21, 24} {
		after = append(after, row{rowid: id, del: true})
	}
	return build, after
}

// checkRow is the row that adds text as package projector writes an
// entry's search text: tokenized, and the parts of its identifiers.
func checkRow(rowid int64, text string) row {
	return row{rowid: rowid, text: searchlang.Tokenize(text), parts: searchlang.IdentifierParts(text)}
}

// checkQueries are the searches whose answers the check compares.
var checkQueries = []string{"alpha", "beta", "错误", "w7", "alpha beta", `"alpha gamma"`, "gamma OR testflush", "flush", "w1*"}

// CheckJoin reports whether the SQLite linked in writes FTS5's records as
// the join of a build in parts expects them: nil if a Build that Joins
// may be copied in. It builds an index from checkRows in two parts and
// joins them as a pass does, builds one in place from the same rows, and
// checks that the two answer alike (FTS5's integrity-check, every
// instance of every term, the rows' sizes, the ranked hits of
// checkQueries) after the join, after more writes and
// after a merge of all segments; and that the records of the whole index
// SQLite wrote decode and encode to the same bytes. Its error names
// SQLite's version and the first difference. It takes 9–12 ms on two busy
// cores (BenchmarkFTSJoinCheck), once per Projector (a command opens
// one), at its first pass from an empty index: about 1% of a rebuild of
// 20k entries.
//
// fault, if not nil, runs in the join's transaction just before the
// join, the parts attached as build0 and build1: tests change the parts
// there as a SQLite of another format would have written them.
func CheckJoin(ctx context.Context, fault func(ctx context.Context, tx *sql.Tx) error) error {
	dir, err := os.MkdirTemp("", "tape-fts-check-")
	if err != nil {
		return fmt.Errorf("check of the FTS5 join: %w", err)
	}
	defer os.RemoveAll(dir)
	ref := openCheckDB(filepath.Join(dir, "ref.db"))
	defer ref.Close()
	version := "?"
	if err := ref.QueryRowContext(ctx, `SELECT sqlite_version()`).Scan(&version); err != nil {
		return fmt.Errorf("check of the FTS5 join: %w", err)
	}
	if err := compareJoin(ctx, dir, ref, fault); err != nil {
		return fmt.Errorf("check of the FTS5 join (SQLite %s): %w", version, err)
	}
	return nil
}

// compareJoin is CheckJoin in dir, ref its index built in place.
func compareJoin(ctx context.Context, dir string, ref *sql.DB, fault func(context.Context, *sql.Tx) error) error {
	rows, after := checkRows()
	if err := joinCheckBuild(ctx, dir, rows, fault); err != nil {
		return err
	}
	if _, err := ref.ExecContext(ctx, Schema); err != nil {
		return err
	}
	if err := applyRows(ctx, ref, rows); err != nil {
		return err
	}
	// A connection of its own, as after a pass: FTS5 caches an index's
	// structure per connection (CopyInto).
	joined := openCheckDB(filepath.Join(dir, "joined.db"))
	defer joined.Close()
	optimize := func(db *sql.DB) error {
		_, err := db.ExecContext(ctx, `INSERT INTO entries_fts (entries_fts) VALUES ('optimize')`)
		return err
	}
	for _, step := range []struct {
		name  string
		write func(db *sql.DB) error
	}{
		{"after the join", func(*sql.DB) error { return nil }},
		{"after more writes", func(db *sql.DB) error { return applyRows(ctx, db, after) }},
		{"after a merge", optimize},
	} {
		for _, db := range []*sql.DB{ref, joined} {
			if err := step.write(db); err != nil {
				return fmt.Errorf("%s: %w", step.name, err)
			}
		}
		want, err := ftsAnswers(ctx, ref)
		if err != nil {
			return fmt.Errorf("%s, built in place: %w", step.name, err)
		}
		got, err := ftsAnswers(ctx, joined)
		if err != nil {
			return fmt.Errorf("%s, joined: %w", step.name, err)
		}
		if got != want {
			return fmt.Errorf("%s, the joined index answers %s", step.name, firstDifference(got, want))
		}
		if err := checkRecords(ctx, joined, "main"); err != nil { // as SQLite wrote them
			return fmt.Errorf("%s: %w", step.name, err)
		}
	}
	return nil
}

// joinCheckBuild builds rows beside in two parts in dir and joins them
// into dir/joined.db, as a pass does: the same builders (Build), the same
// copy (CopyInto), on a connection closed after.
func joinCheckBuild(ctx context.Context, dir string, rows []row, fault func(context.Context, *sql.Tx) error) error {
	build, err := NewBuild(dir, 2, checkBlock)
	if err != nil {
		return err
	}
	defer build.Close()
	for _, r := range rows {
		var err error
		if r.del {
			err = build.Remove(ctx, []int64{r.rowid})
		} else {
			err = build.Add(ctx, r.rowid, r.text, r.parts)
		}
		if err != nil {
			return err
		}
	}
	if _, err := build.Finish(ctx); err != nil {
		return err
	}
	db := openCheckDB(filepath.Join(dir, "joined.db"))
	defer db.Close()
	if _, err := db.ExecContext(ctx, Schema); err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := build.Attach(ctx, conn); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if fault != nil {
		if err := fault(ctx, tx); err != nil {
			return err
		}
	}
	for _, p := range build.parts {
		if err := checkRecords(ctx, tx, p.schema); err != nil {
			return fmt.Errorf("part %s: %w", p.schema, err)
		}
	}
	if err := build.CopyInto(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// openCheckDB opens a scratch database of the check, on one connection.
func openCheckDB(path string) *sql.DB {
	return openDB(sqlitefile.URI(path) + "?_pragma=journal_mode(MEMORY)&_pragma=synchronous(OFF)")
}

// applyRows writes rows to db's entries_fts in one transaction, as a pass
// writes in place.
func applyRows(ctx context.Context, db *sql.DB, rows []row) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, r := range rows {
		if r.del {
			_, err = tx.ExecContext(ctx, `DELETE FROM entries_fts WHERE rowid = ?`, r.rowid)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO entries_fts (rowid, text, parts) VALUES (?, ?, ?)`, r.rowid, r.text, r.parts)
		}
		if err != nil {
			return fmt.Errorf("search row %d: %w", r.rowid, err)
		}
	}
	return tx.Commit()
}

// ftsAnswers is what db's search index answers, as text to compare: FTS5's
// integrity-check, every instance of every term, the rows' sizes, and the
// rows and bm25 ranks (which depend on the averages record) of
// checkQueries.
func ftsAnswers(ctx context.Context, db *sql.DB) (string, error) {
	if _, err := db.ExecContext(ctx, `INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 0)`); err != nil {
		return "", fmt.Errorf("FTS5 integrity-check: %w", err)
	}
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_check_vocab USING fts5vocab(main, entries_fts, instance)`); err != nil {
		return "", err
	}
	var b strings.Builder
	add := func(label, q string, args ...any) error {
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		defer rows.Close()
		for rows.Next() {
			var a, c, d any
			if err := rows.Scan(&a, &c, &d); err != nil {
				return fmt.Errorf("%s: %w", label, err)
			}
			fmt.Fprintf(&b, "%s: %v %v %v\n", label, a, c, d)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		return nil
	}
	if err := add("instance", `SELECT term, doc, offset FROM temp.fts_check_vocab ORDER BY term, doc, offset`); err != nil {
		return "", err
	}
	if err := add("size", `SELECT id, sz, 0 FROM entries_fts_docsize ORDER BY id`); err != nil {
		return "", err
	}
	for _, q := range checkQueries {
		if err := add(q, `SELECT rowid, bm25(entries_fts), 0 FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rowid`, q); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// firstDifference names the first line in which got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("%q where the one built in place answers %q", g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines where the one built in place answers %d", len(g), len(w))
}

// rowQuerier is a *sql.DB or a transaction.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// checkRecords checks that the structure and averages records of the
// index in schema decode, and encode to the bytes SQLite wrote: the join
// rewrites them, and an encoder that writes them otherwise than SQLite
// does would not be writing SQLite's format.
func checkRecords(ctx context.Context, q rowQuerier, schema string) error {
	var rec, avg []byte
	const read = `SELECT block FROM %s.entries_fts_data WHERE id = ?`
	if err := q.QueryRowContext(ctx, fmt.Sprintf(read, schema), StructureRowid).Scan(&rec); err != nil {
		return fmt.Errorf("read structure record: %w", err)
	}
	if err := q.QueryRowContext(ctx, fmt.Sprintf(read, schema), AveragesRowid).Scan(&avg); err != nil {
		return fmt.Errorf("read averages record: %w", err)
	}
	s, err := DecodeStructure(rec)
	if err != nil {
		return err
	}
	if again := s.Encode(); !bytes.Equal(again, rec) {
		return fmt.Errorf("structure record % x encodes back as % x", rec, again)
	}
	again, err := JoinAverages([][]byte{avg})
	if err != nil {
		return err
	}
	if !bytes.Equal(again, avg) {
		return fmt.Errorf("averages record % x encodes back as % x", avg, again)
	}
	return nil
}
