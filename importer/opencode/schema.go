package opencode

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/tape-dev/tape/importer/mirrorfile"
)

// wanted is what Mirror needs of a database's tables, as OpenCode 1.x
// (its drizzle schema, session.sql.ts) writes them: the columns it reads,
// and the optional ones it reads when they are there.
var wanted = []struct {
	table    string
	columns  []string // required
	optional []string
}{
	{"session", []string{"id", "title", "time_created", "time_updated"},
		[]string{"project_id", "parent_id", "directory", "version", "current_state", "recent_progress"}}, // the last two the Kilo CLI's
	{"message", []string{"id", "session_id", "time_created", "time_updated", "data"}, nil},
	{"part", []string{"id", "message_id", "session_id", "time_created", "time_updated", "data"}, nil},
	{"project", nil, []string{"id", "worktree"}},
}

// layout is which of the optional columns a database has.
type layout struct {
	has map[string]bool // "table.column"
}

func (l layout) col(table, column, otherwise string) string {
	if l.has[table+"."+column] {
		return table[:1] + "." + column
	}
	return otherwise
}

// readLayout checks that db has the tables and columns Mirror reads. A
// database of another layout is an error that names what is missing and
// what the database has instead, so that a user can say which OpenCode
// wrote it. schema names whose tables it expects ("OpenCode 1.x").
func readLayout(ctx context.Context, tx *sql.Tx, schema string) (layout, error) {
	l := layout{has: map[string]bool{}}
	tables, err := mirrorfile.Tables(ctx, tx)
	if err != nil {
		return l, err
	}
	for _, t := range wanted {
		if !slices.Contains(tables, t.table) {
			if t.columns == nil {
				continue
			}
			return l, fmt.Errorf("no table %q, which %s writes (the database has %s); this layout is not one tape reads yet", t.table, schema, strings.Join(tables, ", "))
		}
		cols, err := mirrorfile.Columns(ctx, tx, t.table)
		if err != nil {
			return l, err
		}
		for _, c := range t.columns {
			if !slices.Contains(cols, c) {
				return l, fmt.Errorf("table %s has no column %q (it has %s); this layout is not one tape reads yet", t.table, c, strings.Join(cols, ", "))
			}
		}
		for _, c := range t.optional {
			l.has[t.table+"."+c] = slices.Contains(cols, c)
		}
	}
	return l, nil
}
