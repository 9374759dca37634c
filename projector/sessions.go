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

// The sessions view: the tapes as a list of sessions (tape tapes), and a
// tape's chat messages (tape messages). It has no tables of its own: it
// queries the entries, the anchors and the runs. A list's count, its rows
// and the entries they point at are read in one snapshot: a watcher's
// pass in between could otherwise make the total disagree with the page,
// or hand a rowid to another entry.

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
func (p *Projector) Messages(ctx context.Context, tape string, pg views.Page) (msgs []tapelog.Entry, total int, errs []error, err error) {
	err = p.snapshot(ctx, func(q querier) error {
		msgs, total, errs, err = p.messages(ctx, q, tape, pg)
		return err
	})
	return msgs, total, errs, err
}

func (p *Projector) messages(ctx context.Context, q querier, tape string, pg views.Page) ([]tapelog.Entry, int, []error, error) {
	var total int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM entries WHERE tape = ? AND kind = 'message'`, tape).Scan(&total); err != nil {
		return nil, 0, nil, fmt.Errorf("count messages: %w", err)
	}
	limit, largs := pg.SQL()
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
