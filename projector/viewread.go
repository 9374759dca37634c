package projector

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// Queries of the view tables. Lists page as a ledger query does: a page
// (Limit, Offset) and the total the filter matches. A list's count, its
// rows and the entries they point at are read in one transaction, one
// snapshot: a watcher's pass in between could otherwise make the total
// disagree with the page, or hand a rowid to another entry.

// querier is what reads need of a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// snapshot runs fn in a read transaction.
func (p *Projector) snapshot(ctx context.Context, fn func(q querier) error) error {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // it only read
	return fn(tx)
}

// Page is a slice of a list: Limit 0 means no limit.
type Page struct{ Limit, Offset int }

func (pg Page) sql() (string, []any) {
	if pg.Limit <= 0 {
		return ` LIMIT -1 OFFSET ?`, []any{pg.Offset}
	}
	return ` LIMIT ? OFFSET ?`, []any{pg.Limit, pg.Offset}
}

// CallFilter selects calls.
type CallFilter struct {
	Tape   string // "" for every tape
	Status string // pending, completed, failed; "" for all
	Name   string // the tool's name; "" for all
	Page
}

// Call is one tool call: a row of the calls view, with its arguments and
// result read from the files.
type Call struct {
	ID, Tape, Anchor, Name string
	Status                 string
	Arguments              json.RawMessage // nil when the call has none
	Result                 json.RawMessage // nil while pending; the whole payload of an error entry that answered it
	CalledAt, AnsweredAt   string          // the entries' dates; "" for none
	DurationMS             *int64
}

// Calls returns the calls the filter selects, newest first (tapes in
// reverse order of name), and how many
// it selects in all. A call or result whose line changed since it was
// indexed comes back in errs, and the call without it.
func (p *Projector) Calls(ctx context.Context, f CallFilter) (calls []Call, total int, errs []error, err error) {
	err = p.snapshot(ctx, func(q querier) error {
		calls, total, errs, err = p.calls(ctx, q, f)
		return err
	})
	return calls, total, errs, err
}

func (p *Projector) calls(ctx context.Context, q querier, f CallFilter) (calls []Call, total int, errs []error, err error) {
	var c conds
	if f.Tape != "" {
		c.where, c.args = append(c.where, "c.tape = ?"), append(c.args, f.Tape)
	}
	c.in("c.status", []string{f.Status}, f.Status != "")
	c.in("c.name", []string{f.Name}, f.Name != "")
	where := ""
	if len(c.where) > 0 {
		where = " WHERE " + strings.Join(c.where, " AND ")
	}
	if total, err = countCalls(ctx, q, f, where, c.args); err != nil {
		return nil, 0, nil, fmt.Errorf("count calls: %w", err)
	}
	limit, largs := f.Page.sql()
	rows, err := q.QueryContext(ctx, `SELECT c.tape, c.call_id, c.name, c.status, c.idx, c.entry, c.result_entry, c.result_idx, c.called_ns, c.answered_ns
		FROM calls c`+where+` ORDER BY c.tape DESC, c.anchor_seq DESC, c.folder DESC, c.eff_time DESC, c.file DESC, c.line DESC, c.idx DESC`+limit,
		append(c.args, largs...)...)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("query calls: %w", err)
	}
	type ref struct {
		call               Call
		idx, resultIdx     int
		entry, resultEntry int64
		calledNS, answerNS sql.NullInt64
		hasResult          bool
	}
	var refs []ref
	for rows.Next() {
		var r ref
		var resultEntry, resultIdx sql.NullInt64
		if err := rows.Scan(&r.call.Tape, &r.call.ID, &r.call.Name, &r.call.Status, &r.idx, &r.entry, &resultEntry, &resultIdx, &r.calledNS, &r.answerNS); err != nil {
			rows.Close()
			return nil, 0, nil, err
		}
		r.resultEntry, r.resultIdx, r.hasResult = resultEntry.Int64, int(resultIdx.Int64), resultEntry.Valid
		refs = append(refs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, nil, err
	}
	loader := newLineLoader(p.ws)
	defer loader.close()
	for _, r := range refs {
		call := r.call
		e, err := p.entryAt(ctx, q, loader, r.entry)
		if err != nil {
			errs = append(errs, err)
		}
		call.Anchor, call.CalledAt = e.Pos.Anchor, e.Date
		call.Arguments = callArguments(e.Payload, r.idx)
		if r.hasResult {
			res, err := p.entryAt(ctx, q, loader, r.resultEntry)
			if err != nil {
				errs = append(errs, err)
			}
			call.AnsweredAt = res.Date
			call.Result = resultAt(res.Payload, r.resultIdx)
		}
		if r.calledNS.Valid && r.answerNS.Valid {
			ms := (r.answerNS.Int64 - r.calledNS.Int64) / int64(time.Millisecond)
			call.DurationMS = &ms
		}
		calls = append(calls, call)
	}
	return calls, total, errs, nil
}

// Orphan is a tool result whose call id no waiting call had: it answers
// nothing (views.Orphan).
type Orphan struct {
	Tape, CallID string
	Path         string // the file of its tool_result entry, relative to the workspace
	Line         int
	Index        int // the result's position in the entry
}

// OrphanResults returns up to limit of the orphaned results of a tape
// ("" for every tape), in tape order, and how many there are.
func (p *Projector) OrphanResults(ctx context.Context, tape string, limit int) (out []Orphan, total int, err error) {
	where, args := "", []any{}
	if tape != "" {
		where, args = " WHERE tape = ?", append(args, tape)
	}
	if err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM orphan_results`+where, args...).Scan(&total); err != nil || total == 0 {
		return nil, total, err
	}
	rows, err := p.db.QueryContext(ctx, `SELECT tape, folder, file, line, idx, call_id FROM orphan_results`+where+
		` ORDER BY tape, anchor_seq, folder, eff_time, file, line, idx LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, 0, fmt.Errorf("query orphaned results: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var o Orphan
		var folder, file string
		if err := rows.Scan(&o.Tape, &folder, &file, &o.Line, &o.Index, &o.CallID); err != nil {
			return nil, 0, err
		}
		o.Path = tapelog.Position{Tape: o.Tape, Folder: folder, File: file}.Path()
		out = append(out, o)
	}
	return out, total, rows.Err()
}

// countCalls counts the calls a filter selects: from call_counts, kept
// with calls, unless it filters on the tool's name.
func countCalls(ctx context.Context, q querier, f CallFilter, where string, args []any) (int, error) {
	var total int
	if f.Name != "" {
		err := q.QueryRowContext(ctx, `SELECT count(*) FROM calls c`+where, args...).Scan(&total)
		return total, err
	}
	var c conds
	if f.Tape != "" {
		c.where, c.args = append(c.where, "tape = ?"), append(c.args, f.Tape)
	}
	c.in("status", []string{f.Status}, f.Status != "")
	query := `SELECT coalesce(sum(n), 0) FROM call_counts`
	if len(c.where) > 0 {
		query += " WHERE " + strings.Join(c.where, " AND ")
	}
	err := q.QueryRowContext(ctx, query, c.args...).Scan(&total)
	return total, err
}

// entryAt reads the entry with the given rowid; on an error it returns
// what the index knows of it, without its payload.
func (p *Projector) entryAt(ctx context.Context, q querier, loader *lineLoader, rowid int64) (tapelog.Entry, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+entryColumns+` FROM entries e JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder WHERE e.rowid = ?`, rowid)
	if err != nil {
		return tapelog.Entry{}, fmt.Errorf("query entry: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return tapelog.Entry{}, fmt.Errorf("entry %d is not in the index; run 'tape reindex'", rowid)
	}
	l, err := scanLocated(rows)
	if err != nil {
		return tapelog.Entry{}, err
	}
	e, err := loader.load(l)
	if err != nil {
		e.Payload = nil
	}
	return e, err
}

// callArguments picks the arguments of the idx-th call of a tool_call
// payload (views.ParseCall).
func callArguments(payload json.RawMessage, idx int) json.RawMessage {
	calls := views.Calls(payload)
	if idx < 0 || idx >= len(calls) {
		return nil
	}
	return views.ParseCall(calls[idx]).Arguments
}

// resultAt picks the idx-th result of a tool_result payload, or the whole
// payload of an error entry (idx -1).
func resultAt(payload json.RawMessage, idx int) json.RawMessage {
	if idx < 0 {
		return payload
	}
	var p struct {
		Results []json.RawMessage `json:"results"`
	}
	if json.Unmarshal(payload, &p) != nil || idx >= len(p.Results) {
		return nil
	}
	return p.Results[idx]
}

// UsageRow is the token usage of one group of run events. Only the fields
// of the grouping are set: Tape (by tape), Tape, AnchorSeq and Anchor (by
// anchor), Model (by model) or Day (by day, UTC, "" for runs without a
// date).
type UsageRow struct {
	Tape, Anchor, Model, Day string
	AnchorSeq                int64
	Runs                     int // run events, each usage id once
	WithUsage                int // of them, those that reported usage
	Input, Output, Total     int64
	CacheCreation, CacheRead int64
}

// UsageFilter selects run events and how to group them.
type UsageFilter struct {
	By   string // tape, anchor, model, day
	Tape string // "" for every tape
	Page
}

// usageGroups are the columns each grouping selects, groups and orders by.
var usageGroups = map[string]string{
	"tape":   `r.tape, 0, '', '', ''`,
	"anchor": `r.tape, r.anchor_seq, coalesce(a.name, r.folder), '', ''`,
	"model":  `'', 0, '', r.model, ''`,
	"day":    `'', 0, '', '', coalesce(strftime('%Y-%m-%d', r.time_ns / 1000000000, 'unixepoch'), '')`,
}

// Usage sums the token usage of run events by f.By, in the order of the
// groups (anchors in tape order, days in time order), and says how many
// groups there are in all. Groups are few (tapes, anchors, models, days):
// they are all summed in one query and paged here.
func (p *Projector) Usage(ctx context.Context, f UsageFilter) ([]UsageRow, int, error) {
	q := p.db
	cols, ok := usageGroups[f.By]
	if !ok {
		return nil, 0, fmt.Errorf("usage by %q: want tape, anchor, model or day", f.By)
	}
	// Of the runs that share a usage id, one counts (views.go).
	from, where, args := ` FROM runs r`, ` WHERE r.counted`, []any{}
	if f.By == "anchor" {
		from += ` LEFT JOIN anchors a ON a.tape = r.tape AND a.folder = r.folder`
	}
	if f.Tape != "" {
		where, args = where+` AND r.tape = ?`, append(args, f.Tape)
	}
	rows, err := q.QueryContext(ctx, `SELECT `+cols+`, count(*), sum(r.has_usage), sum(r.input_tokens), sum(r.output_tokens), sum(r.total_tokens),
		sum(r.cache_creation_tokens), sum(r.cache_read_tokens)`+
		from+where+` GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("query usage: %w", err)
	}
	defer rows.Close()
	var all []UsageRow
	for rows.Next() {
		var u UsageRow
		if err := rows.Scan(&u.Tape, &u.AnchorSeq, &u.Anchor, &u.Model, &u.Day, &u.Runs, &u.WithUsage, &u.Input, &u.Output, &u.Total,
			&u.CacheCreation, &u.CacheRead); err != nil {
			return nil, 0, err
		}
		all = append(all, u)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	lo, hi := min(f.Offset, len(all)), len(all)
	if f.Limit > 0 {
		hi = min(lo+f.Limit, len(all))
	}
	return all[lo:hi], len(all), nil
}

// Session is a tape as a list of sessions shows it.
type Session struct {
	Name, Title, CWD string
	Branch, Model    string
	First, Last      time.Time // zero when no entry has a date
	Entries, Anchors int
	// What the tape's first anchor says of an imported session: the
	// agent that recorded it ("claude", "codex"), its id there, and the
	// tape of the session it is a subagent or a fork of ("" for none).
	Source, SessionID, Parent string
	parentSession             string
}

// Sessions describes every tape in the index, most recently active first.
// Title is the last title an agent gave it (a title event), else the text
// of its first user message that a person wrote; CWD the first working
// directory an entry's meta names, Branch the last git branch; Model the
// model of its last run that names one.
func (p *Projector) Sessions(ctx context.Context) (out []Session, err error) {
	err = p.snapshot(ctx, func(q querier) error {
		out, err = p.sessions(ctx, q)
		return err
	})
	bySession := map[string]string{}
	for _, s := range out {
		if s.SessionID != "" && s.parentSession == "" {
			bySession[s.Source+"/"+s.SessionID] = s.Name
		}
	}
	for i, s := range out {
		if s.parentSession != "" {
			out[i].Parent = bySession[s.Source+"/"+s.parentSession]
		}
	}
	return out, err
}

func (p *Projector) sessions(ctx context.Context, q querier) ([]Session, error) {
	names, err := tapeNames(ctx, q)
	if err != nil {
		return nil, err
	}
	loader := newLineLoader(p.ws)
	defer loader.close()
	var out []Session
	for _, name := range names {
		s, err := p.session(ctx, q, loader, name)
		if err != nil {
			return nil, fmt.Errorf("describe tape %s: %w", name, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func (p *Projector) session(ctx context.Context, q querier, loader *lineLoader, name string) (Session, error) {
	s := Session{Name: name}
	var first, last sql.NullInt64
	var lastSeq int64
	var lastFolder string
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM anchors WHERE tape = ?`, name).Scan(&s.Anchors); err != nil {
		return s, err
	}
	if err := q.QueryRowContext(ctx, `SELECT seq, folder FROM anchors WHERE tape = ? ORDER BY seq DESC, folder DESC LIMIT 1`, name).Scan(&lastSeq, &lastFolder); err != nil {
		return s, err
	}
	// The first date is the first anchor's (a tape starts with one); the
	// last is the latest in the newest folder, where agents write.
	if err := q.QueryRowContext(ctx, `SELECT min(time_ns) FROM entries WHERE tape = ? AND anchor_seq = (SELECT min(seq) FROM anchors WHERE tape = ?)`, name, name).Scan(&first); err != nil {
		return s, err
	}
	if err := q.QueryRowContext(ctx, `SELECT max(time_ns) FROM entries WHERE tape = ? AND anchor_seq = ? AND folder = ?`, name, lastSeq, lastFolder).Scan(&last); err != nil {
		return s, err
	}
	if first.Valid {
		s.First = time.Unix(0, first.Int64).UTC()
	}
	if last.Valid {
		s.Last = time.Unix(0, last.Int64).UTC()
	}
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM entries WHERE tape = ? AND file_id <> 0`, name).Scan(&s.Entries); err != nil {
		return s, err
	}
	if err := sessionFacts(ctx, q, &s); err != nil {
		return s, err
	}
	if err := p.sessionTitle(ctx, q, loader, &s); err != nil {
		return s, err
	}
	err := q.QueryRowContext(ctx, `SELECT model FROM runs WHERE tape = ? AND model <> ''
		ORDER BY anchor_seq DESC, folder DESC, time_ns DESC LIMIT 1`, name).Scan(&s.Model)
	if err != nil && err != sql.ErrNoRows {
		return s, err
	}
	return s, sessionStart(ctx, q, &s)
}

// sessionFacts takes, in one pass over the tape's entries whose facts
// name them, the first working directory, the last git branch and the
// last title an agent gave the session.
func sessionFacts(ctx context.Context, q querier, s *Session) error {
	rows, err := q.QueryContext(ctx, `SELECT facts FROM entries WHERE tape = ?
		AND (facts LIKE '%"cwd":%' OR facts LIKE '%"branch":%' OR facts LIKE '%"title":%')
		ORDER BY anchor_seq, folder, eff_time, file, line`, s.Name)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			return err
		}
		f, err := views.DecodeFacts(text)
		if err != nil {
			return fmt.Errorf("read the facts of an entry: %w", err)
		}
		s.CWD = cmp.Or(s.CWD, f.CWD)
		s.Branch, s.Title = cmp.Or(f.Branch, s.Branch), cmp.Or(f.Title, s.Title)
	}
	return rows.Err()
}

// sessionStart reads what the tape's first anchor says of an imported
// session: its source, its id and its parent's, and the working directory
// and branch it started in, for a tape whose entries name none.
func sessionStart(ctx context.Context, q querier, s *Session) error {
	var start string
	if err := q.QueryRowContext(ctx, `SELECT payload FROM anchors WHERE tape = ? ORDER BY seq, folder LIMIT 1`, s.Name).Scan(&start); err != nil {
		return err
	}
	var a struct {
		State struct {
			Source        string `json:"source"`
			SessionID     string `json:"session_id"`
			ParentSession string `json:"parent_session"`
			CWD           string `json:"cwd"`
			Branch        string `json:"git_branch"`
		} `json:"state"`
	}
	if json.Unmarshal([]byte(start), &a) == nil {
		s.Source, s.SessionID, s.parentSession = a.State.Source, a.State.SessionID, a.State.ParentSession
		s.CWD, s.Branch = cmp.Or(s.CWD, a.State.CWD), cmp.Or(s.Branch, a.State.Branch)
	}
	return nil
}

// sessionTitle is, unless an agent gave the tape a title, its first
// message from a user that meta does not mark as synthetic.
func (p *Projector) sessionTitle(ctx context.Context, q querier, loader *lineLoader, s *Session) error {
	if s.Title != "" {
		return nil
	}
	var title sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT rowid FROM entries WHERE tape = ? AND kind = 'message' AND facts LIKE '{"role":"user"%'
		AND facts NOT LIKE '{"role":"user","synthetic":true%'
		ORDER BY anchor_seq, folder, eff_time, file, line LIMIT 1`, s.Name).Scan(&title)
	if err != nil && err != sql.ErrNoRows {
		return err
	}
	if title.Valid {
		if e, err := p.entryAt(ctx, q, loader, title.Int64); err == nil {
			s.Title = MessageText(e.Payload)
		}
	}
	return nil
}

// MessageText is the text of a chat message payload: its string content,
// or the text of its parts.
func MessageText(payload json.RawMessage) string {
	var p map[string]any
	if json.Unmarshal(payload, &p) != nil {
		return ""
	}
	var b strings.Builder
	collectStrings(&b, p["content"], "", false)
	return strings.TrimSpace(b.String())
}

// Messages returns the chat messages of a tape in tape order, a page of
// them, and how many there are.
func (p *Projector) Messages(ctx context.Context, tape string, pg Page) (msgs []tapelog.Entry, total int, errs []error, err error) {
	err = p.snapshot(ctx, func(q querier) error {
		msgs, total, errs, err = p.messages(ctx, q, tape, pg)
		return err
	})
	return msgs, total, errs, err
}

func (p *Projector) messages(ctx context.Context, q querier, tape string, pg Page) ([]tapelog.Entry, int, []error, error) {
	var total int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM entries WHERE tape = ? AND kind = 'message'`, tape).Scan(&total); err != nil {
		return nil, 0, nil, fmt.Errorf("count messages: %w", err)
	}
	limit, largs := pg.sql()
	rows, err := q.QueryContext(ctx, `SELECT `+entryColumns+` FROM entries e JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder
		WHERE e.tape = ? AND e.kind = 'message' ORDER BY e.anchor_seq, e.folder, e.eff_time, e.file, e.line`+limit, append([]any{tape}, largs...)...)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("query messages: %w", err)
	}
	var found []located
	for rows.Next() {
		l, err := scanLocated(rows)
		if err != nil {
			rows.Close()
			return nil, 0, nil, err
		}
		found = append(found, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, nil, err
	}
	entries, errs, err := p.load(ctx, found)
	return entries, total, errs, err
}

// LastRun returns the tape's latest run event, in tape order, that
// reported token usage, read from its file; ok is false when there is none.
func (p *Projector) LastRun(ctx context.Context, tape string) (e tapelog.Entry, ok bool, err error) {
	q := p.db
	var rowid int64
	err = q.QueryRowContext(ctx, `SELECT r.entry FROM runs r JOIN entries e ON e.rowid = r.entry
		WHERE r.tape = ? AND r.has_usage
		ORDER BY e.anchor_seq DESC, e.folder DESC, e.eff_time DESC, e.file DESC, e.line DESC LIMIT 1`, tape).Scan(&rowid)
	if err == sql.ErrNoRows {
		return e, false, nil
	}
	if err != nil {
		return e, false, fmt.Errorf("query runs: %w", err)
	}
	loader := newLineLoader(p.ws)
	defer loader.close()
	e, err = p.entryAt(ctx, q, loader, rowid)
	return e, err == nil, err
}
