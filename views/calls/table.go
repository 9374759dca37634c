package calls

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"

	"github.com/tape-dev/tape/internal/stmts"
	"github.com/tape-dev/tape/views"
)

// Keeping the calls tables current.
//
// calls rows are a fold over a tape's tool entries in tape order, so a
// change anywhere can change the calls after it: each pass notes, per
// tape, the first place in tape order where a tool entry may have changed,
// and when it settles computes the calls again from the last tool_call
// entry before that place (the fold starts afresh at any tool_call, so
// what came before cannot matter). Appends at the end of a tape, the
// common case, fold a few entries; a rebuild folds each tape once. The
// result is the same rows as a fold of the whole tape, which the
// projector's incremental-equals-rebuild property checks.

// Table is the calls view: the tool-call lifecycle, the results that
// answer no call, and the count of calls by status.
type Table struct {
	// Chunk is how many tool entries a fold reads at a time; 0 for
	// DefaultChunk. Tests make it small so that folds span chunks.
	Chunk int
}

// DefaultChunk is how many tool entries the fold reads at a time, so that
// a rebuild of a million entries holds one chunk, not a tape's 300k calls.
const DefaultChunk = 4096

// Name implements views.Table.
func (Table) Name() string { return "calls" }

// Tables implements views.Table.
func (Table) Tables() []string { return []string{"call_counts", "orphan_results", "calls"} }

// Schema implements views.Table.
func (Table) Schema() string { return schema }

const schema = `
-- The entries the tool-call view folds, in tape order: only they pay for it.
CREATE INDEX entries_tools ON entries (tape, anchor_seq, folder, eff_time, file, line)
	WHERE kind IN ('tool_call', 'tool_result', 'error');

-- The tool-call lifecycle (fold.go): one row per call, keyed by its
-- tool_call entry's place in tape order and its position there, computed
-- again from the first change of each pass (table.go).
CREATE TABLE calls (
	tape         TEXT NOT NULL,
	anchor_seq   INTEGER NOT NULL,
	folder       TEXT NOT NULL,
	eff_time     INTEGER NOT NULL,
	file         TEXT NOT NULL,
	line         INTEGER NOT NULL,
	idx          INTEGER NOT NULL,
	entry        INTEGER NOT NULL, -- entries.rowid of the tool_call entry
	call_id      TEXT NOT NULL,
	name         TEXT NOT NULL,
	status       TEXT NOT NULL,    -- pending, completed, failed
	called_ns    INTEGER,
	answered_ns  INTEGER,
	result_entry INTEGER,          -- entries.rowid of the tool_result or error entry
	result_idx   INTEGER,          -- position of the result in it; -1 for an error entry
	PRIMARY KEY (tape, anchor_seq, folder, eff_time, file, line, idx)
) WITHOUT ROWID;
-- Lists of calls run newest first (tape DESC too, so one index direction
-- serves them): by status through this index, all of them through the key.
CREATE INDEX calls_status ON calls (status, tape, anchor_seq, folder, eff_time, file, line, idx);
-- Lists of every tape's calls run by the time of the call (query.go),
-- all of them through calls_time, by status through calls_status_time;
-- the key follows in each, for ties.
CREATE INDEX calls_time ON calls (called_ns);
CREATE INDEX calls_status_time ON calls (status, called_ns);

-- Tool results whose call id no pending call has (views/pairing.go): they
-- answer nothing, and are reported. Keyed by the tool_result entry's place
-- and the result's position there; folded with calls.
CREATE TABLE orphan_results (
	tape         TEXT NOT NULL,
	anchor_seq   INTEGER NOT NULL,
	folder       TEXT NOT NULL,
	eff_time     INTEGER NOT NULL,
	file         TEXT NOT NULL,
	line         INTEGER NOT NULL,
	idx          INTEGER NOT NULL,
	entry        INTEGER NOT NULL, -- entries.rowid of the tool_result entry
	call_id      TEXT NOT NULL,
	PRIMARY KEY (tape, anchor_seq, folder, eff_time, file, line, idx)
) WITHOUT ROWID;

-- How many calls of each status a tape has, kept with calls: counting 150k
-- pending calls took 15 ms, the whole budget of a list's total.
CREATE TABLE call_counts (
	tape   TEXT NOT NULL,
	status TEXT NOT NULL,
	n      INTEGER NOT NULL,
	PRIMARY KEY (tape, status)
) WITHOUT ROWID;
`

var statements = map[string]string{
	"insertCall": `INSERT INTO calls (tape, anchor_seq, folder, eff_time, file, line, idx, entry, call_id, name, status, called_ns, answered_ns, result_entry, result_idx)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"insertOrphan": `INSERT INTO orphan_results (tape, anchor_seq, folder, eff_time, file, line, idx, entry, call_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
}

// Begin implements views.Table.
func (t Table) Begin(tx views.Tx) views.Pass {
	chunk := t.Chunk
	if chunk <= 0 {
		chunk = DefaultChunk
	}
	return &pass{tx: tx, stmts: stmts.New(tx, statements), dirty: map[string]views.Place{}, chunk: chunk}
}

// pass keeps the calls through one pass of the projector.
type pass struct {
	tx       views.Tx
	stmts    *stmts.Cache
	dirty    map[string]views.Place // per tape, where its tool entries may have changed from
	unfolded int                    // tool entries added since the last Settle
	chunk    int
}

func (p *pass) Added(_ context.Context, e views.Added) error {
	if views.IsToolKind(e.Kind) {
		p.Changed(e.Tape, e.Place)
		p.unfolded++
	}
	return nil
}

// Removing needs nothing: whoever removes entries says where (Changed).
func (p *pass) Removing(context.Context, string, ...any) error { return nil }

func (p *pass) Changed(tape string, from views.Place) {
	if old, ok := p.dirty[tape]; !ok || from.Compare(old) < 0 {
		p.dirty[tape] = from
	}
}

func (p *pass) DropTape(ctx context.Context, tape string) error {
	for _, table := range (Table{}).Tables() {
		if _, err := p.tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE tape = ?`, tape); err != nil {
			return err
		}
	}
	delete(p.dirty, tape)
	return nil
}

func (p *pass) Backlog() int { return p.unfolded }

// Settle computes the calls of every tape the pass touched again.
func (p *pass) Settle(ctx context.Context) error {
	for _, tape := range slices.Sorted(maps.Keys(p.dirty)) {
		if err := p.refresh(ctx, tape, p.dirty[tape]); err != nil {
			return fmt.Errorf("compute the calls of tape %s: %w", tape, err)
		}
	}
	clear(p.dirty)
	p.unfolded = 0
	return nil
}

const toolKinds = `kind IN ('tool_call', 'tool_result', 'error')` // the WHERE of entries_tools, which SQLite must see to use it

func (p *pass) refresh(ctx context.Context, tape string, from views.Place) error {
	start, err := p.foldStart(ctx, tape, from)
	if err != nil {
		return err
	}
	counts, err := p.counts(ctx, tape, start)
	if err != nil {
		return err
	}
	for _, table := range []string{"calls", "orphan_results"} {
		if _, err := p.tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE tape = ? AND (anchor_seq, folder, eff_time, file, line) >= (?, ?, ?, ?, ?)`,
			append([]any{tape}, start.Args()...)...); err != nil {
			return err
		}
	}
	// The fold reads the tool entries a chunk at a time and writes what
	// each chunk settled.
	var fold CallFold
	places := map[int64]views.Place{} // the places of the tool_call entries whose calls are not yet written
	write := func(settled []Call) error {
		for _, c := range settled {
			if err := p.insertCall(ctx, tape, places[c.Entry], c); err != nil {
				return err
			}
			counts[c.Status]++
		}
		return nil
	}
	after, first := start, true
	for {
		chunk, err := p.toolEntries(ctx, tape, after, first)
		if err != nil {
			return err
		}
		for _, e := range chunk {
			if e.Kind == "tool_call" {
				places[e.Ref] = e.place
			}
			if err := write(fold.Add(e.ToolEntry)); err != nil {
				return err
			}
			for _, o := range fold.Orphans() {
				k := e.place
				if _, err := p.stmts.Exec(ctx, "insertOrphan", tape, k.Seq, k.Folder, k.Eff, k.File, k.Line, o.Index, o.Entry, o.CallID); err != nil {
					return err
				}
			}
		}
		if len(chunk) < p.chunk {
			break
		}
		after, first = chunk[len(chunk)-1].place, false
		for ref := range places { // keep only the places of calls still pending
			if !fold.IsPending(ref) {
				delete(places, ref)
			}
		}
	}
	if err := write(fold.Flush()); err != nil {
		return err
	}
	return p.saveCounts(ctx, tape, counts)
}

// foldStart is where a fold of the tape's calls must start for the calls
// from place from on to come out as a fold of the whole tape would make
// them: at the tool_call entry before from, or, if the tool entries just
// before that one are tool_calls too (whose calls it joins, see
// views.RestartsFold), at the first of them; at the tape's start if there
// is none.
func (p *pass) foldStart(ctx context.Context, tape string, from views.Place) (views.Place, error) {
	return foldStart(ctx, p.tx, tape, from)
}

// rowQuerier is what foldStart needs of the index: a pass's transaction,
// or a reader's snapshot.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func foldStart(ctx context.Context, q rowQuerier, tape string, from views.Place) (views.Place, error) {
	last, ok, err := toolPlace(ctx, q, `kind = 'tool_call' AND (anchor_seq, folder, eff_time, file, line) < (?, ?, ?, ?, ?)`, true, tape, from)
	if err != nil || !ok {
		return views.TapeStart, err
	}
	answer, ok, err := toolPlace(ctx, q, `kind <> 'tool_call' AND (anchor_seq, folder, eff_time, file, line) < (?, ?, ?, ?, ?)`, true, tape, last)
	if err != nil || !ok {
		return views.TapeStart, err
	}
	first, _, err := toolPlace(ctx, q, `(anchor_seq, folder, eff_time, file, line) > (?, ?, ?, ?, ?)`, false, tape, answer)
	return first, err // there is one: last is after answer
}

// toolPlace finds the place of the tool entry of the tape that cond
// selects with k's columns, the last one in tape order, or the first.
func toolPlace(ctx context.Context, q rowQuerier, cond string, lastOne bool, tape string, k views.Place) (views.Place, bool, error) {
	order := `anchor_seq, folder, eff_time, file, line`
	if lastOne {
		order = `anchor_seq DESC, folder DESC, eff_time DESC, file DESC, line DESC`
	}
	var s views.Place
	err := q.QueryRowContext(ctx, `SELECT anchor_seq, folder, eff_time, file, line FROM entries
		WHERE tape = ? AND `+toolKinds+` AND `+cond+` ORDER BY `+order+` LIMIT 1`,
		append([]any{tape}, k.Args()...)...).Scan(&s.Seq, &s.Folder, &s.Eff, &s.File, &s.Line)
	if err == sql.ErrNoRows {
		return s, false, nil
	}
	return s, err == nil, err
}

// toolEntry is a tool entry as the fold reads it, with its place.
type toolEntry struct {
	ToolEntry
	place views.Place
}

// toolEntries reads up to p.chunk tool entries of a tape in tape order,
// from the place after (included when from is true).
func (p *pass) toolEntries(ctx context.Context, tape string, after views.Place, from bool) ([]toolEntry, error) {
	cmp := ">"
	if from {
		cmp = ">="
	}
	rows, err := p.tx.QueryContext(ctx, `SELECT rowid, kind, facts, time_ns, anchor_seq, folder, eff_time, file, line FROM entries
		WHERE tape = ? AND `+toolKinds+` AND (anchor_seq, folder, eff_time, file, line) `+cmp+` (?, ?, ?, ?, ?)
		ORDER BY anchor_seq, folder, eff_time, file, line LIMIT ?`, append(append([]any{tape}, after.Args()...), p.chunk)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close() // before writing: the statements share the connection
	var out []toolEntry
	for rows.Next() {
		var e toolEntry
		var facts sql.NullString
		if err := rows.Scan(&e.Ref, &e.Kind, &facts, &e.Time, &e.place.Seq, &e.place.Folder, &e.place.Eff, &e.place.File, &e.place.Line); err != nil {
			return nil, err
		}
		if e.Facts, err = views.DecodeFacts(facts.String); err != nil {
			return nil, fmt.Errorf("read the facts of an entry: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// counts returns the tape's calls by status, less those from start on,
// which the caller deletes and folds again.
func (p *pass) counts(ctx context.Context, tape string, start views.Place) (map[string]int64, error) {
	counts := map[string]int64{}
	add := func(sign int64, query string, args ...any) error {
		rows, err := p.tx.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var status string
			var n int64
			if err := rows.Scan(&status, &n); err != nil {
				return err
			}
			counts[status] += sign * n
		}
		return rows.Err()
	}
	if err := add(1, `SELECT status, n FROM call_counts WHERE tape = ?`, tape); err != nil {
		return nil, err
	}
	err := add(-1, `SELECT status, count(*) FROM calls WHERE tape = ? AND (anchor_seq, folder, eff_time, file, line) >= (?, ?, ?, ?, ?) GROUP BY status`,
		append([]any{tape}, start.Args()...)...)
	return counts, err
}

func (p *pass) saveCounts(ctx context.Context, tape string, counts map[string]int64) error {
	if _, err := p.tx.ExecContext(ctx, `DELETE FROM call_counts WHERE tape = ?`, tape); err != nil {
		return err
	}
	for _, status := range slices.Sorted(maps.Keys(counts)) {
		if counts[status] == 0 {
			continue
		}
		if _, err := p.tx.ExecContext(ctx, `INSERT INTO call_counts (tape, status, n) VALUES (?, ?, ?)`, tape, status, counts[status]); err != nil {
			return err
		}
	}
	return nil
}

func (p *pass) insertCall(ctx context.Context, tape string, k views.Place, c Call) error {
	var result, resultIdx any
	if c.ResultEntry != 0 {
		result, resultIdx = c.ResultEntry, c.ResultIndex
	}
	_, err := p.stmts.Exec(ctx, "insertCall", tape, k.Seq, k.Folder, k.Eff, k.File, k.Line, c.Index,
		c.Entry, c.ID, c.Name, c.Status, c.CalledAt, c.AnsweredAt, result, resultIdx)
	return err
}
