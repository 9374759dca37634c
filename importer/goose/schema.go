package goose

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/tape-dev/tape/importer/mirrorfile"
)

// knownVersion is the newest schema_version of Goose's database this
// package was written against (Goose's session_manager.rs,
// CURRENT_SCHEMA_VERSION, 2026). A newer one is read all the same when it
// has the columns below: Goose's migrations add columns and tables, and
// the export keeps every column it finds.
const knownVersion = 16

// required are the columns the export and the converter cannot do
// without, by table, as Goose has written them since its first schema.
var required = []struct {
	table   string
	columns []string
}{
	{"sessions", []string{"id", "working_dir", "created_at"}},
	{"messages", []string{"id", "session_id", "role", "content_json", "created_timestamp"}},
}

// layout is a database's tables as the export reads them: every column of
// each, in order, and its schema_version (0 for none).
type layout struct {
	version  int
	sessions []string
	messages []string
	ledger   []string // usage_ledger's, from schema 15; nil before
}

// readLayout checks that the database has the tables and columns the
// export reads. A database of another layout is an error that names what
// is missing and what the database has instead, so that a user can say
// which Goose wrote it; nothing of it is exported.
func readLayout(ctx context.Context, tx *sql.Tx) (layout, error) {
	var l layout
	tables, err := mirrorfile.Tables(ctx, tx)
	if err != nil {
		return l, err
	}
	cols := map[string][]string{}
	for _, t := range required {
		if !slices.Contains(tables, t.table) {
			return l, fmt.Errorf("no table %q, which Goose's sessions.db has (the database has %s); this layout is not one tape reads yet",
				t.table, strings.Join(tables, ", "))
		}
		c, err := mirrorfile.Columns(ctx, tx, t.table)
		if err != nil {
			return l, err
		}
		for _, want := range t.columns {
			if !slices.Contains(c, want) {
				return l, fmt.Errorf("table %s has no column %q (it has %s); this layout is not one tape reads yet",
					t.table, want, strings.Join(c, ", "))
			}
		}
		cols[t.table] = c
	}
	l.sessions, l.messages = cols["sessions"], cols["messages"]
	if slices.Contains(tables, "usage_ledger") {
		c, err := mirrorfile.Columns(ctx, tx, "usage_ledger")
		if err != nil {
			return l, err
		}
		if slices.Contains(c, "id") && slices.Contains(c, "session_id") {
			l.ledger = c
		}
	}
	if slices.Contains(tables, "schema_version") {
		var v sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_version`).Scan(&v); err != nil {
			return l, fmt.Errorf("read the schema version: %w", err)
		}
		l.version = int(v.Int64)
	}
	return l, nil
}

// selectList is the columns of a table as the export selects them: each
// as its type and its value as text (SQLite's own text of a number), so
// that a TIMESTAMP column's text stays as Goose wrote it (the driver would
// make it a time) and a value of any type is read.
func selectList(cols []string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		q := `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
		b.WriteString("typeof(" + q + "), CAST(" + q + " AS TEXT)")
	}
	return b.String()
}
