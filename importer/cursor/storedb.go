package cursor

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/mirrorfile"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// A CLI chat's database, ~/.cursor/chats/<hash>/<id>/store.db, has two
// tables: meta (key "0": the chat's metadata, JSON written as hex:
// agentId, name, mode, createdAt, lastUsedModel, latestRootBlobId) and
// blobs (id: a SHA-256 in hex; data: a message's JSON, or a node of the
// chat's tree: 0x0a 0x20 and a child's 32-byte id, again for each child,
// then maybe a message's JSON). The chat is the messages met walking the
// tree from latestRootBlobId, children in order. Blobs are never
// rewritten (an id is the sum of its data): the export appends the
// messages of the current tree it has not exported, each once, to
// <agentId>.jsonl:
//
//	{"table":"meta","key":"0","db":...,"workspace":...,"data":{...}}
//	{"table":"blobs","id":<blob id>,"data":{"role", "content", ...}}
//
// The meta line comes first, and again when the chat's name or model
// changes; workspace is the folder its first user message's <user_info>
// names (the folder's name, <hash>, is an MD5 of it).

// maxDepth bounds the walk of a chat's tree: a tree deeper is not one
// Cursor wrote.
const maxDepth = 64

// exportChat reads a CLI chat's database in one read transaction and
// appends what is new to its mirror file.
func exportChat(ctx context.Context, db, dir string, st *mirrorState) error {
	conn, tx, err := readOnlyTx(ctx, db)
	if err != nil {
		return err
	}
	defer conn.Close()
	defer tx.Rollback() //nolint:errcheck // a read transaction: nothing to keep
	if err := checkLayout(ctx, tx, "meta", "key", "value"); err != nil {
		return err
	}
	if err := checkLayout(ctx, tx, "blobs", "id", "data"); err != nil {
		return err
	}
	var metaHex string
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = '0'`).Scan(&metaHex); err != nil {
		return fmt.Errorf("read the chat's meta: %w", err)
	}
	meta, err := hex.DecodeString(strings.TrimSpace(metaHex))
	if err != nil || !json.Valid(meta) {
		meta = rawjson.AppendString(nil, metaHex) // kept as written
	}
	m := obj(source.ObjectOf(meta))
	id := m.Str("agentId")
	if id == "" {
		id = filepath.Base(filepath.Dir(db))
	}
	blob, err := tx.PrepareContext(ctx, `SELECT data FROM blobs WHERE id = ?`)
	if err != nil {
		return fmt.Errorf("read the chat's blobs: %w", err)
	}
	defer blob.Close()
	w := treeWalk{ctx: ctx, blob: blob, seen: map[string]bool{}}
	if root := m.Str("latestRootBlobId"); root != "" {
		if err := w.walk(root, 0); err != nil {
			return err
		}
	}
	if st.Composers == nil {
		st.Composers = map[string]*cursor{}
	}
	cur := st.Composers[id]
	if cur == nil {
		cur = &cursor{}
	}
	var buf bytes.Buffer
	says := m.Str("name") + "\x00" + m.Str("lastUsedModel")
	if sum := source.ShortSum([]byte(says)); sum != cur.Line {
		o := rawjson.NewObject().Str("table", "meta").Str("key", "0").Str("db", db).StrIf("workspace", w.workspace)
		buf.Write(append(o.Raw("data", rawjson.AppendCompact(nil, meta)).Done(), '\n'))
		cur.Line = sum
	}
	done := map[string]bool{}
	for _, d := range cur.Done {
		done[d] = true
	}
	for _, msg := range w.messages {
		if done[msg.id] {
			continue
		}
		o := rawjson.NewObject().Str("table", "blobs").Str("id", msg.id)
		buf.Write(append(mirrorfile.JSONOrString(o, "data", msg.data).Done(), '\n'))
		cur.Done = append(cur.Done, msg.id)
		done[msg.id] = true
	}
	st.Composers[id] = cur
	if buf.Len() == 0 {
		return nil
	}
	return mirrorfile.Append(filepath.Join(dir, mirrorfile.FileName(id)), buf.Bytes())
}

// treeWalk collects a chat's messages, walking its tree.
type treeWalk struct {
	ctx       context.Context
	blob      *sql.Stmt
	seen      map[string]bool
	messages  []message
	workspace string // the folder the first <user_info> names
}

// message is a message's blob: its id and its JSON.
type message struct {
	id   string
	data []byte
}

// walk visits the blob id: a message, or a node whose children it walks
// in order, then the message it may hold. A blob seen already (the tree
// is a DAG of shared prefixes) or missing is skipped.
func (w *treeWalk) walk(id string, depth int) error {
	if w.seen[id] || depth > maxDepth {
		return nil
	}
	w.seen[id] = true
	var data []byte
	err := w.blob.QueryRowContext(w.ctx, id).Scan(&data)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read blob %s: %w", id, err)
	}
	for len(data) >= 34 && data[0] == 0x0a && data[1] == 0x20 {
		if err := w.walk(hex.EncodeToString(data[2:34]), depth+1); err != nil {
			return err
		}
		data = data[34:]
	}
	if i := bytes.IndexByte(data, '{'); i >= 0 && json.Valid(data[i:]) {
		w.add(id, data[i:])
	}
	return nil
}

// add keeps a message, and the folder the first one of the user that
// names one names.
func (w *treeWalk) add(id string, data []byte) {
	w.messages = append(w.messages, message{id: id, data: data})
	if w.workspace == "" && obj(source.ObjectOf(data)).Str("role") == "user" {
		w.workspace = workspacePath(data)
	}
}

// chatLine maps a line of a CLI chat's mirror file: its meta, the first
// anchor (title its name, a run of its lastUsedModel), an event
// cursor/meta when written again; a blob, a message as a transcript's
// line is (its id the blob's).
func (c *converter) chatLine(in *input) []source.Output {
	data := obj(source.ObjectOf(in.rec.Raw("data")))
	if in.rec.Str("table") == "meta" {
		var out []source.Output
		if c.st.Started {
			o := c.event(in, "cursor/meta", source.MembersObject(obj(in.rec), func(k string) bool { return k == "table" || k == "key" }))
			o.Entry.ID = c.st.Session.ID + "/meta/" + source.ShortSum(in.l.Data)
			out = append(out, o)
		} else {
			out = c.startChat(in, data)
		}
		out = append(out, c.title(in, data.Str("name"), "meta")...)
		return append(out, c.run(in, data.Str("lastUsedModel"))...)
	}
	out := c.startChat(in, nil)
	if id := in.rec.Str("id"); id != "" {
		in.id = id
	}
	line := tapelog.RawLine{No: in.l.No, Data: in.rec.Raw("data")}
	rec := obj(source.ObjectOf(line.Data))
	if rec == nil {
		return append(out, c.event(in, "cursor/blob", orNull(line.Data)))
	}
	msg := &input{l: line, rec: rec, id: in.id, date: in.date}
	msg.l.Data = in.l.Data
	return append(out, c.message2(msg)...)
}

// startChat makes a CLI chat's first anchor: its id (the meta's agentId),
// the folder, the database, the meta whole.
func (c *converter) startChat(in *input, meta obj) []source.Output {
	if c.st.Started {
		return nil
	}
	c.st.Started = true
	id := meta.Str("agentId")
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(c.path), ".jsonl")
	}
	c.st.Session = source.Session{Source: "cursor", ID: id}
	c.st.CWD = in.rec.Str("workspace")
	if at := msDate(meta.Raw("createdAt")); at != "" {
		c.st.Date, in.date = at, at
	}
	state := rawjson.NewObject().Str("source", "cursor").Str("session_id", id).Str("file", c.path).StrIf("cwd", c.st.CWD).StrIf("db", in.rec.Str("db"))
	if meta != nil {
		state.Raw("meta", rawjson.AppendCompact(nil, in.rec.Raw("data")))
	}
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", state.Done()).Done()
	e := tapelog.Entry{ID: id, Kind: tapelog.KindAnchor, Payload: payload, Meta: source.Meta(c.path, in.l.No, "", "", nil).Done(), Date: in.date}
	return []source.Output{{Session: c.st.Session, Anchor: true, Entry: e}}
}
