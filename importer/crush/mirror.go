package crush

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"time"

	"github.com/tape-dev/tape/importer/mirrorfile"
	"github.com/tape-dev/tape/internal/rawjson"
)

// The mirror of a database is a folder tape owns (importer.mirrorDir)
// holding <session id>.jsonl for each session, and state.json, which
// says how far each was exported. A mirror file's lines are the rows of
// its session, each a JSON object of "table" ("sessions", "messages" or
// "files") and the row's columns but those that are NULL, parts and
// todos as the JSON they hold:
//
//	{"table":"sessions","id":...,"parent_session_id":...,"title":...,"message_count":...,"prompt_tokens":...,"completion_tokens":...,"cost":...,"summary_message_id":...,"todos":[...],"updated_at":...,"created_at":...,"db":...,"project":...,"last_model":...,"last_provider":...}
//	{"table":"messages","id":...,"session_id":...,"role":...,"parts":[...],"model":...,"created_at":...,"updated_at":...,"finished_at":...,"provider":...,"is_summary_message":...}
//	{"table":"files","id":...,"session_id":...,"path":...,"content":...,"version":...,"created_at":...,"updated_at":...}
//
// The session's line comes first, and again whenever a column of it
// changes but updated_at and message_count (its title, token counts,
// cost, todos, summary), or the model of its last reply (last_model,
// which the export adds, with the database's path and the project's).
// Then its messages and files, in the order of (created_at, rowid), a
// message before the files of its second: Crush's times are in seconds,
// and its rowids grow with each insert. A message is exported once
// settled: once its parts hold a finish part (Crush adds one when a
// reply ends, and to every message of the user and of tools as it makes
// it) or finished_at is set, or its session has been quiet for the
// settle time (a reply never finished is then kept as it was left).
// Rows after the first unsettled message wait for it: a tool's result
// is written before the reply that called it is finished.

// mirrorState is what state.json keeps: the database's files as the last
// export found them, the largest rowids it found, and each session's
// cursor.
type mirrorState struct {
	mirrorfile.Head                    // Pending: a session had messages not settled yet
	Version         int64              `json:"version,omitempty"` // goose's migration version
	Rowids          rowids             `json:"rowids"`
	Sessions        map[string]*cursor `json:"sessions"`
}

// rowids are the largest rowids of the messages and the files as an
// export found them: a session none of whose rows has a larger one since,
// whose row is as it was and which had nothing pending, has nothing new,
// and is not read again. (A message's update matters only while it is
// pending; a deleted row's rowid that is taken again is found by the
// order of created_at.)
type rowids struct {
	Messages int64 `json:"messages"`
	Files    int64 `json:"files"`
}

// cursor is how far a session was exported.
type cursor struct {
	Message position `json:"message"` // the last message exported
	File    position `json:"file"`    // the last file version exported
	Row     string   `json:"row"`     // a sum of the session's row but updated_at and message_count
	Line    string   `json:"line"`    // a sum of the last session line's members; "" before the first
	Pending bool     `json:"pending,omitempty"`
}

// position is a row's place in its table's order.
type position struct {
	Created int64 `json:"created"`
	Rowid   int64 `json:"rowid"`
}

// Mirror brings the mirror in dir up to date with the database db.
func (Source) Mirror(ctx context.Context, db, dir string, now time.Time, settle time.Duration) error {
	return mirrorfile.Refresh(dir, db, func(st *mirrorState) error { return export(ctx, db, dir, st, now, settle) })
}

// Sessions counts the sessions in the database db.
func (Source) Sessions(ctx context.Context, db string) (int, error) {
	conn, err := sql.Open("sqlite", mirrorfile.ReadOnly(db))
	if err != nil {
		return 0, fmt.Errorf("open: %w", err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the sessions: %w", err)
	}
	return n, nil
}

// export reads the database in one read transaction and appends what is
// new to the mirror files.
func export(ctx context.Context, db, dir string, st *mirrorState, now time.Time, settle time.Duration) error {
	conn, err := sql.Open("sqlite", mirrorfile.ReadOnly(db))
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a read transaction: nothing to keep
	l, err := readLayout(ctx, tx)
	if err != nil {
		return err
	}
	st.Version = l.version
	q, err := prepare(ctx, tx, l)
	if err != nil {
		return err
	}
	defer q.close()
	sessions, err := readRows(ctx, q.sessions)
	if err != nil {
		return fmt.Errorf("read the sessions: %w", err)
	}
	dirty, ids, err := written(ctx, tx, l, st.Rowids)
	if err != nil {
		return err
	}
	st.Rowids = ids
	e := exporter{q: q, dir: dir, st: st, db: db, project: projectOf(db), now: now, settle: settle, dirty: dirty}
	for _, s := range sessions {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := e.session(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// written reads the largest rowids of the messages and the files, and the
// sessions that have rows of larger rowids than since.
func written(ctx context.Context, tx *sql.Tx, l layout, since rowids) (map[string]bool, rowids, error) {
	dirty := map[string]bool{}
	var now rowids
	for _, t := range []struct {
		table string
		since int64
		max   *int64
	}{{"messages", since.Messages, &now.Messages}, {"files", since.Files, &now.Files}} {
		if !l.has[t.table] {
			continue
		}
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(max(rowid), 0) FROM `+t.table).Scan(t.max); err != nil {
			return nil, now, fmt.Errorf("read the %s: %w", t.table, err)
		}
		rows, err := tx.QueryContext(ctx, `SELECT DISTINCT session_id FROM `+t.table+` WHERE rowid > ?`, t.since)
		if err != nil {
			return nil, now, fmt.Errorf("read the %s: %w", t.table, err)
		}
		for rows.Next() {
			var id sql.NullString
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, now, fmt.Errorf("read the %s: %w", t.table, err)
			}
			dirty[id.String] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, now, fmt.Errorf("read the %s: %w", t.table, err)
		}
	}
	return dirty, now, nil
}

// queries are those an export runs, prepared once.
type queries struct {
	sessions, messages, files, lastModel *sql.Stmt
}

func prepare(ctx context.Context, tx *sql.Tx, l layout) (*queries, error) {
	q := &queries{}
	var err error
	stmt := func(text string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var s *sql.Stmt
		s, err = tx.PrepareContext(ctx, text)
		return s
	}
	q.sessions = stmt(`SELECT rowid, * FROM sessions ORDER BY COALESCE(created_at, 0), rowid`)
	q.messages = stmt(`SELECT rowid, * FROM messages WHERE session_id = ?1
		AND (COALESCE(created_at, 0) > ?2 OR COALESCE(created_at, 0) = ?2 AND rowid > ?3) ORDER BY COALESCE(created_at, 0), rowid`)
	if l.has["files"] {
		q.files = stmt(`SELECT rowid, * FROM files WHERE session_id = ?1
		AND (COALESCE(created_at, 0) > ?2 OR COALESCE(created_at, 0) = ?2 AND rowid > ?3) ORDER BY COALESCE(created_at, 0), rowid`)
	}
	if l.has["messages.model"] {
		provider := "''"
		if l.has["messages.provider"] {
			provider = "COALESCE(provider, '')"
		}
		q.lastModel = stmt(`SELECT COALESCE(model, ''), ` + provider + ` FROM messages WHERE session_id = ? AND role = 'assistant'
			ORDER BY COALESCE(created_at, 0) DESC, rowid DESC LIMIT 1`)
	}
	if err != nil {
		q.close()
		return nil, fmt.Errorf("read the database: %w", err)
	}
	return q, nil
}

func (q *queries) close() {
	for _, s := range []*sql.Stmt{q.sessions, q.messages, q.files, q.lastModel} {
		if s != nil {
			s.Close()
		}
	}
}

// exporter exports the sessions of one database.
type exporter struct {
	q       *queries
	dir     string
	st      *mirrorState
	db      string
	project string
	now     time.Time
	settle  time.Duration
	dirty   map[string]bool // sessions with rows added since the last export
}

// session appends a session's new settled rows to its mirror file, after
// its row when that is new or changed.
func (e *exporter) session(ctx context.Context, s row) error {
	id := s.str("id")
	c := e.st.Sessions[id]
	if c == nil {
		c = &cursor{}
	}
	rowSum := sum(row{cols: s.cols, vals: without(s, "updated_at", "message_count")}, nil)
	if c.Line != "" && !c.Pending && c.Row == rowSum && !e.dirty[id] {
		return nil // nothing added, nothing changed, nothing waiting
	}
	c.Row = rowSum
	msgs, err := readRows(ctx, e.q.messages, id, c.Message.Created, c.Message.Rowid)
	if err != nil {
		return fmt.Errorf("read the messages of session %s: %w", id, err)
	}
	var files []row
	if e.q.files != nil {
		if files, err = readRows(ctx, e.q.files, id, c.File.Created, c.File.Rowid); err != nil {
			return fmt.Errorf("read the files of session %s: %w", id, err)
		}
	}
	var buf bytes.Buffer
	if err := e.sessionLine(ctx, &buf, s, c); err != nil {
		return err
	}
	last := s.int("updated_at")
	for _, m := range msgs {
		last = max(last, m.int("updated_at"), m.int("finished_at"), m.int("created_at"))
	}
	quiet := e.now.Sub(timeOf(last)) >= e.settle
	c.Pending = false
	for len(msgs) > 0 || len(files) > 0 {
		if len(msgs) > 0 && (len(files) == 0 || msgs[0].int("created_at") <= files[0].int("created_at")) {
			m := msgs[0]
			if !quiet && !settled(m) {
				c.Pending = true
				break // its reply may be streaming still; what follows waits for it
			}
			writeRow(&buf, "messages", m, nil)
			c.Message = position{m.int("created_at"), m.rowid}
			msgs = msgs[1:]
			continue
		}
		f := files[0]
		writeRow(&buf, "files", f, nil)
		c.File = position{f.int("created_at"), f.rowid}
		files = files[1:]
	}
	e.st.Pending = e.st.Pending || c.Pending
	if buf.Len() > 0 {
		if err := mirrorfile.Append(filepath.Join(e.dir, mirrorfile.FileName(id)), buf.Bytes()); err != nil {
			return err
		}
	}
	if e.st.Sessions == nil {
		e.st.Sessions = map[string]*cursor{}
	}
	e.st.Sessions[id] = c
	return nil
}

// sessionLine writes the session's row when it is new or changed, with
// the database's path, the project's, and the model of its last reply.
func (e *exporter) sessionLine(ctx context.Context, buf *bytes.Buffer, s row, c *cursor) error {
	var model, provider string
	if e.q.lastModel != nil {
		err := e.q.lastModel.QueryRowContext(ctx, s.str("id")).Scan(&model, &provider)
		if err != nil && err != sql.ErrNoRows {
			return fmt.Errorf("read the model of session %s: %w", s.str("id"), err)
		}
	}
	more := func(o *rawjson.Object) {
		o.Str("db", e.db).StrIf("project", e.project).StrIf("last_model", model).StrIf("last_provider", provider)
	}
	// The sum leaves out what changes with every message.
	line := sum(row{cols: s.cols, vals: without(s, "updated_at", "message_count")}, more)
	if line == c.Line {
		return nil
	}
	writeRow(buf, "sessions", s, more)
	c.Line = line
	return nil
}

// sum is a short sum of r's mirror line, with what more adds.
func sum(r row, more func(o *rawjson.Object)) string {
	var b bytes.Buffer
	writeRow(&b, "", r, more)
	h := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(h[:8])
}

// without is r's values with those of the columns named NULL.
func without(r row, cols ...string) []any {
	vals := append([]any(nil), r.vals...)
	for i, c := range r.cols {
		for _, drop := range cols {
			if c == drop {
				vals[i] = nil
			}
		}
	}
	return vals
}

// settled reports whether Crush finished writing a message: its parts
// hold a finish part (as Go's encoding/json writes them, compact), or it
// has finished_at.
func settled(m row) bool {
	if m.int("finished_at") != 0 {
		return true
	}
	return bytes.Contains([]byte(m.str("parts")), []byte(`"type":"finish"`))
}

// timeOf is a time of Crush's: seconds since 1970 (strftime('%s')), or
// milliseconds where a value is too large for seconds (as the schema's
// comments say, and no Crush wrote).
func timeOf(t int64) time.Time {
	if t > 1e11 {
		return time.UnixMilli(t)
	}
	return time.Unix(t, 0)
}
