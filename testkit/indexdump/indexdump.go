// Package indexdump renders what the local index (package projector)
// holds as text, in an order and a form that do not depend on how it was
// built, for the tests that compare an index kept incrementally (by
// catch-ups, by a watcher) with one rebuilt from the same files: the
// projector's and the watcher's (package fresh). It reads the index
// through its database and the views' reads alone, so the projector's
// own tests can use it.
package indexdump

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/tape-dev/tape/internal/searchlang"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/sessions"
)

// Index is what a dump reads: the index's database, and the reads the
// views make of it. *projector.Projector is one.
type Index interface {
	DB() *sql.DB
	views.Index
}

// Tables renders everything the index answers from, in a fixed order and
// without the values that depend on how it was built (rowids, file ids),
// so that two indexes of the same files dump the same: every table a view
// keeps, the sessions list as tape tapes reads it, and the matches of a
// search for each of words.
func Tables(t testing.TB, ix Index, words []string) string {
	t.Helper()
	var b strings.Builder
	queries := []string{
		`SELECT tape, id, kind, anchor_seq, folder, file, line, offset, length, coalesce(date, '-'), eff_time, coalesce(time_ns, '-') FROM entries ORDER BY tape, anchor_seq, folder, eff_time, file, line, id`,
		`SELECT tape, folder, seq, name, id, payload, coalesce(meta, '-'), coalesce(date, '-') FROM anchors ORDER BY tape, folder`,
		`SELECT tape, folder, name, offset, line, eff_time, fingerprint FROM files ORDER BY tape, folder, name`,
		`SELECT tape, folder, file, line, offset, reason FROM bad_lines ORDER BY tape, folder, file, line`,
		`SELECT e.tape, e.folder, e.file, e.line, e.facts FROM entries e WHERE e.facts IS NOT NULL ORDER BY e.tape, e.folder, e.file, e.line`,
		`SELECT c.tape, c.folder, c.file, c.line, c.idx, c.call_id, c.name, c.status, coalesce(c.called_ns, '-'), coalesce(c.answered_ns, '-'),
			coalesce(r.folder || '/' || r.file || ':' || r.line, '-'), coalesce(c.result_idx, '-'), e.folder || '/' || e.file || ':' || e.line
			FROM calls c JOIN entries e ON e.rowid = c.entry LEFT JOIN entries r ON r.rowid = c.result_entry
			ORDER BY c.tape, c.anchor_seq, c.folder, c.eff_time, c.file, c.line, c.idx`,
		`SELECT o.tape, o.folder, o.file, o.line, o.idx, o.call_id, e.folder || '/' || e.file || ':' || e.line
			FROM orphan_results o JOIN entries e ON e.rowid = o.entry ORDER BY o.tape, o.anchor_seq, o.folder, o.eff_time, o.file, o.line, o.idx`,
		`SELECT tape, status, n FROM call_counts ORDER BY tape, status`,
		`SELECT tape, status, count(*) FROM calls GROUP BY tape, status ORDER BY tape, status`,
		`SELECT e.tape, e.folder, e.file, e.line, r.anchor_seq, r.folder, coalesce(r.time_ns, '-'), r.status, r.model, r.has_usage, r.input_tokens, r.output_tokens, r.cache_creation_tokens, r.cache_read_tokens, r.total_tokens, coalesce(r.usage_id, '-'), r.counted
			FROM runs r JOIN entries e ON e.rowid = r.entry ORDER BY e.tape, e.folder, e.file, e.line`,
		sessionsQuery,
	}
	for _, q := range queries {
		Query(t, ix.DB(), &b, q)
	}
	sessionsList(t, ix, &b)
	for _, w := range words {
		fmt.Fprintf(&b, "search %s:\n", w)
		expr, _ := searchlang.MatchExpr(w)
		Query(t, ix.DB(), &b, `SELECT e.tape, e.id FROM entries_fts f JOIN entries e ON e.rowid = f.rowid WHERE entries_fts MATCH ? ORDER BY e.tape, e.id`, expr)
	}
	return b.String()
}

// sessionsQuery selects the sessions rows, with the places of the entries
// they keep for their rowids, which a rebuild numbers otherwise.
var sessionsQuery = func() string {
	q := `SELECT s.tape, coalesce(s.last_ns, '-'), s.last_seq, s.last_folder, coalesce(s.first_ns, '-'), s.first_seq, s.entries, s.anchors,
		s.start_seq, s.start_folder, s.source, s.session_id, s.parent_session, s.start_cwd, s.start_branch, s.cwd, s.branch, s.title, s.prompt, s.prompt_cut, s.model`
	from := ` FROM sessions s`
	for _, m := range []string{"cwd", "branch", "title", "prompt", "model"} {
		q += fmt.Sprintf(`, coalesce(%[1]s.folder || '/' || %[1]s.file || ':' || %[1]s.line, '-')`, m)
		from += fmt.Sprintf(` LEFT JOIN entries %[1]s ON %[1]s.rowid = s.%[1]s_entry`, m)
	}
	return q + from + ` ORDER BY s.tape`
}()

// sessionsList renders the sessions list as tape tapes reads it.
func sessionsList(t testing.TB, ix Index, b *strings.Builder) {
	t.Helper()
	list, total, err := sessions.List(context.Background(), ix, sessions.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(b, "sessions: %d\n", total)
	for _, s := range list {
		fmt.Fprintf(b, "%+v\n", s)
	}
}

// Query writes the rows of a query into b, a line each, its values as
// fmt.Println writes them.
func Query(t testing.TB, db *sql.DB, b *strings.Builder, q string, args ...any) {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(b, vals...)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}
