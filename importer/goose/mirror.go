package goose

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tape-dev/tape/importer/mirrorfile"
	"github.com/tape-dev/tape/internal/rawjson"
)

// The mirror of a database is a folder tape owns (importer.mirrorDir)
// holding <session id>.jsonl for each session, and state.json, which says
// how far each was exported. A mirror file's lines are the rows of its
// session, each a JSON object with "table" and the row's columns, every
// one of them (a column Goose adds later is kept too), a number as a
// number, a text as a string, and the JSON columns (content_json,
// metadata_json, model_config_json, extension_data, recipe_json...) as
// the JSON they hold:
//
//	{"table":"sessions","id":...,"name":...,"working_dir":...,"created_at":...,"accumulated_input_tokens":...,"model_config_json":{...},...,"schema_version":16,"db":...}
//	{"table":"messages","id":...,"message_id":...,"session_id":...,"role":...,"content_json":[...],"created_timestamp":...,"metadata_json":{...},...}
//	{"table":"usage_ledger","id":...,"session_id":...,"created_timestamp":...,"model":...,"input_tokens":...,...}
//
// The session's row comes first, and again when any of its columns but
// updated_at changed (its name, its token counts); then its messages in
// the order Goose reads them back, (created_timestamp, id), and its
// usage_ledger rows in the order of their ids. Goose inserts a message's
// row whole once the message is done, so every row is settled when it is
// read. A compaction or an edit makes Goose delete a session's messages
// and insert them again (new ids, the same message_id and times): a row
// older than the session's cursor is not read again, and one of the
// cursor's second whose message_id was exported is skipped. What Goose
// changes in a row it wrote (a message's visibility after a compaction, a
// tool call's title) is not followed.

// mirrorState is what state.json keeps: the database's files as the last
// export found them, the largest row ids it saw, and each session's
// cursor.
type mirrorState struct {
	mirrorfile.Head                    // Pending stays false: every row Goose wrote is settled
	Schema          int                `json:"schema"`
	Message         int64              `json:"message"` // the largest id of messages
	Ledger          int64              `json:"ledger"`  // the largest id of usage_ledger
	Sessions        map[string]*cursor `json:"sessions"`
}

// cursor is how far a session was exported.
type cursor struct {
	Created int64    `json:"created"`        // the last message exported: its created_timestamp
	ID      int64    `json:"id"`             // and its id
	Same    []string `json:"same,omitempty"` // the message_ids exported of that second
	Row     string   `json:"row,omitempty"`  // a sum of the session's row as last exported
}

// Mirror brings the mirror in dir up to date with the database db. Every
// row Goose wrote is settled (settle is not needed).
func (Source) Mirror(ctx context.Context, db, dir string, now time.Time, settle time.Duration) error {
	return mirrorfile.Refresh(dir, db, func(st *mirrorState) error {
		if st.Sessions == nil {
			st.Sessions = map[string]*cursor{}
		}
		return export(ctx, db, dir, st)
	})
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
func export(ctx context.Context, db, dir string, st *mirrorState) error {
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
	st.Schema = l.version
	e := &exporter{tx: tx, l: l, st: st, db: db, out: map[string]*bytes.Buffer{}}
	if err := e.sessions(ctx); err != nil {
		return err
	}
	if err := e.messages(ctx); err != nil {
		return err
	}
	if err := e.ledger(ctx); err != nil {
		return err
	}
	for _, id := range e.order {
		if err := mirrorfile.Append(filepath.Join(dir, safeID(id)+".jsonl"), e.out[id].Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// exporter is one export: the lines it makes, by session, in the order
// the sessions came.
type exporter struct {
	tx    *sql.Tx
	l     layout
	st    *mirrorState
	db    string
	out   map[string]*bytes.Buffer
	order []string
}

func (e *exporter) buf(session string) *bytes.Buffer {
	b := e.out[session]
	if b == nil {
		b = &bytes.Buffer{}
		e.out[session] = b
		e.order = append(e.order, session)
	}
	return b
}

func (e *exporter) cursor(session string) *cursor {
	c := e.st.Sessions[session]
	if c == nil {
		c = &cursor{}
		e.st.Sessions[session] = c
	}
	return c
}

// sessions writes the row of each session that is new, or changed.
func (e *exporter) sessions(ctx context.Context) error {
	rows, err := e.tx.QueryContext(ctx, `SELECT `+selectList(e.l.sessions)+` FROM sessions ORDER BY id`)
	if err != nil {
		return fmt.Errorf("read the sessions: %w", err)
	}
	defer rows.Close()
	r := newRowReader(e.l.sessions)
	for rows.Next() {
		if err := r.scan(rows); err != nil {
			return fmt.Errorf("read the sessions: %w", err)
		}
		id := string(r.text("id"))
		sum := r.sum("updated_at")
		if c := e.cursor(id); c.Row != sum {
			o := r.object("sessions").Int("schema_version", int64(e.l.version)).Str("db", e.db)
			b := e.buf(id)
			b.Write(o.Done())
			b.WriteByte('\n')
			c.Row = sum
		}
	}
	return rows.Err()
}

// messages writes the messages of each session that has rows of ids
// larger than the last export saw.
func (e *exporter) messages(ctx context.Context) error {
	var top sql.NullInt64
	if err := e.tx.QueryRowContext(ctx, `SELECT MAX(id) FROM messages`).Scan(&top); err != nil {
		return fmt.Errorf("read the messages: %w", err)
	}
	if top.Int64 == e.st.Message {
		return nil
	}
	touched, err := e.strings(ctx, `SELECT DISTINCT session_id FROM messages WHERE id > ? ORDER BY session_id`, e.st.Message)
	if err != nil {
		return fmt.Errorf("read the messages: %w", err)
	}
	stmt, err := e.tx.PrepareContext(ctx, `SELECT `+selectList(e.l.messages)+` FROM messages
		WHERE session_id = ? AND (created_timestamp > ? OR created_timestamp = ? AND id > ?) ORDER BY created_timestamp, id`)
	if err != nil {
		return fmt.Errorf("read the messages: %w", err)
	}
	defer stmt.Close()
	for _, s := range touched {
		if err := e.sessionMessages(ctx, stmt, s); err != nil {
			return fmt.Errorf("read the messages of session %s: %w", s, err)
		}
	}
	e.st.Message = max(e.st.Message, top.Int64)
	return nil
}

func (e *exporter) sessionMessages(ctx context.Context, stmt *sql.Stmt, session string) error {
	c := e.cursor(session)
	rows, err := stmt.QueryContext(ctx, session, c.Created, c.Created, c.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	r := newRowReader(e.l.messages)
	for rows.Next() {
		if err := r.scan(rows); err != nil {
			return err
		}
		created, _ := strconv.ParseInt(string(r.text("created_timestamp")), 10, 64)
		id, _ := strconv.ParseInt(string(r.text("id")), 10, 64)
		mid := string(r.text("message_id"))
		if created != c.Created {
			c.Created, c.Same = created, nil
		} else if mid != "" && slices.Contains(c.Same, mid) {
			c.ID = max(c.ID, id)
			continue // written again by a compaction or an edit
		}
		c.ID = id
		if mid != "" {
			c.Same = append(c.Same, mid)
		}
		b := e.buf(session)
		b.Write(r.object("messages").Done())
		b.WriteByte('\n')
	}
	return rows.Err()
}

// ledger writes the usage_ledger rows of ids larger than the last export
// saw, each to its session's file.
func (e *exporter) ledger(ctx context.Context) error {
	if e.l.ledger == nil {
		return nil
	}
	rows, err := e.tx.QueryContext(ctx, `SELECT `+selectList(e.l.ledger)+` FROM usage_ledger WHERE id > ? ORDER BY id`, e.st.Ledger)
	if err != nil {
		return fmt.Errorf("read the usage ledger: %w", err)
	}
	defer rows.Close()
	r := newRowReader(e.l.ledger)
	for rows.Next() {
		if err := r.scan(rows); err != nil {
			return fmt.Errorf("read the usage ledger: %w", err)
		}
		b := e.buf(string(r.text("session_id")))
		b.Write(r.object("usage_ledger").Done())
		b.WriteByte('\n')
		id, _ := strconv.ParseInt(string(r.text("id")), 10, 64)
		e.st.Ledger = max(e.st.Ledger, id)
	}
	return rows.Err()
}

func (e *exporter) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := e.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s.String)
	}
	return out, rows.Err()
}

// rowReader reads rows selected with selectList: each column's type and
// text.
type rowReader struct {
	cols  []string
	vals  []sql.RawBytes // type, text, type, text...
	ptrs  []any
	index map[string]int
}

func newRowReader(cols []string) *rowReader {
	r := &rowReader{cols: cols, vals: make([]sql.RawBytes, 2*len(cols)), index: map[string]int{}}
	for i := range r.vals {
		r.ptrs = append(r.ptrs, &r.vals[i])
	}
	for i, c := range cols {
		r.index[c] = i
	}
	return r
}

func (r *rowReader) scan(rows *sql.Rows) error { return rows.Scan(r.ptrs...) }

// text is the text of a column; nil for NULL, or a column not there.
func (r *rowReader) text(col string) []byte {
	i, ok := r.index[col]
	if !ok {
		return nil
	}
	return r.vals[2*i+1]
}

// sum is a sum of the row's columns but skip.
func (r *rowReader) sum(skip string) string {
	h := fnv.New64a()
	for i, c := range r.cols {
		if c == skip {
			continue
		}
		h.Write([]byte(c))
		h.Write([]byte{0})
		h.Write(r.vals[2*i])
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(len(r.vals[2*i+1]))))
		h.Write([]byte{0})
		h.Write(r.vals[2*i+1])
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// object is the row's mirror line, without its newline: "table" first,
// then the columns in order.
func (r *rowReader) object(table string) *rawjson.Object {
	o := rawjson.NewObject().Str("table", table)
	for i, c := range r.cols {
		typ, v := string(r.vals[2*i]), []byte(r.vals[2*i+1])
		switch {
		case typ == "null" || v == nil:
			o.Raw(c, []byte("null"))
		case typ == "integer" || typ == "real" && json.Valid(v):
			o.Raw(c, v)
		case typ == "text" && isJSONColumn(c):
			mirrorfile.JSONOrString(o, c, v)
		default:
			o.Str(c, string(v))
		}
	}
	return o
}

// isJSONColumn reports whether Goose keeps JSON text in a column: those
// named *_json, and extension_data.
func isJSONColumn(col string) bool {
	return strings.HasSuffix(col, "_json") || col == "extension_data"
}
