package crush

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/tape-dev/tape/importer/mirrorfile"
)

// schema is what Mirror needs of a database's tables, as Crush's goose
// migrations (internal/db/migrations, 20250424200609_initial.sql and
// after) make them: the columns it orders, settles and links rows by.
// It reads every column a table has, these and any other, so that a
// column a later Crush adds is in the mirror too. The files table may be
// missing (a database tape did not see made).
var schema = []struct {
	table    string
	columns  []string
	optional bool
}{
	{"sessions", []string{"id", "title", "created_at", "updated_at"}, false},
	{"messages", []string{"id", "session_id", "role", "parts", "created_at"}, false},
	{"files", []string{"id", "session_id", "created_at"}, true},
}

// layout is what the database has of the tables and columns that need
// not be there.
type layout struct {
	has     map[string]bool // "table.column", and "table" for a table
	version int64           // goose's migration version; 0 when unknown
}

// readLayout checks that the database has the tables and columns Mirror
// reads. A database of another layout is an error that names what is
// missing, what the database has instead, and its migration version, so
// that a user can say which Crush wrote it.
func readLayout(ctx context.Context, tx *sql.Tx) (layout, error) {
	l := layout{has: map[string]bool{}}
	tables, err := mirrorfile.Tables(ctx, tx)
	if err != nil {
		return l, err
	}
	if slices.Contains(tables, "goose_db_version") {
		// Best effort: the version only says which Crush wrote it.
		_ = tx.QueryRowContext(ctx, `SELECT COALESCE(max(version_id), 0) FROM goose_db_version WHERE is_applied`).Scan(&l.version)
	}
	for _, t := range schema {
		if !slices.Contains(tables, t.table) {
			if t.optional {
				continue
			}
			return l, fmt.Errorf("no table %q, which Crush writes (the database has %s%s); this layout is not one tape reads yet",
				t.table, strings.Join(tables, ", "), l.migration())
		}
		cols, err := mirrorfile.Columns(ctx, tx, t.table)
		if err != nil {
			return l, err
		}
		for _, c := range t.columns {
			if !slices.Contains(cols, c) {
				return l, fmt.Errorf("table %s has no column %q (it has %s%s); this layout is not one tape reads yet",
					t.table, c, strings.Join(cols, ", "), l.migration())
			}
		}
		l.has[t.table] = true
		for _, c := range cols {
			l.has[t.table+"."+c] = true
		}
	}
	return l, nil
}

// migration names the database's migration version in an error.
func (l layout) migration() string {
	if l.version == 0 {
		return ""
	}
	return fmt.Sprintf("; its last migration is %d", l.version)
}
