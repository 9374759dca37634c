package remote

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// dumpTables are the tables of a workspace's rows, with the columns that
// order them.
var dumpTables = []struct{ table, order string }{
	{"anchors", "tape, folder"},
	{"files", "tape, folder, name"},
	{"entries", "tape, folder, file, line"},
	{"bad_lines", "tape, folder, file, line"},
	{"runs", "tape, folder, file, line"},
	{"calls", "tape, anchor_seq, folder, eff_time, file, line, idx"},
	{"tapes", "tape"},
	{"pending", "tape"},
}

// Dump is every row the server holds of a workspace, as text, table by
// table, in key order: two servers that hold the same rows of it dump the
// same. It is for checking that a sync converged (the tests compare a
// sync stopped at random points, then run again, with one clean sync).
func Dump(ctx context.Context, conn *pgx.Conn, wsID string) (string, error) {
	var b strings.Builder
	for _, d := range dumpTables {
		rows, err := conn.Query(ctx, `SELECT t::text FROM tape.`+d.table+` t WHERE workspace_id = $1 ORDER BY `+d.order, wsID)
		if err != nil {
			return "", fmt.Errorf("dump %s: %w", d.table, err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return "", fmt.Errorf("dump %s: %w", d.table, err)
		}
		fmt.Fprintf(&b, "== %s (%d)\n", d.table, len(lines))
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String(), nil
}
