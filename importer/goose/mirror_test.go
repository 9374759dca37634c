package goose

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/mirrorfile/mirrortest"

	"github.com/tape-dev/tape/internal/sqlitefile"
)

var update = flag.Bool("update", false, "write testdata/import/goose/src from goose.sql")

// goldenDB is where the golden mirror lines say the database was.
const goldenDB = "/home/u/.local/share/goose/sessions/sessions.db"

// newDB writes a database of the statements in sqlText and returns its
// path and a connection that writes it.
func newDB(t *testing.T, sqlText string) (string, *sql.DB) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	return path, mirrortest.NewDB(t, path, sqlText)
}

func goldenSQL(t *testing.T) string {
	return mirrortest.Read(t, "../../testdata/import/goose/goose.sql")
}

// goldenSchema is the CREATE statements of the golden database.
func goldenSchema(t *testing.T) string { return mirrortest.Schema(goldenSQL(t)) }

// The export of the golden database is the golden mirror files:
// testdata/import/goose/src, which the golden import test (cmd/tape)
// imports.
func TestMirrorGolden(t *testing.T) {
	db, _ := newDB(t, goldenSQL(t))
	dir := t.TempDir()
	if err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	got := mirrortest.Files(t, dir, db, goldenDB)
	mirrortest.Golden(t, got, "../../testdata/import/goose/src", goldenDB, *update,
		func(name string) bool { return strings.HasPrefix(name, "x-") }) // x-: written by hand, not exported
	if len(got) != 3 {
		t.Errorf("%d sessions exported, want 3", len(got))
	}
	if n, err := (Source{}).Sessions(context.Background(), db); n != 3 || err != nil {
		t.Errorf("Sessions = %d, %v; want 3", n, err)
	}
}

const session1 = `INSERT INTO sessions (id, name, working_dir, created_at, model_config_json) VALUES ('s1', 'first name', '/w', '2025-11-28 10:00:00', '{"model_name":"m"}')`

func insertMessage(t *testing.T, w *sql.DB, id int, mid, role, text string, created int64) {
	t.Helper()
	if _, err := w.Exec(`INSERT INTO messages (id, message_id, session_id, role, content_json, created_timestamp) VALUES (?, ?, 's1', ?, ?, ?)`,
		id, "msg_"+mid, role, `[{"type":"text","text":"`+text+`"}]`, created); err != nil {
		t.Fatal(err)
	}
}

// A message is exported once: the next export appends what came after it;
// an export of an unchanged database does not open it; a compaction that
// writes a session's messages again (new ids, the same message_ids and
// times) adds only its new messages; a session whose name or counts
// changed is written again.
func TestMirrorWaitsForNothingAndAppends(t *testing.T) {
	db, w := newDB(t, goldenSchema(t)+";\n"+session1)
	insertMessage(t, w, 1, "a", "user", "hello", 100)
	insertMessage(t, w, 2, "b", "assistant", "hi", 101)
	dir := t.TempDir()
	mirror := func() string {
		t.Helper()
		if err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "s1.jsonl"))
		return string(b)
	}
	first := mirror()
	if strings.Count(first, `"table":"messages"`) != 2 || !strings.HasPrefix(first, `{"table":"sessions","id":"s1"`) {
		t.Fatalf("first export:\n%s", first)
	}
	if again := mirror(); again != first {
		t.Fatalf("an export with nothing new changed the mirror:\n%s", again)
	}
	// A compaction: every message deleted and written again, then new ones.
	if _, err := w.Exec(`DELETE FROM messages`); err != nil {
		t.Fatal(err)
	}
	insertMessage(t, w, 3, "a", "user", "hello", 100)
	insertMessage(t, w, 4, "b", "assistant", "hi", 101)
	insertMessage(t, w, 5, "c", "user", "the summary", 101)
	insertMessage(t, w, 6, "d", "assistant", "Your context was compacted.", 102)
	second := mirror()
	added := strings.TrimPrefix(second, first)
	if !strings.HasPrefix(second, first) || strings.Count(added, `"table":"messages"`) != 2 || !strings.Contains(added, "the summary") {
		t.Fatalf("after a compaction, want the two new messages appended:\n%s", added)
	}
	if _, err := w.Exec(`UPDATE sessions SET name = 'second name', accumulated_input_tokens = 10, updated_at = '2025-11-28 11:00:00'`); err != nil {
		t.Fatal(err)
	}
	third := strings.TrimPrefix(mirror(), second)
	if !strings.Contains(third, "second name") || strings.Count(third, "\n") != 1 {
		t.Fatalf("a renamed session: want its row again, alone:\n%s", third)
	}
	if _, err := w.Exec(`UPDATE sessions SET updated_at = '2025-11-28 12:00:00'`); err != nil {
		t.Fatal(err)
	}
	if got := mirror(); !strings.HasSuffix(got, third) || len(got) != len(second)+len(third) {
		t.Fatalf("a session whose updated_at alone changed was written again:\n%s", got)
	}
}

// The export reads what is committed while Goose holds a write
// transaction open, and never blocks it.
func TestMirrorReadsBesideAWriter(t *testing.T) {
	db, w := newDB(t, goldenSchema(t)+";\n"+session1)
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) VALUES ('msg_x', 's1', 'user', '[]', 3)`); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute); err != nil {
		t.Fatalf("export beside a writer: %v", err)
	}
	if _, err := tx.Exec(`INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) VALUES ('msg_y', 's1', 'user', '[]', 4)`); err != nil {
		t.Fatalf("the writer is blocked after the export: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "s1.jsonl"))
	if !bytes.Contains(got, []byte(`"s1"`)) || bytes.Contains(got, []byte("msg_x")) {
		t.Fatalf("mirror beside an open write transaction:\n%s", got)
	}
}

// A database of a layout tape does not read is an error that names what
// it lacks and what it has; nothing of it is exported.
func TestMirrorNamesAnUnknownLayout(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"no sessions table", `CREATE TABLE session (id text); CREATE TABLE conversation (id text)`, `no table "sessions"`},
		{"messages without content_json", `CREATE TABLE sessions (id text, working_dir text, created_at text); CREATE TABLE messages (id integer, session_id text, role text, body text, created_timestamp integer)`,
			`table messages has no column "content_json" (it has id, session_id, role, body, created_timestamp)`},
	} {
		db, _ := newDB(t, tc.schema)
		dir := t.TempDir()
		err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Mirror = %v, want an error naming %s", tc.name, err, tc.want)
		}
		if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 0 {
			t.Errorf("%s: files exported of an unknown layout: %v", tc.name, names)
		}
	}
}

func TestStores(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"sessions.db", "sessions.db-wal", "20250301_101500.jsonl", "other.db"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := (Source{}).Stores(dir); len(got) != 1 || got[0] != filepath.Join(dir, "sessions.db") {
		t.Errorf("Stores(dir) = %v, want its sessions.db", got)
	}
	if got := (Source{}).Stores(filepath.Join(dir, "sessions.db")); len(got) != 1 {
		t.Errorf("Stores(sessions.db) = %v, want it", got)
	}
	for _, p := range []string{filepath.Join(dir, "other.db"), filepath.Join(dir, "20250301_101500.jsonl"), t.TempDir()} {
		if got := (Source{}).Stores(p); got != nil {
			t.Errorf("Stores(%s) = %v, want none", p, got)
		}
	}
}

func TestDefaultDirs(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "/h/.local/share/goose/sessions"},
		{map[string]string{"XDG_DATA_HOME": "/x"}, "/x/goose/sessions"},
		{map[string]string{"XDG_DATA_HOME": "rel"}, "/h/.local/share/goose/sessions"},
		{map[string]string{"GOOSE_PATH_ROOT": "/g", "XDG_DATA_HOME": "/x"}, "/g/data/sessions"},
		{map[string]string{"GOOSE_PATH_ROOT": "g"}, "/h/.local/share/goose/sessions"},
	} {
		got := Source{}.DefaultDirs(func(k string) string { return tc.env[k] }, "/h")
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("DefaultDirs(%v) = %v, want %s", tc.env, got, tc.want)
		}
	}
}

// BenchmarkMirror exports a database of 1,000 sessions of 20 messages
// each (about 11 MB of mirror) into a new mirror, and times an export of
// the same database again after one message was added: the first import
// of a Goose user's history, and one of a follower.
//
//	go test ./importer/goose -run '^$' -bench Mirror -count 6
func BenchmarkMirror(b *testing.B) {
	path := filepath.Join(b.TempDir(), "sessions.db")
	db, err := sql.Open("sqlite", sqlitefile.URI(path)+"?_pragma=journal_mode(WAL)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var schema []string
	script, err := os.ReadFile("../../testdata/import/goose/goose.sql")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(script), "\n") {
		if strings.HasPrefix(l, "CREATE ") {
			schema = append(schema, l)
		}
	}
	if _, err := db.Exec(strings.Join(schema, "\n")); err != nil {
		b.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("Close now waits for the flush goroutine; 我会在 Close 里等待它结束。 ", 8)
	for s := range 1000 {
		id := fmt.Sprintf("20251128_%d", s)
		if _, err := tx.Exec(`INSERT INTO sessions (id, name, working_dir, created_at, accumulated_input_tokens, model_config_json) VALUES (?, 'a session', '/w', '2025-11-28 10:00:00', 900, '{"model_name":"m"}')`, id); err != nil {
			b.Fatal(err)
		}
		for m := range 20 {
			if _, err := tx.Exec(`INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, 'user', ?, ?, '{"userVisible":true,"agentVisible":true}')`,
				fmt.Sprintf("msg_%d_%d", s, m), id, `[{"type":"text","text":"`+text+`"}]`, 1764324000+m); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			if err := (Source{}).Mirror(context.Background(), path, b.TempDir(), time.Now(), time.Minute); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one-more", func(b *testing.B) {
		dir := b.TempDir()
		if err := (Source{}).Mirror(context.Background(), path, dir, time.Now(), time.Minute); err != nil {
			b.Fatal(err)
		}
		n := 0
		for b.Loop() {
			n++
			if _, err := db.Exec(`INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) VALUES (?, '20251128_7', 'user', '[]', ?)`,
				fmt.Sprintf("msg_more_%d", n), 1764400000+n); err != nil {
				b.Fatal(err)
			}
			if err := (Source{}).Mirror(context.Background(), path, dir, time.Now(), time.Minute); err != nil {
				b.Fatal(err)
			}
		}
	})
}
