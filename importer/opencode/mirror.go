package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tape-dev/tape/importer/mirrorfile"
	"github.com/tape-dev/tape/internal/rawjson"
)

// The mirror of a database is a folder tape owns (importer.mirrorDir)
// holding <session id>.jsonl for each session, and state.json, which
// says how far each was exported. A mirror file's lines are the rows of
// its session, each a JSON object with "table" ("session", "message" or
// "part") and the row's columns, data as the JSON it holds:
//
//	{"table":"session","id":...,"title":...,"directory":...,"parent_id":...,"worktree":...,"time_created":...,"time_updated":...,"db":...}
//	(and "current_state", "recent_progress" where the Kilo CLI wrote them)
//	{"table":"message","id":...,"session_id":...,"time_created":...,"time_updated":...,"data":{...}}
//	{"table":"part","id":...,"message_id":...,"session_id":...,"time_created":...,"time_updated":...,"data":{...}}
//
// The session's row comes first, and again when its title (or Kilo's
// current_state or recent_progress) changes; then
// each message, in the order of (time_created, id), followed by its parts
// in the order of their ids (OpenCode's ids grow with time). A message is
// exported once settled: an assistant's reply once OpenCode marked it
// completed (data.time.completed), any message once a later one exists,
// and every message of a session quiet for the settle time (a reply
// never completed is then kept as it was left). Messages after the first
// unsettled one wait for it.

// mirrorState is what state.json keeps: the database's files as the last
// export found them, and each session's cursor.
type mirrorState struct {
	mirrorfile.Head                    // Pending: a session had messages not settled yet
	Sessions        map[string]*cursor `json:"sessions"`
}

// cursor is how far a session was exported.
type cursor struct {
	Created int64  `json:"created"` // the last message exported: its time_created
	ID      string `json:"id"`      // and id
	Title   string `json:"title"`   // the title its last session line had
	Started bool   `json:"started"` // its session line was written
	// Progress is a sum of the Kilo CLI's current_state and
	// recent_progress as its last session line had them ("" without).
	Progress string `json:"progress,omitempty"`
}

// Mirror brings the mirror in dir up to date with the database db.
func (s Source) Mirror(ctx context.Context, db, dir string, now time.Time, settle time.Duration) error {
	return mirrorfile.Refresh(dir, db, func(st *mirrorState) error {
		if fi, err := os.Stat(db); err == nil && fi.IsDir() {
			st.Files = mirrorfile.Stamp{} // a tree of files: its folders are listed each time
			return exportLegacy(ctx, db, dir, st, now.UnixMilli(), settle.Milliseconds())
		}
		return export(ctx, s.agent().schema, db, dir, st, now.UnixMilli(), settle.Milliseconds())
	})
}

// Sessions counts the sessions in the database db.
func (Source) Sessions(ctx context.Context, db string) (int, error) {
	if fi, err := os.Stat(db); err == nil && fi.IsDir() {
		files, err := legacySessions(db)
		return len(files), err
	}
	conn, err := sql.Open("sqlite", mirrorfile.ReadOnly(db))
	if err != nil {
		return 0, fmt.Errorf("open: %w", err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM session`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the sessions: %w", err)
	}
	return n, nil
}

// export reads the database in one read transaction and appends what is
// new to the mirror files. schema names whose tables it expects, for the
// error of a layout it does not know.
func export(ctx context.Context, schema, db, dir string, st *mirrorState, now, settle int64) error {
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
	l, err := readLayout(ctx, tx, schema)
	if err != nil {
		return err
	}
	sessions, err := readSessions(ctx, tx, l, db)
	if err != nil {
		return err
	}
	q, err := prepareQueries(ctx, tx)
	if err != nil {
		return err
	}
	defer q.close()
	for _, s := range sessions {
		if err := exportSession(ctx, q, dir, st, s, now, settle); err != nil {
			return err
		}
	}
	return nil
}

// queries are the two an export runs for each session, prepared once:
// preparing them each time was a third of an export. The parts of a
// session's new messages are read in one query with its messages, not
// one query a message: a first export of 10,000 small sessions ran
// 50,000 of them.
type queries struct {
	messagesStmt, partsStmt *sql.Stmt
	partsOf                 map[string][]row // by message, of the last messagesAfter
}

func prepareQueries(ctx context.Context, tx *sql.Tx) (*queries, error) {
	var q queries
	var err error
	q.messagesStmt, err = tx.PrepareContext(ctx, `SELECT id, '', COALESCE(time_created, 0), COALESCE(time_updated, 0), data FROM message
		WHERE session_id = ? AND (time_created > ? OR time_created = ? AND id > ?) ORDER BY time_created, id`)
	if err != nil {
		return nil, fmt.Errorf("read the messages: %w", err)
	}
	q.partsStmt, err = tx.PrepareContext(ctx, `SELECT id, message_id, COALESCE(time_created, 0), COALESCE(time_updated, 0), data FROM part
		WHERE message_id IN (SELECT id FROM message WHERE session_id = ? AND (time_created > ? OR time_created = ? AND id > ?))
		ORDER BY message_id, id`)
	if err != nil {
		q.messagesStmt.Close()
		return nil, fmt.Errorf("read the parts: %w", err)
	}
	return &q, nil
}

func (q *queries) close() {
	q.messagesStmt.Close()
	q.partsStmt.Close()
}

// sessionRow is a session's row, as its mirror line holds it.
type sessionRow struct {
	ID          string `json:"id"`
	ProjectID   string `json:"project_id,omitempty"`
	ParentID    string `json:"parent_id,omitempty"`
	Title       string `json:"title"`
	Directory   string `json:"directory,omitempty"`
	Worktree    string `json:"worktree,omitempty"`
	Version     string `json:"version,omitempty"`
	TimeCreated int64  `json:"time_created"`
	TimeUpdated int64  `json:"time_updated"`
	DB          string `json:"db"`
	// The Kilo CLI's session metadata (its migration of 2026-04-23): the
	// agent's notes of where the session stands, text to keep.
	CurrentState   string `json:"current_state,omitempty"`
	RecentProgress string `json:"recent_progress,omitempty"`
}

// progress is the cursor's sum of the Kilo CLI's columns: "" without them.
func (s sessionRow) progress() string {
	if s.CurrentState == "" && s.RecentProgress == "" {
		return ""
	}
	sum := fnv.New64a()
	sum.Write([]byte(s.CurrentState + "\x00" + s.RecentProgress))
	return strconv.FormatUint(sum.Sum64(), 16)
}

func readSessions(ctx context.Context, tx *sql.Tx, l layout, db string) ([]sessionRow, error) {
	project := "''"
	join := ""
	if l.has["session.project_id"] && l.has["project.id"] && l.has["project.worktree"] {
		project, join = "COALESCE(p.worktree, '')", " LEFT JOIN project p ON p.id = s.project_id"
	}
	q := `SELECT s.id, COALESCE(` + l.col("session", "project_id", "''") + `, ''), COALESCE(` + l.col("session", "parent_id", "''") + `, ''),
		COALESCE(s.title, ''), COALESCE(` + l.col("session", "directory", "''") + `, ''), ` + project + `,
		COALESCE(` + l.col("session", "version", "''") + `, ''), COALESCE(s.time_created, 0), COALESCE(s.time_updated, 0),
		COALESCE(` + l.col("session", "current_state", "''") + `, ''), COALESCE(` + l.col("session", "recent_progress", "''") + `, '')
		FROM session s` + join + ` ORDER BY s.time_created, s.id`
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read the sessions: %w", err)
	}
	defer rows.Close()
	var out []sessionRow
	for rows.Next() {
		s := sessionRow{DB: db}
		if err := rows.Scan(&s.ID, &s.ProjectID, &s.ParentID, &s.Title, &s.Directory, &s.Worktree, &s.Version, &s.TimeCreated, &s.TimeUpdated,
			&s.CurrentState, &s.RecentProgress); err != nil {
			return nil, fmt.Errorf("read the sessions: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// row is a message's or a part's row.
type row struct {
	ID      string
	Parent  string // a part's message
	Created int64
	Updated int64
	Data    []byte
}

// exportSession appends a session's new settled messages, and its row
// when it is new or its title changed.
// rowReader reads a session's rows: from the database (queries), or from
// the JSON files of OpenCode before 1.0 (legacy.go).
type rowReader interface {
	// messagesAfter are the session's messages after the cursor, in order.
	messagesAfter(ctx context.Context, session string, c *cursor) ([]row, error)
	// parts are a message's parts, in order.
	parts(ctx context.Context, message string) ([]row, error)
}

func (q *queries) messagesAfter(ctx context.Context, session string, c *cursor) ([]row, error) {
	msgs, err := readRows(ctx, q.messagesStmt, session, c.Created, c.Created, c.ID)
	if err != nil || len(msgs) == 0 {
		return msgs, err
	}
	parts, err := readRows(ctx, q.partsStmt, session, c.Created, c.Created, c.ID)
	if err != nil {
		return nil, err
	}
	clear(q.partsOf)
	if q.partsOf == nil {
		q.partsOf = map[string][]row{}
	}
	for _, p := range parts {
		q.partsOf[p.Parent] = append(q.partsOf[p.Parent], p)
	}
	return msgs, nil
}

// parts are a message of the last messagesAfter's parts.
func (q *queries) parts(_ context.Context, message string) ([]row, error) {
	return q.partsOf[message], nil
}

func exportSession(ctx context.Context, q rowReader, dir string, st *mirrorState, s sessionRow, now, settle int64) error {
	c := st.Sessions[s.ID]
	if c == nil {
		c = &cursor{}
	}
	msgs, err := q.messagesAfter(ctx, s.ID, c)
	if err != nil {
		return fmt.Errorf("read the messages of session %s: %w", s.ID, err)
	}
	last := s.TimeUpdated
	for _, m := range msgs {
		last = max(last, m.Updated)
	}
	quiet := now-last >= settle
	var buf bytes.Buffer
	if !c.Started || s.Title != c.Title || s.progress() != c.Progress {
		line, err := json.Marshal(struct {
			Table string `json:"table"`
			sessionRow
		}{"session", s})
		if err != nil {
			return err
		}
		buf.Write(append(line, '\n'))
		c.Started, c.Title, c.Progress = true, s.Title, s.progress()
	}
	for i, m := range msgs {
		if !quiet && i == len(msgs)-1 && !completed(m.Data) {
			st.Pending = true
			break // its reply may be streaming still
		}
		parts, err := q.parts(ctx, m.ID)
		if err != nil {
			return fmt.Errorf("read the parts of message %s: %w", m.ID, err)
		}
		writeRow(&buf, "message", "session_id", s.ID, m)
		for _, p := range parts {
			writeRow(&buf, "part", "message_id", p.Parent, p, "session_id", s.ID)
		}
		c.Created, c.ID = m.Created, m.ID
	}
	if buf.Len() == 0 {
		return nil
	}
	if err := mirrorfile.Append(filepath.Join(dir, s.ID+".jsonl"), buf.Bytes()); err != nil {
		return err
	}
	if st.Sessions == nil {
		st.Sessions = map[string]*cursor{}
	}
	st.Sessions[s.ID] = c
	return nil
}

func readRows(ctx context.Context, stmt *sql.Stmt, args ...any) ([]row, error) {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []row
	for rows.Next() {
		var r row
		var data sql.RawBytes
		if err := rows.Scan(&r.ID, &r.Parent, &r.Created, &r.Updated, &data); err != nil {
			return nil, err
		}
		r.Data = bytes.Clone(data)
		out = append(out, r)
	}
	return out, rows.Err()
}

// completed reports whether a message's data says OpenCode finished it:
// a user's message, or a reply with time.completed or an error.
func completed(data []byte) bool {
	var m struct {
		Role string `json:"role"`
		Time struct {
			Completed int64 `json:"completed"`
		} `json:"time"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	return m.Role == "assistant" && (m.Time.Completed != 0 || len(m.Error) > 0 && string(m.Error) != "null")
}

// writeRow writes a row's mirror line: its data as the JSON it is, or,
// when it is not JSON, as a string, so that nothing of it is lost.
func writeRow(buf *bytes.Buffer, table, parentKey, parent string, r row, more ...string) {
	o := rawjson.NewObject().Str("table", table).Str("id", r.ID).Str(parentKey, parent)
	for i := 0; i+1 < len(more); i += 2 {
		o.Str(more[i], more[i+1])
	}
	o.Int("time_created", r.Created).Int("time_updated", r.Updated)
	buf.Write(mirrorfile.JSONOrString(o, "data", r.Data).Done())
	buf.WriteByte('\n')
}
