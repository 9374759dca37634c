package projector

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/tape-dev/tape/views"
)

// Keeping the view tables current (see package views for what they hold).
//
// runs rows belong to one entry each: they are written and deleted with
// their entry. calls rows are a fold over a tape's tool entries in tape
// order, so a change anywhere can change the calls after it: each pass
// notes, per tape, the first place in tape order where a tool entry may
// have changed, and at its end computes the calls again from the last
// tool_call entry before that place (the fold starts afresh at any
// tool_call, so what came before cannot matter). Appends at the end of a
// tape, the common case, fold a few entries; a rebuild folds each tape
// once. The result is the same rows as a fold of the whole tape, which the
// incremental-equals-rebuild property checks.

// viewKey is an entry's place in tape order within its tape: the columns
// of entries_order after tape.
type viewKey struct {
	seq    int64
	folder string
	eff    int64
	file   string
	line   int
}

func (k viewKey) compare(o viewKey) int {
	return cmp.Or(cmp.Compare(k.seq, o.seq), cmp.Compare(k.folder, o.folder), cmp.Compare(k.eff, o.eff),
		cmp.Compare(k.file, o.file), cmp.Compare(k.line, o.line))
}

func (k viewKey) args() []any { return []any{k.seq, k.folder, k.eff, k.file, k.line} }

// tapeStart is before every entry of a tape.
var tapeStart = viewKey{seq: math.MinInt64, eff: math.MinInt64}

// folderStart is before every entry of an anchor folder.
func folderStart(seq int64, folder string) viewKey {
	return viewKey{seq: seq, folder: folder, eff: math.MinInt64}
}

// isToolKind reports whether entries of a kind feed the calls fold.
func isToolKind(kind string) bool {
	return kind == "tool_call" || kind == "tool_result" || kind == "error"
}

// touch notes that the tool entries of tape may have changed from k on.
func (a *applier) touch(tape string, k viewKey) {
	if old, ok := a.dirty[tape]; !ok || k.compare(old) < 0 {
		a.dirty[tape] = k
	}
}

// insertRun writes the runs row of a run event.
func (a *applier) insertRun(ctx context.Context, rowid int64, tape, folder string, r entryRow, timeNS *int64) error {
	run := r.facts.Run
	var usageID any
	if run.UsageID != "" {
		usageID = run.UsageID
		a.usageIDs[run.UsageID] = true
	}
	_, err := a.execStmt(ctx, "insertRun", rowid, tape, r.seq, folder, timeNS, run.Status, run.Model,
		run.Usage, run.In, run.Out, run.CacheCreation, run.CacheRead, run.Total, usageID)
	if err != nil {
		return fmt.Errorf("index run event %s: %w", r.id, err)
	}
	return nil
}

// refreshViews computes the calls of every tape the pass touched again,
// and which run counts each usage id it touched.
func (a *applier) refreshViews(ctx context.Context) error {
	for _, tape := range slices.Sorted(maps.Keys(a.dirty)) {
		if err := a.refreshCalls(ctx, tape, a.dirty[tape]); err != nil {
			return fmt.Errorf("compute the calls of tape %s: %w", tape, err)
		}
	}
	if err := a.refreshCounted(ctx); err != nil {
		return fmt.Errorf("count the runs of a usage id: %w", err)
	}
	return nil
}

// Of the runs that share a usage id (a request an agent reported more than
// once, on any tape), usage counts one: the one with the largest total,
// then the earliest, then the first in tape order of the first tape. The
// runs row keeps whether it is that one (counted), so that a usage sum
// reads the rows it counts instead of ranking every run of the workspace
// (100 ms at 35,000 runs). A pass marks again the runs of each usage id it
// added or removed a run of.

// touchUsage notes the usage ids that query (of runs) selects.
func (a *applier) touchUsage(ctx context.Context, query string, args ...any) error {
	rows, err := a.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		a.usageIDs[id] = true
	}
	return rows.Err()
}

// refreshCounted marks, for each usage id the pass touched, which of its
// runs counts.
func (a *applier) refreshCounted(ctx context.Context) error {
	if len(a.usageIDs) == 0 {
		return nil
	}
	ids, err := json.Marshal(slices.Sorted(maps.Keys(a.usageIDs)))
	if err != nil {
		return err
	}
	clear(a.usageIDs)
	_, err = a.tx.ExecContext(ctx, `UPDATE runs SET counted = (entry IN (
			SELECT entry FROM (
				SELECT r.entry, row_number() OVER (PARTITION BY r.usage_id
					ORDER BY r.total_tokens DESC, r.time_ns, r.tape, e.anchor_seq, e.folder, e.eff_time, e.file, e.line) AS n
				FROM runs r JOIN entries e ON e.rowid = r.entry
				WHERE r.usage_id IN (SELECT value FROM json_each(?1)))
			WHERE n = 1))
		WHERE usage_id IN (SELECT value FROM json_each(?1))`, string(ids))
	return err
}

// settleViews folds the calls of what the pass has applied so far, as if
// the pass ended here; the rest of the pass folds from here on. A pass
// that builds its search index beside (ftsbuild.go) does it at the end of
// a folder once settleEvery tool entries wait: it waits for the builder
// anyway, and the fold would otherwise run at the end, on one core (a
// tenth of a rebuild). The threshold keeps a workspace of many small
// folders from paying a fold's queries per folder.
func (a *applier) settleViews(ctx context.Context) error {
	if err := a.refreshViews(ctx); err != nil {
		return err
	}
	clear(a.dirty)
	a.unfolded = 0
	return nil
}

// settleEvery is how many tool entries a pass that builds beside applies
// before it folds them (settleViews).
const settleEvery = 1024

const toolKinds = `kind IN ('tool_call', 'tool_result', 'error')` // the WHERE of entries_tools, which SQLite must see to use it

func (a *applier) refreshCalls(ctx context.Context, tape string, from viewKey) error {
	start, err := a.foldStart(ctx, tape, from)
	if err != nil {
		return err
	}
	counts, err := a.callCounts(ctx, tape, start)
	if err != nil {
		return err
	}
	for _, table := range []string{"calls", "orphan_results"} {
		if _, err := a.tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE tape = ? AND (anchor_seq, folder, eff_time, file, line) >= (?, ?, ?, ?, ?)`,
			append([]any{tape}, start.args()...)...); err != nil {
			return err
		}
	}
	// The fold reads the tool entries a chunk at a time and writes what
	// each chunk settled, so a rebuild of a million entries holds one
	// chunk, not the tape's 300k calls.
	var fold views.CallFold
	keys := map[int64]viewKey{} // the places of the tool_call entries whose calls are not yet written
	write := func(settled []views.Call) error {
		for _, c := range settled {
			if err := a.insertCall(ctx, tape, keys[c.Entry], c); err != nil {
				return err
			}
			counts[c.Status]++
		}
		return nil
	}
	after, first := start, true
	for {
		chunk, err := a.toolEntries(ctx, tape, after, first)
		if err != nil {
			return err
		}
		for _, e := range chunk {
			if e.Kind == "tool_call" {
				keys[e.Ref] = e.key
			}
			if err := write(fold.Add(e.ToolEntry)); err != nil {
				return err
			}
			for _, o := range fold.Orphans() {
				if _, err := a.execStmt(ctx, "insertOrphan", tape, e.key.seq, e.key.folder, e.key.eff, e.key.file, e.key.line, o.Index, o.Entry, o.CallID); err != nil {
					return err
				}
			}
		}
		if len(chunk) < a.foldChunk {
			break
		}
		after, first = chunk[len(chunk)-1].key, false
		for ref := range keys { // keep only the places of calls still pending
			if !fold.IsPending(ref) {
				delete(keys, ref)
			}
		}
	}
	if err := write(fold.Flush()); err != nil {
		return err
	}
	return a.saveCallCounts(ctx, tape, counts)
}

// foldStart is where a fold of the tape's calls must start for the calls
// from place from on to come out as a fold of the whole tape would make
// them: at the tool_call entry before from, or, if the tool entries just
// before that one are tool_calls too (whose calls it joins, see
// views.RestartsFold), at the first of them; at the tape's start if there
// is none.
func (a *applier) foldStart(ctx context.Context, tape string, from viewKey) (viewKey, error) {
	last, ok, err := a.toolPlace(ctx, `kind = 'tool_call' AND (anchor_seq, folder, eff_time, file, line) < (?, ?, ?, ?, ?)`, true, tape, from)
	if err != nil || !ok {
		return tapeStart, err
	}
	answer, ok, err := a.toolPlace(ctx, `kind <> 'tool_call' AND (anchor_seq, folder, eff_time, file, line) < (?, ?, ?, ?, ?)`, true, tape, last)
	if err != nil || !ok {
		return tapeStart, err
	}
	first, _, err := a.toolPlace(ctx, `(anchor_seq, folder, eff_time, file, line) > (?, ?, ?, ?, ?)`, false, tape, answer)
	return first, err // there is one: last is after answer
}

// toolPlace finds the place of the tool entry of the tape that cond
// selects with k's columns, the last one in tape order, or the first.
func (a *applier) toolPlace(ctx context.Context, cond string, lastOne bool, tape string, k viewKey) (viewKey, bool, error) {
	order := `anchor_seq, folder, eff_time, file, line`
	if lastOne {
		order = `anchor_seq DESC, folder DESC, eff_time DESC, file DESC, line DESC`
	}
	var s viewKey
	err := a.tx.QueryRowContext(ctx, `SELECT anchor_seq, folder, eff_time, file, line FROM entries
		WHERE tape = ? AND `+toolKinds+` AND `+cond+` ORDER BY `+order+` LIMIT 1`,
		append([]any{tape}, k.args()...)...).Scan(&s.seq, &s.folder, &s.eff, &s.file, &s.line)
	if err == sql.ErrNoRows {
		return s, false, nil
	}
	return s, err == nil, err
}

// defaultFoldChunk is how many tool entries the fold reads at a time.
const defaultFoldChunk = 4096

// toolEntry is a tool entry as the fold reads it, with its place.
type toolEntry struct {
	views.ToolEntry
	key viewKey
}

// toolEntries reads up to a.foldChunk tool entries of a tape in tape order,
// from the place after (included when from is true).
func (a *applier) toolEntries(ctx context.Context, tape string, after viewKey, from bool) ([]toolEntry, error) {
	cmp := ">"
	if from {
		cmp = ">="
	}
	rows, err := a.tx.QueryContext(ctx, `SELECT rowid, kind, facts, time_ns, anchor_seq, folder, eff_time, file, line FROM entries
		WHERE tape = ? AND `+toolKinds+` AND (anchor_seq, folder, eff_time, file, line) `+cmp+` (?, ?, ?, ?, ?)
		ORDER BY anchor_seq, folder, eff_time, file, line LIMIT ?`, append(append([]any{tape}, after.args()...), a.foldChunk)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close() // before writing: the statements share the connection
	var out []toolEntry
	for rows.Next() {
		var e toolEntry
		var facts sql.NullString
		if err := rows.Scan(&e.Ref, &e.Kind, &facts, &e.Time, &e.key.seq, &e.key.folder, &e.key.eff, &e.key.file, &e.key.line); err != nil {
			return nil, err
		}
		if e.Facts, err = views.DecodeFacts(facts.String); err != nil {
			return nil, fmt.Errorf("read the facts of an entry: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// callCounts returns the tape's calls by status, less those from start
// on, which the caller deletes and folds again.
func (a *applier) callCounts(ctx context.Context, tape string, start viewKey) (map[string]int64, error) {
	counts := map[string]int64{}
	rows, err := a.tx.QueryContext(ctx, `SELECT status, n FROM call_counts WHERE tape = ?`, tape)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var status string
		var n int64
		if err := rows.Scan(&status, &n); err != nil {
			rows.Close()
			return nil, err
		}
		counts[status] += n
	}
	rows.Close()
	rows, err = a.tx.QueryContext(ctx, `SELECT status, count(*) FROM calls WHERE tape = ? AND (anchor_seq, folder, eff_time, file, line) >= (?, ?, ?, ?, ?) GROUP BY status`,
		append([]any{tape}, start.args()...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var n int64
		if err := rows.Scan(&status, &n); err != nil {
			return nil, err
		}
		counts[status] -= n
	}
	return counts, rows.Err()
}

func (a *applier) saveCallCounts(ctx context.Context, tape string, counts map[string]int64) error {
	if _, err := a.tx.ExecContext(ctx, `DELETE FROM call_counts WHERE tape = ?`, tape); err != nil {
		return err
	}
	for _, status := range slices.Sorted(maps.Keys(counts)) {
		if counts[status] == 0 {
			continue
		}
		if _, err := a.tx.ExecContext(ctx, `INSERT INTO call_counts (tape, status, n) VALUES (?, ?, ?)`, tape, status, counts[status]); err != nil {
			return err
		}
	}
	return nil
}

func (a *applier) insertCall(ctx context.Context, tape string, k viewKey, c views.Call) error {
	var result, resultIdx any
	if c.ResultEntry != 0 {
		result, resultIdx = c.ResultEntry, c.ResultIndex
	}
	_, err := a.execStmt(ctx, "insertCall", tape, k.seq, k.folder, k.eff, k.file, k.line, c.Index,
		c.Entry, c.ID, c.Name, c.Status, c.CalledAt, c.AnsweredAt, result, resultIdx)
	return err
}
