package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/tape-dev/tape/internal/stmts"
	"github.com/tape-dev/tape/views"
)

// Keeping the sessions table current.
//
// A pass folds each entry it adds into its tape's fold as the entry comes
// (fold.go), and at Settle merges each fold into the tape's stored row:
// counts add, and a kept entry (the first cwd, the last title, ...) is
// replaced only by one that comes before or after it. So appends, new
// tapes, handoffs and a line appended to an older file that sorts before
// the rest all cost a fold per entry and, per tape, one row read and one
// written; a rebuild, whose tapes have no rows, reads none, and reads the
// first anchors' states and the stored rows with one query per Settle,
// not one per tape.
//
// Entries leaving can take what a row keeps with them (the first cwd, the
// newest folder, a count), and a fold cannot be undone: a tape that loses
// entries (Removing: a file truncated or rewritten and read again, a
// folder removed, an anchor.json replaced) is folded again at Settle from
// all its entries in the table, and what the pass added to it meanwhile is
// in the table by then. Changed marks its tape the same way, though every
// caller that removes entries says so through Removing too. A tape dropped
// (DropTape) loses its row.

// Table is the sessions view: one row per tape.
type Table struct{}

// Name implements views.Table.
func (Table) Name() string { return "sessions" }

// Tables implements views.Table.
func (Table) Tables() []string { return []string{"sessions"} }

// Schema implements views.Table.
func (Table) Schema() string { return schema }

const schema = `
-- One row per tape that has entries: what tape tapes lists, a fold of the
-- tape's entries (fold.go) kept by every pass (table.go). An entry a part
-- of the fold keeps is named by its rowid (*_entry), so that a pass can
-- compare the entries it adds with it; values a list prints are copied
-- from its facts. Times are entries.time_ns.
CREATE TABLE sessions (
	tape           TEXT PRIMARY KEY,
	last_ns        INTEGER,          -- the latest time in the newest folder; NULL for none
	last_seq       INTEGER NOT NULL, -- the newest folder
	last_folder    TEXT NOT NULL,
	first_ns       INTEGER,          -- the earliest time of the first anchor seq's entries; NULL for none
	first_seq      INTEGER NOT NULL,
	entries        INTEGER NOT NULL, -- anchor entries not counted
	anchors        INTEGER NOT NULL, -- anchor folders
	start_seq      INTEGER NOT NULL, -- the first anchor folder, and what its state says
	start_folder   TEXT NOT NULL,
	source         TEXT NOT NULL,
	session_id     TEXT NOT NULL,
	parent_session TEXT NOT NULL,
	start_cwd      TEXT NOT NULL,
	start_branch   TEXT NOT NULL,
	cwd            TEXT NOT NULL,    -- the first an entry names; '' for none
	cwd_entry      INTEGER,
	branch         TEXT NOT NULL,    -- the last an entry names
	branch_entry   INTEGER,
	title          TEXT NOT NULL,    -- the last title event's
	title_entry    INTEGER,
	prompt_entry   INTEGER,          -- the first message a person wrote: the title when no event gave one
	prompt         TEXT NOT NULL,    -- its text, cut to views.PromptBytes
	prompt_cut     INTEGER NOT NULL, -- 1 if it was cut: a list reads the entry for the title
	model          TEXT NOT NULL,    -- the last run's that names one
	model_entry    INTEGER
);
-- The list's order, most recently written first, then by name, and its
-- --since: one index range, read a page at a time.
CREATE INDEX sessions_recent ON sessions (last_ns DESC, tape);
-- The tapes of imported sessions that are no subagent or fork, by the id
-- a subagent's tape names its parent by.
CREATE INDEX sessions_imported ON sessions (source, session_id, tape) WHERE session_id <> '' AND parent_session = '';
`

// columns are the stored columns of a row, in the order row.args gives
// them.
const columns = `tape, last_ns, last_seq, last_folder, first_ns, first_seq, entries, anchors, start_seq, start_folder,
	source, session_id, parent_session, start_cwd, start_branch,
	cwd, cwd_entry, branch, branch_entry, title, title_entry, prompt_entry, prompt, prompt_cut, model, model_entry`

var statements = map[string]string{
	"put":    `INSERT OR REPLACE INTO sessions (` + columns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"delete": `DELETE FROM sessions WHERE tape = ?`,
}

// Begin implements views.Table.
func (Table) Begin(tx views.Tx) views.Pass {
	return &pass{tx: tx, stmts: stmts.New(tx, statements), folds: map[string]*fold{}, refold: map[string]bool{}}
}

// pass keeps the sessions rows through one pass of the projector.
type pass struct {
	tx     views.Tx
	stmts  *stmts.Cache
	folds  map[string]*fold // per tape, the entries added since the last Settle
	refold map[string]bool  // tapes that lost entries: folded again from the table at Settle
}

// Added folds the entry into its tape's fold, unless the tape is to be
// folded again whole.
func (p *pass) Added(_ context.Context, e views.Added) error {
	if p.refold[e.Tape] {
		return nil
	}
	f := p.folds[e.Tape]
	if f == nil {
		f = &fold{}
		p.folds[e.Tape] = f
	}
	f.add(entryOf(e))
	return nil
}

// Removing marks the tapes of the entries for folding again.
func (p *pass) Removing(ctx context.Context, where string, args ...any) error {
	rows, err := p.tx.QueryContext(ctx, `SELECT DISTINCT tape FROM entries WHERE `+where, args...)
	if err != nil {
		return fmt.Errorf("find the tapes of removed entries: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var tape string
		if err := rows.Scan(&tape); err != nil {
			return err
		}
		p.mark(tape)
	}
	return rows.Err()
}

func (p *pass) Changed(tape string, _ views.Place) { p.mark(tape) }

func (p *pass) mark(tape string) {
	p.refold[tape] = true
	delete(p.folds, tape)
}

func (p *pass) DropTape(ctx context.Context, tape string) error {
	delete(p.refold, tape)
	delete(p.folds, tape)
	_, err := p.stmts.Exec(ctx, "delete", tape)
	return err
}

// Backlog is the tapes waiting: a rebuild settles every settleEvery of
// them, so that it holds the folds of a thousand tapes, not of all.
func (p *pass) Backlog() int { return len(p.folds) + len(p.refold) }

// Settle writes the rows of the tapes the pass touched.
func (p *pass) Settle(ctx context.Context) error {
	rows, err := p.settled(ctx)
	if err != nil {
		return fmt.Errorf("keep the sessions view: %w", err)
	}
	clear(p.folds)
	clear(p.refold)
	for _, tape := range slices.Sorted(maps.Keys(rows)) {
		r := rows[tape]
		if r.empty() {
			_, err = p.stmts.Exec(ctx, "delete", tape)
		} else {
			_, err = p.stmts.Exec(ctx, "put", r.args()...)
		}
		if err != nil {
			return fmt.Errorf("keep the session of tape %s: %w", tape, err)
		}
	}
	return nil
}

// settled computes the rows of the tapes the pass touched.
func (p *pass) settled(ctx context.Context) (map[string]*row, error) {
	rows := map[string]*row{}
	for _, tape := range slices.Sorted(maps.Keys(p.refold)) {
		f, err := p.foldTable(ctx, tape)
		if err != nil {
			return nil, fmt.Errorf("fold tape %s: %w", tape, err)
		}
		rows[tape] = &row{tape: tape, fold: f}
	}
	stored, err := p.load(ctx, slices.Sorted(maps.Keys(p.folds)))
	if err != nil {
		return nil, err
	}
	for tape, f := range p.folds {
		r := stored[tape]
		if r == nil {
			r = &row{tape: tape}
		}
		r.merge(*f)
		rows[tape] = r
	}
	return rows, p.loadStarts(ctx, rows)
}

// foldTable folds every entry of the tape in the table.
func (p *pass) foldTable(ctx context.Context, tape string) (fold, error) {
	var f fold
	rows, err := p.tx.QueryContext(ctx, `SELECT rowid, kind, anchor_seq, folder, eff_time, file, line, time_ns, facts FROM entries WHERE tape = ?`, tape)
	if err != nil {
		return f, err
	}
	defer rows.Close()
	for rows.Next() {
		var e entry
		var facts sql.NullString
		if err := rows.Scan(&e.rowid, &e.kind, &e.place.Seq, &e.place.Folder, &e.place.Eff, &e.place.File, &e.place.Line, &e.timeNS, &facts); err != nil {
			return f, err
		}
		if e.facts, err = views.DecodeFacts(facts.String); err != nil {
			return f, fmt.Errorf("read the facts of an entry: %w", err)
		}
		f.add(e)
	}
	return f, rows.Err()
}

// loadStarts reads, in one query, the first anchor's state of each row
// whose first anchor folder is not the one its state was read from (a
// folder without an anchor entry, its id empty, is no anchor). The
// first anchor is found again by tape, not named by folder: a folder's
// name need not be UTF-8, which the JSON of json_each would not carry.
func (p *pass) loadStarts(ctx context.Context, rows map[string]*row) error {
	var want []string
	for _, r := range rows {
		if !r.empty() && r.start != r.stateFrom {
			want = append(want, r.tape)
			r.state, r.stateFrom = startState{}, r.start
		}
	}
	if len(want) == 0 {
		return nil
	}
	slices.Sort(want)
	arg, err := json.Marshal(want)
	if err != nil {
		return err
	}
	found, err := p.tx.QueryContext(ctx, `SELECT a.tape, a.payload FROM json_each(?) j JOIN anchors a ON a.tape = j.value
		AND a.folder = (SELECT folder FROM anchors WHERE tape = j.value AND id <> '' ORDER BY seq, folder LIMIT 1)`, string(arg))
	if err != nil {
		return fmt.Errorf("read first anchors: %w", err)
	}
	defer found.Close()
	for found.Next() {
		var tape, payload string
		if err := found.Scan(&tape, &payload); err != nil {
			return err
		}
		rows[tape].state = parseStart(payload)
	}
	return found.Err()
}

// startState is what a tape's first anchor says of an imported session:
// the agent that recorded it, its id there and its parent's; and the
// working directory and branch it started in, for a tape whose entries
// name none.
type startState struct {
	source, sessionID, parentSession, cwd, branch string
}

func parseStart(payload string) startState {
	var a struct {
		State struct {
			Source        string `json:"source"`
			SessionID     string `json:"session_id"`
			ParentSession string `json:"parent_session"`
			CWD           string `json:"cwd"`
			Branch        string `json:"git_branch"`
		} `json:"state"`
	}
	if json.Unmarshal([]byte(payload), &a) != nil { // any field of another type: none is taken, as before
		return startState{}
	}
	s := a.State
	return startState{source: s.Source, sessionID: s.SessionID, parentSession: s.ParentSession, cwd: s.CWD, branch: s.Branch}
}

// row is a tape's sessions row.
type row struct {
	tape string
	fold
	state     startState
	stateFrom span // the start folder state was read from
}

func (r *row) args() []any {
	return []any{r.tape, r.last.ns, r.last.seq, r.last.folder, r.first.ns, r.first.seq, r.entries, r.anchors, r.start.seq, r.start.folder,
		r.state.source, r.state.sessionID, r.state.parentSession, r.state.cwd, r.state.branch,
		r.cwd.value, r.cwd.ref(), r.branch.value, r.branch.ref(), r.title.value, r.title.ref(), r.prompt.ref(), r.prompt.value, r.prompt.cut, r.model.value, r.model.ref()}
}

// ref is the mark's entry for a *_entry column: NULL when it has none.
func (m mark) ref() sql.NullInt64 { return sql.NullInt64{Int64: m.entry, Valid: m.ok} }

// markColumns reads a kept entry's place with its row.
const markColumns = `%[1]s.rowid, %[1]s.anchor_seq, %[1]s.folder, %[1]s.eff_time, %[1]s.file, %[1]s.line`

// load reads the stored rows of the tapes, and the places of the entries
// they keep, in one query.
func (p *pass) load(ctx context.Context, tapes []string) (map[string]*row, error) {
	out := map[string]*row{}
	if len(tapes) == 0 {
		return out, nil
	}
	arg, err := json.Marshal(tapes)
	if err != nil {
		return nil, err
	}
	marks := []string{"cwd", "branch", "title", "prompt", "model"}
	q := `SELECT s.tape, s.last_ns, s.last_seq, s.last_folder, s.first_ns, s.first_seq, s.entries, s.anchors, s.start_seq, s.start_folder,
		s.source, s.session_id, s.parent_session, s.start_cwd, s.start_branch, s.cwd, s.branch, s.title, s.prompt, s.prompt_cut, s.model`
	from := ` FROM sessions s`
	for _, m := range marks {
		q += `, ` + fmt.Sprintf(markColumns, m)
		from += fmt.Sprintf(` LEFT JOIN entries %[1]s ON %[1]s.rowid = s.%[1]s_entry`, m)
	}
	rows, err := p.tx.QueryContext(ctx, q+from+` WHERE s.tape IN (SELECT value FROM json_each(?))`, string(arg))
	if err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, fmt.Errorf("read sessions: %w", err)
		}
		out[r.tape] = r
	}
	return out, rows.Err()
}

// scanRow reads a row as load selects it.
func scanRow(rows *sql.Rows) (*row, error) {
	r := &row{}
	var kept [5]markScan
	var cwd, branch, title, prompt, model string
	var promptCut bool
	dest := []any{&r.tape, &r.last.ns, &r.last.seq, &r.last.folder, &r.first.ns, &r.first.seq, &r.entries, &r.anchors, &r.start.seq, &r.start.folder,
		&r.state.source, &r.state.sessionID, &r.state.parentSession, &r.state.cwd, &r.state.branch, &cwd, &branch, &title, &prompt, &promptCut, &model}
	for i := range kept {
		dest = append(dest, kept[i].dest()...)
	}
	if err := rows.Scan(dest...); err != nil {
		return nil, err
	}
	r.first.ok, r.last.ok, r.start.ok = true, true, true
	r.stateFrom = r.start
	r.cwd, r.branch, r.title = kept[0].mark(cwd), kept[1].mark(branch), kept[2].mark(title)
	r.prompt, r.model = kept[3].mark(prompt), kept[4].mark(model)
	r.prompt.cut = promptCut
	return r, nil
}

// markScan is a kept entry as load reads it: NULLs when there is none.
type markScan struct {
	rowid, seq, eff, line sql.NullInt64
	folder, file          sql.NullString
}

func (m *markScan) dest() []any {
	return []any{&m.rowid, &m.seq, &m.folder, &m.eff, &m.file, &m.line}
}

func (m *markScan) mark(value string) mark {
	if !m.rowid.Valid {
		return mark{}
	}
	return mark{ok: true, value: value, entry: m.rowid.Int64,
		at: views.Place{Seq: m.seq.Int64, Folder: m.folder.String, Eff: m.eff.Int64, File: m.file.String, Line: int(m.line.Int64)}}
}
