package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/mirrorfile/mirrortest"

	"github.com/tape-dev/tape/internal/sqlitefile"
)

var update = flag.Bool("update", false, "write testdata/import/opencode/src from opencode.sql")

// goldenDB is where the golden mirror lines say the database was.
const goldenDB = "/home/u/.local/share/opencode/opencode.db"

// newDB writes a database of the statements in sqlText and returns its
// path and a connection that writes it.
func newDB(t *testing.T, sqlText string) (string, *sql.DB) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	return path, mirrortest.NewDB(t, path, sqlText)
}

func goldenSQL(t *testing.T) string {
	return mirrortest.Read(t, "../../testdata/import/opencode/opencode.sql")
}

// The export of the golden database, a session quiet long since, is the
// golden mirror files: testdata/import/opencode/src, which the golden
// import test (cmd/tape) imports.
func TestMirrorGolden(t *testing.T) {
	db, _ := newDB(t, goldenSQL(t))
	dir := t.TempDir()
	if err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	got := mirrortest.Files(t, dir, db, goldenDB)
	mirrortest.Golden(t, got, "../../testdata/import/opencode/src", goldenDB, *update,
		func(name string) bool { return strings.HasPrefix(name, "x-") }) // x-: written by hand, not exported
	if len(got) != 3 {
		t.Errorf("%d sessions exported, want 3", len(got))
	}
}

// A reply is exported once OpenCode completes it, not while it streams;
// what was exported stays as it was, and the next export appends.
func TestMirrorWaitsForAReplyToComplete(t *testing.T) {
	now := time.UnixMilli(1764300100000)
	db, w := newDB(t, strings.Join([]string{
		goldenSchema(t),
		`INSERT INTO session VALUES ('ses_a', 'p', NULL, 's', '/w', 'T', '1', NULL, NULL, NULL, 1764300000000, 1764300090000, NULL, NULL)`,
		`INSERT INTO message VALUES ('msg_1', 'ses_a', 1764300001000, 1764300001000, '{"role":"user"}')`,
		`INSERT INTO part VALUES ('prt_1', 'msg_1', 'ses_a', 1764300001000, 1764300001000, '{"type":"text","text":"hello"}')`,
		`INSERT INTO message VALUES ('msg_2', 'ses_a', 1764300002000, 1764300090000, '{"role":"assistant","time":{"created":1764300002000}}')`,
		`INSERT INTO part VALUES ('prt_2', 'msg_2', 'ses_a', 1764300002000, 1764300090000, '{"type":"text","text":"half a rep"}')`,
	}, ";\n"))
	dir := t.TempDir()
	mirror := func() string {
		t.Helper()
		if err := (Source{}).Mirror(context.Background(), db, dir, now, time.Minute); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "ses_a.jsonl"))
		return string(b)
	}
	first := mirror()
	if !strings.Contains(first, "msg_1") || strings.Contains(first, "msg_2") || strings.Contains(first, "half a rep") {
		t.Fatalf("a reply still streaming was exported, or the prompt was not:\n%s", first)
	}
	if _, err := w.Exec(`UPDATE part SET data = '{"type":"text","text":"half a reply, then all of it"}' WHERE id = 'prt_2';
		UPDATE message SET data = '{"role":"assistant","time":{"created":1764300002000,"completed":1764300095000}}' WHERE id = 'msg_2'`); err != nil {
		t.Fatal(err)
	}
	second := mirror()
	if !strings.HasPrefix(second, first) || !strings.Contains(second, "half a reply, then all of it") {
		t.Fatalf("the completed reply was not appended after what was there:\n%s", second)
	}
	if third := mirror(); third != second {
		t.Fatalf("an export with nothing new changed the mirror:\n%s", third)
	}
	// Quiet long enough, a reply never completed is exported as it was left.
	if _, err := w.Exec(`INSERT INTO message VALUES ('msg_3', 'ses_a', 1764300096000, 1764300097000, '{"role":"assistant","time":{"created":1764300096000}}')`); err != nil {
		t.Fatal(err)
	}
	if got := mirror(); strings.Contains(got, "msg_3") {
		t.Fatalf("an unfinished reply of a busy session was exported:\n%s", got)
	}
	now = now.Add(time.Hour)
	if got := mirror(); !strings.Contains(got, "msg_3") {
		t.Fatalf("an unfinished reply of a quiet session was not exported:\n%s", got)
	}
}

// goldenSchema is the CREATE statements of the golden database.
func goldenSchema(t *testing.T) string { return mirrortest.Schema(goldenSQL(t)) }

// The export reads what is committed while OpenCode holds a write
// transaction open, and never blocks it.
func TestMirrorReadsBesideAWriter(t *testing.T) {
	db, w := newDB(t, goldenSchema(t)+`;
		INSERT INTO session VALUES ('ses_b', 'p', NULL, 's', '/w', 'T', '1', NULL, NULL, NULL, 1, 2, NULL, NULL)`)
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO message VALUES ('msg_x', 'ses_b', 3, 4, '{"role":"user"}')`); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute); err != nil {
		t.Fatalf("export beside a writer: %v", err)
	}
	if _, err := tx.Exec(`INSERT INTO message VALUES ('msg_y', 'ses_b', 5, 6, '{"role":"user"}')`); err != nil {
		t.Fatalf("the writer is blocked after the export: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "ses_b.jsonl"))
	if !bytes.Contains(got, []byte(`"ses_b"`)) || bytes.Contains(got, []byte("msg_x")) {
		t.Fatalf("mirror beside an open write transaction:\n%s", got)
	}
}

// A database of a layout tape does not read is an error that names what
// it lacks and what it has; nothing of it is exported.
func TestMirrorNamesAnUnknownLayout(t *testing.T) {
	db, _ := newDB(t, `CREATE TABLE session_v2 (id text); CREATE TABLE session_message (id text, session_id text, type text, data text)`)
	dir := t.TempDir()
	err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute)
	if err == nil || !strings.Contains(err.Error(), `no table "session"`) || !strings.Contains(err.Error(), "session_message") {
		t.Fatalf("Mirror of a v2 database: %v", err)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 0 {
		t.Fatalf("files exported of an unknown layout: %v", names)
	}
}

func TestStores(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"opencode.db", "opencode-beta.db", "opencode.db-wal", "other.db", "log.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := Source{}.Stores(dir)
	for i := range got {
		got[i] = filepath.Base(got[i])
	}
	if want := []string{"opencode-beta.db", "opencode.db"}; !slices.Equal(got, want) {
		t.Errorf("Stores(dir) = %v, want %v", got, want)
	}
	if got := (Source{}).Stores(filepath.Join(dir, "other.db")); got != nil {
		t.Errorf("Stores(other.db) = %v, want none", got)
	}
}

// BenchmarkMirror exports a database of 8 sessions of about 2 MB of rows
// each (BenchSession's) into a new mirror: the export's throughput, in
// bytes of the mirror written a second.
//
//	go test ./importer/opencode -run '^$' -bench Mirror -count 6
func BenchmarkMirror(b *testing.B) {
	path := filepath.Join(b.TempDir(), "opencode.db")
	db, err := sql.Open("sqlite", sqlitefile.URI(path)+"?_pragma=journal_mode(WAL)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var schema []string
	for _, l := range strings.Split(mirrortest.Read(b, "../../testdata/import/opencode/opencode.sql"), "\n") {
		if strings.HasPrefix(l, "CREATE ") {
			schema = append(schema, l)
		}
	}
	if _, err := db.Exec(strings.Join(schema, "\n")); err != nil {
		b.Fatal(err)
	}
	var total int64
	for k := range 8 {
		data := BenchSession(2 << 20)
		total += int64(len(data))
		if err := insertRows(db, fmt.Sprintf("ses_%d", k), data); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(total)
	for b.Loop() {
		dir := b.TempDir()
		if err := (Source{}).Mirror(context.Background(), path, dir, time.Now(), time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}

// insertRows inserts the rows of a mirror file as the session id's.
func insertRows(db *sql.DB, id string, mirror []byte) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // committed below
	for _, line := range bytes.Split(bytes.TrimSpace(mirror), []byte("\n")) {
		var r struct {
			Table, ID string
			MessageID string `json:"message_id"`
			Created   int64  `json:"time_created"`
			Data      json.RawMessage
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		rid := id + "/" + r.ID
		switch r.Table {
		case "session":
			_, err = tx.Exec(`INSERT INTO session VALUES (?, 'p', NULL, 's', '/w', 'T', '1', NULL, NULL, NULL, ?, ?, NULL, NULL)`, id, r.Created, r.Created)
		case "message":
			_, err = tx.Exec(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, rid, id, r.Created, r.Created, string(r.Data))
		case "part":
			_, err = tx.Exec(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, rid, id+"/"+r.MessageID, id, r.Created, r.Created, string(r.Data))
		}
		if err != nil {
			return err
		}
	}
	return tx.Commit()
}
