package crush

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/mirrorfile/mirrortest"
)

var update = flag.Bool("update", false, "write testdata/import/crush/src from crush.sql and crush-0.1.sql")

// goldenHome is where the golden mirror lines say the projects are: a
// test's databases are at <temp>/<project>/.crush/crush.db, written as
// /home/u/<project>/.crush/crush.db.
const goldenHome = "/home/u"

// goldenDBs are the golden databases' scripts, and the project each is
// the database of.
var goldenDBs = []struct{ script, project string }{{"crush.sql", "app"}, {"crush-0.1.sql", "cli"}}

// handWritten is the golden mirror file written by hand, not exported.
const handWritten = "9e8d7c6b-5a49-4382-b1a0-f0e1d2c3b4a5.jsonl"

// newDB writes a database of the statements in sqlText at
// <home>/<project>/.crush/crush.db, and returns its path and a connection
// that writes it.
func newDB(t testing.TB, home, project, sqlText string) (string, *sql.DB) {
	path := filepath.Join(home, project, ".crush", "crush.db")
	return path, mirrortest.NewDB(t, path, sqlText)
}

func script(t testing.TB, name string) string {
	return mirrortest.Read(t, filepath.Join("..", "..", "testdata", "import", "crush", name))
}

// The export of the golden databases, their sessions quiet long since,
// is the golden mirror files: testdata/import/crush/src, which the
// golden import test (cmd/tape) imports.
func TestMirrorGolden(t *testing.T) {
	home := t.TempDir()
	got := map[string]string{}
	for _, g := range goldenDBs {
		db, _ := newDB(t, home, g.project, script(t, g.script))
		dir := t.TempDir()
		if err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute); err != nil {
			t.Fatal(err)
		}
		for name, text := range mirrortest.Files(t, dir, home, goldenHome) {
			got[name] = text
		}
	}
	mirrortest.Golden(t, got, filepath.Join("..", "..", "testdata", "import", "crush", "src"), goldenHome, *update,
		func(name string) bool { return name == handWritten })
	if len(got) != 4 {
		t.Errorf("%d sessions exported, want 4", len(got))
	}
}

// goldenSchema is the CREATE statements of the golden database.
func goldenSchema(t testing.TB) string { return mirrortest.Schema(script(t, "crush.sql")) }

// triggers are Crush's (its initial migration): an update of a row sets
// its updated_at, and a message added counts in its session's
// message_count, which updates the session.
const triggers = `
CREATE TRIGGER update_sessions_updated_at AFTER UPDATE ON sessions BEGIN UPDATE sessions SET updated_at = strftime('%s', 'now') WHERE id = new.id; END;
CREATE TRIGGER update_messages_updated_at AFTER UPDATE ON messages BEGIN UPDATE messages SET updated_at = strftime('%s', 'now') WHERE id = new.id; END;
CREATE TRIGGER update_session_message_count_on_insert AFTER INSERT ON messages BEGIN UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id; END;`

// A reply is exported once Crush finishes it, not while it streams, nor
// is the tool result written before it finished; what was exported stays
// as it was, and the next export appends.
func TestMirrorWaitsForAReplyToFinish(t *testing.T) {
	now := time.Unix(1764300100, 0)
	db, w := newDB(t, t.TempDir(), "p", goldenSchema(t)+`;
		INSERT INTO sessions VALUES ('s-a', NULL, 'T', 0, 0, 0, 0, 1764300090, 1764300000, NULL, NULL);
		INSERT INTO messages VALUES ('m1', 's-a', 'user', '[{"type":"text","data":{"text":"hello"}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1764300001, 1764300001, NULL, NULL, 0);
		INSERT INTO messages VALUES ('m2', 's-a', 'assistant', '[{"type":"text","data":{"text":"half a rep"}}]', 'm', 1764300002, 1764300090, NULL, 'p', 0);
		INSERT INTO messages VALUES ('m3', 's-a', 'tool', '[{"type":"tool_result","data":{"tool_call_id":"c1","content":"ok"}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', 1764300003, 1764300003, NULL, NULL, 0)`)
	dir := t.TempDir()
	mirror := func() string {
		t.Helper()
		if err := (Source{}).Mirror(context.Background(), db, dir, now, time.Minute); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "s-a.jsonl"))
		return string(b)
	}
	first := mirror()
	if !strings.Contains(first, `"id":"m1"`) || strings.Contains(first, "half a rep") || strings.Contains(first, `"id":"m3"`) {
		t.Fatalf("the first export, a reply streaming:\n%s", first)
	}
	if _, err := w.Exec(`UPDATE messages SET parts = '[{"type":"text","data":{"text":"half a reply, then all of it"}},{"type":"finish","data":{"reason":"end_turn","time":1764300095}}]', finished_at = 1764300095 WHERE id = 'm2'`); err != nil {
		t.Fatal(err)
	}
	second := mirror()
	if !strings.HasPrefix(second, first) || !strings.Contains(second, "half a reply, then all of it") || !strings.Contains(second, `"id":"m3"`) {
		t.Fatalf("the finished reply and the result after it were not appended after what was there:\n%s", second)
	}
	if third := mirror(); third != second {
		t.Fatalf("an export with nothing new changed the mirror:\n%s", third)
	}
	// Quiet long enough, a reply never finished is exported as it was left.
	if _, err := w.Exec(`INSERT INTO messages VALUES ('m4', 's-a', 'assistant', '[]', 'm', 1764300096, 1764300097, NULL, 'p', 0)`); err != nil {
		t.Fatal(err)
	}
	if got := mirror(); strings.Contains(got, `"id":"m4"`) {
		t.Fatalf("an unfinished reply of a busy session was exported:\n%s", got)
	}
	now = now.Add(time.Hour)
	if got := mirror(); !strings.Contains(got, `"id":"m4"`) {
		t.Fatalf("an unfinished reply of a quiet session was not exported:\n%s", got)
	}
}

// A session's line is written again when its title, token counts or cost
// change, not when only a message is added; with Crush's triggers, a
// session not written to since is not read again, and one that is, is.
func TestMirrorSessionLineAgain(t *testing.T) {
	db, w := newDB(t, t.TempDir(), "p", goldenSchema(t)+";"+triggers+`
		INSERT INTO sessions VALUES ('s-b', NULL, 'New Session', 0, 0, 0, 0, strftime('%s', 'now') - 60, strftime('%s', 'now') - 60, NULL, NULL);`)
	dir := t.TempDir()
	mirror := func() string {
		t.Helper()
		if err := (Source{}).Mirror(context.Background(), db, dir, time.Now().Add(time.Hour), time.Minute); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "s-b.jsonl"))
		return string(b)
	}
	exec := func(q string) {
		t.Helper()
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	lines := func(s, table string) int { return strings.Count(s, `{"table":"`+table+`"`) }
	first := mirror()
	exec(`INSERT INTO messages VALUES ('m1', 's-b', 'user', '[{"type":"text","data":{"text":"hi"}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', strftime('%s', 'now'), strftime('%s', 'now'), NULL, NULL, 0)`)
	second := mirror()
	if lines(second, "sessions") != 1 || lines(second, "messages") != 1 || !strings.HasPrefix(second, first) {
		t.Fatalf("a message added:\n%s", second)
	}
	exec(`UPDATE sessions SET title = 'Say hi', prompt_tokens = 1200, completion_tokens = 30, cost = 0.01 WHERE id = 's-b'`)
	third := mirror()
	if lines(third, "sessions") != 2 || !strings.Contains(third, `"prompt_tokens":1200`) {
		t.Fatalf("the session's title and usage changed:\n%s", third)
	}
	// Written again in the same second as the export before, the session
	// is read again all the same.
	exec(`INSERT INTO messages VALUES ('m2', 's-b', 'user', '[{"type":"text","data":{"text":"again"}},{"type":"finish","data":{"reason":"stop","time":0}}]', '', strftime('%s', 'now'), strftime('%s', 'now'), NULL, NULL, 0)`)
	if fourth := mirror(); lines(fourth, "messages") != 2 {
		t.Fatalf("a message added in the second of the export before:\n%s", fourth)
	}
}

// The export reads what is committed while Crush holds a write
// transaction open, and never blocks it.
func TestMirrorReadsBesideAWriter(t *testing.T) {
	db, w := newDB(t, t.TempDir(), "p", goldenSchema(t)+`;
		INSERT INTO sessions VALUES ('s-c', NULL, 'T', 0, 0, 0, 0, 2, 1, NULL, NULL)`)
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO messages VALUES ('m-x', 's-c', 'user', '[]', '', 3, 4, NULL, NULL, 0)`); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute); err != nil {
		t.Fatalf("export beside a writer: %v", err)
	}
	if _, err := tx.Exec(`INSERT INTO messages VALUES ('m-y', 's-c', 'user', '[]', '', 5, 6, NULL, NULL, 0)`); err != nil {
		t.Fatalf("the writer is blocked after the export: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "s-c.jsonl"))
	if !bytes.Contains(got, []byte(`"s-c"`)) || bytes.Contains(got, []byte("m-x")) {
		t.Fatalf("mirror beside an open write transaction:\n%s", got)
	}
}

// A database of a layout tape does not read is an error that names what
// it lacks, what it has and its migration; nothing of it is exported.
func TestMirrorNamesAnUnknownLayout(t *testing.T) {
	db, _ := newDB(t, t.TempDir(), "p", `CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL, is_applied INTEGER NOT NULL);
		INSERT INTO goose_db_version (version_id, is_applied) VALUES (20270101000000, 1);
		CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT, created_at INTEGER, updated_at INTEGER);
		CREATE TABLE session_events (id TEXT, session_id TEXT, payload TEXT)`)
	dir := t.TempDir()
	err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute)
	if err == nil || !strings.Contains(err.Error(), `no table "messages"`) || !strings.Contains(err.Error(), "session_events") || !strings.Contains(err.Error(), "20270101000000") {
		t.Fatalf("Mirror of an unknown layout: %v", err)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 0 {
		t.Fatalf("files exported of an unknown layout: %v", names)
	}
	db2, _ := newDB(t, t.TempDir(), "p", `CREATE TABLE sessions (id TEXT, title TEXT, created_at INTEGER, updated_at INTEGER);
		CREATE TABLE messages (id TEXT, session_id TEXT, role TEXT, content TEXT, created_at INTEGER)`)
	if err := (Source{}).Mirror(context.Background(), db2, dir, time.Now(), time.Minute); err == nil || !strings.Contains(err.Error(), `no column "parts"`) || !strings.Contains(err.Error(), "content") {
		t.Fatalf("Mirror of messages without parts: %v", err)
	}
}

// Stores finds a database named, a data folder's, those projects.json
// names, and those under a folder of projects, skipping .git and
// node_modules.
func TestStores(t *testing.T) {
	root := t.TempDir()
	touch := func(rel string) string { return mirrortest.Touch(t, root, rel) }
	app := touch("src/app/.crush/crush.db")
	touch("src/app/.crush/crush.db-wal")
	deep := touch("src/group/lib/.crush/crush.db")
	touch("src/app/node_modules/dep/.crush/crush.db")
	touch("src/app/.git/x/.crush/crush.db")
	elsewhere := touch("data/proj-state/crush.db")
	touch("src/app/notes/5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12.jsonl")
	global := filepath.Join(root, "share", "crush")
	touch("share/crush/crush.json")
	server := touch("share/crush/.crush/crush.db")
	projects := `{"projects":[{"path":"` + filepath.Join(root, "src", "app") + `","data_dir":"` + filepath.Join(root, "src", "app", ".crush") + `"},
		{"path":"` + filepath.Join(root, "data") + `","data_dir":"proj-state"},{"path":"/gone","data_dir":"/gone/.crush"}]}`
	if err := os.WriteFile(filepath.Join(global, "projects.json"), []byte(projects), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		root string
		want []string
	}{
		{filepath.Join(root, "src"), []string{app, deep}},
		{global, sorted(app, elsewhere, server)},
		{filepath.Join(root, "src", "app", ".crush"), []string{app}},
		{filepath.Join(root, "data", "proj-state"), []string{elsewhere}},
		{app, []string{app}},
		{filepath.Join(root, "src", "app", "notes"), nil},
	} {
		if got := (Source{}).Stores(tc.root); !slices.Equal(got, tc.want) {
			t.Errorf("Stores(%s) = %v, want %v", tc.root, got, tc.want)
		}
	}
}

func sorted(s ...string) []string {
	slices.Sort(s)
	return s
}

func TestIsTranscript(t *testing.T) {
	for path, want := range map[string]bool{
		"/w/.tape/import/crush/1f2e3d/4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.jsonl": true,
		"/w/.tape/import/crush/1f2e3d/any-id.jsonl":                               true,
		"/w/.tape/import/crush/1f2e3d/state.json":                                 false,
		"/copy/4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.jsonl":                        true,
		"/copy/7c2e0004-1a2b-4c3d-8e9f-a0b1c2d3e4f5$$toolu_03Agent.jsonl":         true,
		"/copy/title-4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.jsonl":                  true,
		"/src/app/logs/events.jsonl":                                              false,
		"/src/app/testdata/4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.json":             false,
	} {
		if got := (Source{}).IsTranscript(path); got != want {
			t.Errorf("IsTranscript(%s) = %v, want %v", path, got, want)
		}
	}
}
