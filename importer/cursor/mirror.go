package cursor

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tape-dev/tape/importer/mirrorfile"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// The mirror of the editor's database is a folder tape owns
// (importer.mirrorDir) holding <composer id>.jsonl for each chat, and
// state.json. A mirror file's lines are rows of cursorDiskKV, each
// {"table": "cursorDiskKV", "key", "data": the value's JSON}:
//
//	{"table":"cursorDiskKV","key":"composerData:<id>","db":...,"workspace":...,"parent":...,"data":{...}}
//	{"table":"cursorDiskKV","key":"bubbleId:<id>:<bubble>","data":{...}}
//	{"table":"cursorDiskKV","key":"composerData:<id>","inline":<n>,"data":{...}}
//
// The chat's line comes first, with the database's path, the folder the
// workspaces' databases or the chat itself say it is of, and the chat
// that started it (one whose subComposerIds name it); again whenever its
// name, model, branch, folder or parent change. Its data is the composerData but
// the conversation (exported as bubbles), the secrets Cursor keeps in it
// and any member over maxMember bytes. Then its messages ("bubbles"), in
// the order of fullConversationHeadersOnly, each once: a bubbleId:
// row's value (Cursor from 0.40), or an item of the composer's own
// conversation or conversationMap (before; "inline", its place). A
// bubble is exported once settled: while the chat is generating, the
// last bubble and those Cursor names in generatingBubbleIds wait, and
// what follows them, unless the chat has been quiet for the settle time.

// mirrorState is what state.json keeps.
type mirrorState struct {
	mirrorfile.Head
	Composers  map[string]*cursor    `json:"composers"`
	Workspaces map[string]*workspace `json:"workspaces,omitempty"`
}

// cursor is how far a chat was exported.
type cursor struct {
	Updated int64    `json:"updated"` // its lastUpdatedAt
	Line    string   `json:"line"`    // a sum of what its line says (name, model, branch, folder, parent)
	Done    []string `json:"done"`    // a short sum of each bubble exported
	Pending bool     `json:"pending,omitempty"`
}

// maxMember is the largest member of a chat's data a mirror line keeps
// (Cursor keeps the files it edited, whole, in originalFileStates); a
// larger one is written {"omitted_bytes": n}.
const maxMember = 256 << 10

// maxValue is the largest bubble a mirror line keeps; a larger one is
// written {"omitted_bytes": n}, with its type.
const maxValue = 32 << 20

// secrets are the members of a chat's data that hold keys, never
// exported.
var secrets = []string{"blobEncryptionKey", "speculativeSummarizationEncryptionKey"}

// Mirror brings the mirror in dir up to date with the database db: the
// editor's state.vscdb, or a CLI chat's store.db.
func (Source) Mirror(ctx context.Context, db, dir string, now time.Time, settle time.Duration) error {
	return mirrorfile.Refresh(dir, db, func(st *mirrorState) error {
		if filepath.Base(db) == cliDB {
			return exportChat(ctx, db, dir, st)
		}
		return exportEditor(ctx, db, dir, st, now, settle)
	})
}

// Sessions counts the chats in the database db.
func (Source) Sessions(ctx context.Context, db string) (int, error) {
	if filepath.Base(db) == cliDB {
		return 1, nil
	}
	conn, err := sql.Open("sqlite", mirrorfile.ReadOnly(db))
	if err != nil {
		return 0, fmt.Errorf("open: %w", err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the chats: %w", err)
	}
	return n, nil
}

// readOnlyTx opens db read-only and begins its one read transaction.
func readOnlyTx(ctx context.Context, db string) (*sql.DB, *sql.Tx, error) {
	conn, err := sql.Open("sqlite", mirrorfile.ReadOnly(db))
	if err != nil {
		return nil, nil, fmt.Errorf("open: %w", err)
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("read: %w", err)
	}
	return conn, tx, nil
}

// checkLayout checks that the database has the table and columns the
// export reads, naming what it has instead.
func checkLayout(ctx context.Context, tx *sql.Tx, table string, columns ...string) error {
	tables, err := mirrorfile.Tables(ctx, tx)
	if err != nil {
		return err
	}
	if !slices.Contains(tables, table) {
		return fmt.Errorf("no table %q, which Cursor writes (the database has %s); this layout is not one tape reads yet", table, strings.Join(tables, ", "))
	}
	cols, err := mirrorfile.Columns(ctx, tx, table)
	if err != nil {
		return err
	}
	for _, c := range columns {
		if !slices.Contains(cols, c) {
			return fmt.Errorf("table %s has no column %q (it has %s); this layout is not one tape reads yet", table, c, strings.Join(cols, ", "))
		}
	}
	return nil
}

// exportEditor reads the editor's database in one read transaction and
// appends what is new to the mirror files.
func exportEditor(ctx context.Context, db, dir string, st *mirrorState, now time.Time, settle time.Duration) error {
	conn, tx, err := readOnlyTx(ctx, db)
	if err != nil {
		return err
	}
	defer conn.Close()
	defer tx.Rollback() //nolint:errcheck // a read transaction: nothing to keep
	if err := checkLayout(ctx, tx, "cursorDiskKV", "key", "value"); err != nil {
		return err
	}
	composers, err := readComposers(ctx, tx)
	if err != nil {
		return err
	}
	folders := st.folders(ctx, db)
	parents := map[string]string{}
	for _, c := range composers {
		rawjson.ArrayItems(c.data.Raw("subComposerIds"), func(item []byte) {
			if id, ok := source.StringValue(item); ok {
				parents[id] = c.id
			}
		})
	}
	bubble, err := tx.PrepareContext(ctx, `SELECT value FROM cursorDiskKV WHERE key = ?`)
	if err != nil {
		return fmt.Errorf("read the database: %w", err)
	}
	defer bubble.Close()
	if st.Composers == nil {
		st.Composers = map[string]*cursor{}
	}
	e := editorExport{dir: dir, db: db, st: st, now: now, settle: settle, bubble: bubble}
	for _, c := range composers {
		if err := ctx.Err(); err != nil {
			return err
		}
		folder := folders[c.id]
		if folder == "" {
			folder = c.data.Sub("workspaceIdentifier").Sub("uri").Str("fsPath")
		}
		if err := e.composer(ctx, c, folder, parents[c.id]); err != nil {
			return err
		}
	}
	return nil
}

// composer is a composerData row: the chat's id, its value's members (nil
// when the value is not a JSON object) and its value as written.
type composer struct {
	id    string
	data  obj
	value []byte
}

// readComposers reads every composerData row, by key.
func readComposers(ctx context.Context, tx *sql.Tx) ([]composer, error) {
	rows, err := tx.QueryContext(ctx, `SELECT key, value FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;' ORDER BY key`)
	if err != nil {
		return nil, fmt.Errorf("read the chats: %w", err)
	}
	defer rows.Close()
	var out []composer
	for rows.Next() {
		var key string
		var value []byte
		if err := rows.Scan(&key, &value); err != nil {
			return nil, fmt.Errorf("read the chats: %w", err)
		}
		out = append(out, composer{id: strings.TrimPrefix(key, "composerData:"), data: obj(source.ObjectOf(value)), value: value})
	}
	return out, rows.Err()
}

// editorExport exports the chats of one database.
type editorExport struct {
	dir, db string
	st      *mirrorState
	now     time.Time
	settle  time.Duration
	bubble  *sql.Stmt
}

// composer appends a chat's new settled bubbles to its mirror file, after
// its line when that is new or changed.
func (e *editorExport) composer(ctx context.Context, c composer, folder, parent string) error {
	cur := e.st.Composers[c.id]
	if cur == nil {
		cur = &cursor{}
	}
	updated := c.data.Int("lastUpdatedAt")
	var buf bytes.Buffer
	says := strings.Join([]string{c.data.Str("name"), c.data.Sub("modelConfig").Str("modelName"), c.data.Str("createdOnBranch"), folder, parent}, "\x00")
	if sum := source.ShortSum([]byte(says)); sum != cur.Line {
		buf.Write(e.composerLine(c, folder, parent))
		cur.Line = sum
	} else if cur.Updated == updated && updated != 0 && !cur.Pending {
		return nil // not written since
	}
	cur.Updated = updated
	quiet := updated == 0 || e.now.Sub(time.UnixMilli(updated)) >= e.settle
	generating := c.data.Str("status") == "generating" && !quiet
	busy := map[string]bool{}
	rawjson.ArrayItems(c.data.Raw("generatingBubbleIds"), func(item []byte) {
		if id, ok := source.StringValue(item); ok {
			busy[id] = true
		}
	})
	done := map[string]bool{}
	for _, d := range cur.Done {
		done[d] = true
	}
	items := conversationOf(c.data)
	cur.Pending = false
	for i, it := range items {
		sum := source.ShortSum([]byte(it.id))
		if done[sum] {
			continue
		}
		if generating && (i == len(items)-1 || busy[it.id]) || !quiet && busy[it.id] {
			cur.Pending = true
			break // it may be streaming still; what follows waits for it
		}
		value := it.value
		if value == nil {
			var err error
			if value, err = e.bubbleValue(ctx, c.id, it.id); err != nil {
				return err
			}
			if value == nil {
				if !quiet {
					cur.Pending = true
					break // its row is not written yet
				}
				continue
			}
		}
		writeBubble(&buf, c.id, it, value)
		cur.Done = append(cur.Done, sum)
		done[sum] = true
	}
	e.st.Pending = e.st.Pending || cur.Pending
	e.st.Composers[c.id] = cur
	if buf.Len() == 0 {
		return nil
	}
	return mirrorfile.Append(filepath.Join(e.dir, mirrorfile.FileName(c.id)), buf.Bytes())
}

// composerLine is a chat's line: its data but its conversation, secrets
// and members too large, with the database, folder and parent.
func (e *editorExport) composerLine(c composer, folder, parent string) []byte {
	o := rawjson.NewObject().Str("table", "cursorDiskKV").Str("key", "composerData:"+c.id).Str("db", e.db).StrIf("workspace", folder).StrIf("parent", parent)
	if t := source.Trim(c.value); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		o = mirrorfile.JSONOrString(o, "data", c.value) // not Cursor's object: kept as it is
	} else {
		data := rawjson.NewObject()
		for _, m := range c.data {
			k := string(m.Key)
			switch {
			case k == "conversation" || k == "conversationMap" || k == "fullConversationHeadersOnly" || slices.Contains(secrets, k):
			case len(m.Value) > maxMember:
				data.Raw(k, rawjson.NewObject().Int("omitted_bytes", int64(len(m.Value))).Done())
			default:
				data.Raw(k, rawjson.AppendCompact(nil, m.Value))
			}
		}
		o.Raw("data", data.Done())
	}
	return append(o.Done(), '\n')
}

// item is a bubble of a chat's conversation: its id, and its value when
// the chat holds it (inline, its place there; -1 for a bubbleId: row).
type item struct {
	id     string
	value  []byte
	inline int
}

// conversationOf is a chat's bubbles in order: its headers'
// (fullConversationHeadersOnly), their values in conversationMap when
// they are there, else rows of their own; else the items of its
// conversation (Cursor before 0.40). A header without an id is skipped.
func conversationOf(data obj) []item {
	var out []item
	inlineMap := obj(source.ObjectOf(data.Raw("conversationMap")))
	rawjson.ArrayItems(data.Raw("fullConversationHeadersOnly"), func(h []byte) {
		id := obj(source.ObjectOf(h)).Str("bubbleId")
		if id == "" {
			return
		}
		it := item{id: id, inline: -1}
		if v := inlineMap.Raw(id); len(v) > 0 && v[0] == '{' {
			it.value, it.inline = v, len(out)
		}
		out = append(out, it)
	})
	if len(out) > 0 {
		return out
	}
	rawjson.ArrayItems(data.Raw("conversation"), func(b []byte) {
		n := len(out)
		id := obj(source.ObjectOf(b)).Str("bubbleId")
		if id == "" {
			id = fmt.Sprintf("#%d", n)
		}
		out = append(out, item{id: id, value: b, inline: n})
	})
	return out
}

// bubbleValue reads a bubble's row; nil when there is none.
func (e *editorExport) bubbleValue(ctx context.Context, composer, id string) ([]byte, error) {
	var v []byte
	err := e.bubble.QueryRowContext(ctx, "bubbleId:"+composer+":"+id).Scan(&v)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read bubble %s of chat %s: %w", id, composer, err)
	}
	return v, nil
}

// writeBubble writes a bubble's line.
func writeBubble(buf *bytes.Buffer, composer string, it item, value []byte) {
	o := rawjson.NewObject().Str("table", "cursorDiskKV")
	if it.inline >= 0 {
		o.Str("key", "composerData:"+composer).Int("inline", int64(it.inline))
	} else {
		o.Str("key", "bubbleId:"+composer+":"+it.id)
	}
	if len(value) > maxValue {
		omitted := rawjson.NewObject().Int("omitted_bytes", int64(len(value))).Raw("type", orNull(obj(source.ObjectOf(value)).Raw("type"))).Str("bubbleId", it.id)
		o.Raw("data", omitted.Done())
	} else {
		o = mirrorfile.JSONOrString(o, "data", value)
	}
	buf.Write(o.Done())
	buf.WriteByte('\n')
}

func orNull(v []byte) []byte {
	if len(v) == 0 {
		return []byte("null")
	}
	return v
}
