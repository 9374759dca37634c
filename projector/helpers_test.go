package projector

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views/sessions"
)

func newWorkspace(t *testing.T) *tapelog.Workspace {
	t.Helper()
	ws, _, err := tapelog.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func openProjector(t *testing.T, ws *tapelog.Workspace) *Projector {
	t.Helper()
	p, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatalf("projector.Open: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func catchUp(t *testing.T, p *Projector) Stats {
	t.Helper()
	st, err := p.CatchUp(context.Background())
	if err != nil {
		t.Fatalf("CatchUp: %v", err)
	}
	return st
}

// appendMsgs appends one user message a content to a tape, in one batch.
func appendMsgs(t *testing.T, ws *tapelog.Workspace, tape string, contents []string) {
	t.Helper()
	tp, err := ws.Tape(tape)
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	batch := make([]tapelog.Entry, 0, len(contents))
	for _, c := range contents {
		p, _ := json.Marshal(map[string]string{"role": "user", "content": c})
		batch = append(batch, tapelog.Entry{Kind: tapelog.KindMessage, Payload: p})
	}
	if _, err := tp.Append(context.Background(), batch...); err != nil {
		t.Fatal(err)
	}
}

func appendMsg(t *testing.T, ws *tapelog.Workspace, tape, content string) tapelog.Entry {
	t.Helper()
	tp, err := ws.Tape(tape)
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	p, _ := json.Marshal(map[string]string{"role": "user", "content": content})
	out, err := tp.Append(context.Background(), tapelog.Entry{Kind: tapelog.KindMessage, Payload: p})
	if err != nil {
		t.Fatal(err)
	}
	return out[0]
}

func appendRaw(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// dump renders everything the index answers from, in a fixed order and
// without the values that depend on how it was built (rowids, file ids),
// so that two indexes of the same files dump the same.
func dump(t *testing.T, p *Projector, words []string) string {
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
		dumpQuery(t, p, &b, q)
	}
	dumpSessions(t, p, &b)
	for _, w := range words {
		fmt.Fprintf(&b, "search %s:\n", w)
		expr, _ := MatchExpr(w)
		dumpQuery(t, p, &b, `SELECT e.tape, e.id FROM entries_fts f JOIN entries e ON e.rowid = f.rowid WHERE entries_fts MATCH ? ORDER BY e.tape, e.id`, expr)
	}
	return b.String()
}

// sessionsQuery selects the sessions rows, with the places of the entries
// they keep for their rowids, which a rebuild numbers otherwise.
var sessionsQuery = func() string {
	q := `SELECT s.tape, coalesce(s.last_ns, '-'), s.last_seq, s.last_folder, coalesce(s.first_ns, '-'), s.first_seq, s.entries, s.anchors,
		s.start_seq, s.start_folder, s.source, s.session_id, s.parent_session, s.start_cwd, s.start_branch, s.cwd, s.branch, s.title, s.model`
	from := ` FROM sessions s`
	for _, m := range []string{"cwd", "branch", "title", "prompt", "model"} {
		q += fmt.Sprintf(`, coalesce(%[1]s.folder || '/' || %[1]s.file || ':' || %[1]s.line, '-')`, m)
		from += fmt.Sprintf(` LEFT JOIN entries %[1]s ON %[1]s.rowid = s.%[1]s_entry`, m)
	}
	return q + from + ` ORDER BY s.tape`
}()

// dumpSessions renders the sessions list as tape tapes reads it.
func dumpSessions(t *testing.T, p *Projector, b *strings.Builder) {
	t.Helper()
	list, total, err := sessions.List(context.Background(), p, sessions.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(b, "sessions: %d\n", total)
	for _, s := range list {
		fmt.Fprintf(b, "%+v\n", s)
	}
}

func dumpQuery(t *testing.T, p *Projector, b *strings.Builder, q string, args ...any) {
	t.Helper()
	rows, err := p.DB().Query(q, args...)
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

// rebuiltDump builds a fresh index of the same files in another folder and
// dumps it.
func rebuiltDump(t *testing.T, ws *tapelog.Workspace, words []string) string {
	t.Helper()
	return rebuilt(t, ws, func(p *Projector) string { return dump(t, p, words) })
}

// rebuilt builds a fresh index of the same files in another folder and
// returns what show says of it. It builds the search index in two parts,
// rows alternating, so that every comparison with a rebuild also compares
// an index joined from parts with one written in place.
func rebuilt(t *testing.T, ws *tapelog.Workspace, show func(*Projector) string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".tape")
	if err := os.CopyFS(dir, os.DirFS(ws.Dir())); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{IndexFile, IndexFile + "-wal", IndexFile + "-shm"} {
		os.Remove(filepath.Join(dir, f))
	}
	copyWS, err := tapelog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer copyWS.Close()
	p, err := Open(context.Background(), copyWS)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.buildParts, p.buildBlock = 2, 1
	if _, err := p.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	return show(p)
}

func newWorkspaceB(b *testing.B) *tapelog.Workspace {
	b.Helper()
	ws, _, err := tapelog.Init(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws
}

func itoa(n int) string { return fmt.Sprint(n) }

// reportPercentiles reports the median and 95th percentile of durations.
func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
}
