package cursor

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/mirrorfile/mirrortest"
)

var update = flag.Bool("update", false, "write testdata/import/cursor/src from cursor.sql")

// goldenHome is where the golden mirror lines say the database is: a
// test's is at <temp>/User/globalStorage/state.vscdb, written as
// /home/u/.config/Cursor/User/globalStorage/state.vscdb.
const goldenHome = "/home/u/.config/Cursor"

func script(t testing.TB) string {
	return mirrortest.Read(t, filepath.Join("..", "..", "testdata", "import", "cursor", "cursor.sql"))
}

// newEditor writes the editor's databases under <home>/User: the global
// one of the statements in sqlText, and a workspace's that lists the
// chat c0a1b2c3 as one of /home/ana/src/app. It returns the global
// database's path and a connection that writes it.
func newEditor(t testing.TB, home, sqlText string) (string, *sql.DB) {
	user := filepath.Join(home, "User")
	db := filepath.Join(user, "globalStorage", editorDB)
	w := mirrortest.NewDB(t, db, sqlText)
	ws := filepath.Join(user, "workspaceStorage", "6a4ed208d874bc31c17fb549de8edded")
	mirrortest.NewDB(t, filepath.Join(ws, editorDB), `CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
		INSERT INTO ItemTable VALUES ('cursorAuth/accessToken', 'secret-access-token-never-exported');
		INSERT INTO ItemTable VALUES ('composer.composerData', '{"allComposers":[{"composerId":"c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b","name":"x","createdAt":1772445600000}],"selectedComposerIds":[]}')`)
	if err := os.WriteFile(filepath.Join(ws, "workspace.json"), []byte(`{"folder":"file:///home/ana/src/app"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return db, w
}

// The export of the golden database, its chats quiet long since, is the
// golden mirror files: testdata/import/cursor/src/*.jsonl, which the
// golden import test (cmd/tape) imports. No secret of the database is in
// them.
func TestMirrorGolden(t *testing.T) {
	home := t.TempDir()
	db, _ := newEditor(t, home, script(t))
	dir := t.TempDir()
	if err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	got := mirrortest.Files(t, dir, home, goldenHome)
	mirrortest.Golden(t, got, filepath.Join("..", "..", "testdata", "import", "cursor", "src"), goldenHome, *update,
		func(name string) bool { return name == "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b.jsonl" }) // a CLI chat's (TestMirrorGoldenChat)
	if len(got) != 5 {
		t.Errorf("%d chats exported, want 5", len(got))
	}
	for name, text := range got {
		for _, secret := range []string{"never-exported", "checkpointId"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds %q:\n%s", name, secret, text)
			}
		}
	}
}

// schemaOnly is the golden database's tables, without rows.
func schemaOnly(t testing.TB) string { return mirrortest.Schema(script(t)) }

// composerRow is a chat's composerData row of the given status, updated
// at the given time, of the bubbles b1, b2...
func composerRow(status string, updated int64, bubbles ...string) string {
	var headers []string
	for _, b := range bubbles {
		headers = append(headers, `{"bubbleId":"`+b+`","type":2}`)
	}
	return `INSERT INTO cursorDiskKV VALUES ('composerData:c1', '{"composerId":"c1","createdAt":1772445600000,"lastUpdatedAt":` +
		fmt.Sprint(updated) + `,"status":"` + status + `","fullConversationHeadersOnly":[` + strings.Join(headers, ",") + `]}')`
}

func bubbleRow(id, text string) string {
	return `INSERT INTO cursorDiskKV VALUES ('bubbleId:c1:` + id + `', '{"type":2,"bubbleId":"` + id + `","text":"` + text + `"}')`
}

// A reply is exported once Cursor is done with it, not while the chat
// generates it; what was exported stays as it was, and the next export
// appends; a chat quiet long enough is exported as it was left.
func TestMirrorWaitsForAReplyToFinish(t *testing.T) {
	now := time.UnixMilli(1772445700000)
	db, w := newEditor(t, t.TempDir(), schemaOnly(t)+";"+composerRow("generating", 1772445690000, "b1", "b2")+";"+bubbleRow("b1", "first")+";"+bubbleRow("b2", "half a rep"))
	dir := t.TempDir()
	mirror := func() string {
		t.Helper()
		if err := (Source{}).Mirror(context.Background(), db, dir, now, time.Minute); err != nil {
			t.Fatal(err)
		}
		return mirrortest.Read(t, filepath.Join(dir, "c1.jsonl"))
	}
	exec := func(q string) {
		t.Helper()
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	first := mirror()
	if !strings.Contains(first, `"first"`) || strings.Contains(first, "half a rep") {
		t.Fatalf("the first export, a reply streaming:\n%s", first)
	}
	exec(`UPDATE cursorDiskKV SET value = '{"type":2,"bubbleId":"b2","text":"half a reply, then all of it"}' WHERE key = 'bubbleId:c1:b2'`)
	exec(composerRow("completed", 1772445695000, "b1", "b2"))
	second := mirror()
	if !strings.HasPrefix(second, first) || !strings.Contains(second, "half a reply, then all of it") {
		t.Fatalf("the finished reply was not appended after what was there:\n%s", second)
	}
	if third := mirror(); third != second {
		t.Fatalf("an export with nothing new changed the mirror:\n%s", third)
	}
	exec(composerRow("generating", 1772445699000, "b1", "b2", "b3") + ";" + bubbleRow("b3", "never finished"))
	if got := mirror(); strings.Contains(got, "never finished") {
		t.Fatalf("a reply of a busy chat was exported:\n%s", got)
	}
	now = now.Add(time.Hour)
	if got := mirror(); !strings.Contains(got, "never finished") {
		t.Fatalf("a reply of a quiet chat was not exported:\n%s", got)
	}
}

// The export reads what is committed while Cursor holds a write
// transaction open, and never blocks it.
func TestMirrorReadsBesideAWriter(t *testing.T) {
	db, w := newEditor(t, t.TempDir(), schemaOnly(t)+";"+composerRow("completed", 1772445690000, "b1", "b2")+";"+bubbleRow("b1", "first"))
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(bubbleRow("b2", "uncommitted")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := (Source{}).Mirror(context.Background(), db, dir, time.UnixMilli(1772445700000), time.Minute); err != nil {
		t.Fatalf("export beside a writer: %v", err)
	}
	if _, err := tx.Exec(bubbleRow("b3", "more")); err != nil {
		t.Fatalf("the writer is blocked after the export: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got := mirrortest.Read(t, filepath.Join(dir, "c1.jsonl"))
	if !strings.Contains(got, `"first"`) || strings.Contains(got, "uncommitted") {
		t.Fatalf("mirror beside an open write transaction:\n%s", got)
	}
}

// A database of a layout tape does not read is an error that names what
// it has; nothing of it is exported.
func TestMirrorNamesAnUnknownLayout(t *testing.T) {
	dir := t.TempDir()
	db, _ := newEditor(t, t.TempDir(), `CREATE TABLE ItemTable (key TEXT, value BLOB); CREATE TABLE composerHeaders (composerId TEXT, value TEXT)`)
	err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute)
	if err == nil || !strings.Contains(err.Error(), `no table "cursorDiskKV"`) || !strings.Contains(err.Error(), "composerHeaders") {
		t.Fatalf("Mirror of an unknown layout: %v", err)
	}
	db2, _ := newEditor(t, t.TempDir(), `CREATE TABLE cursorDiskKV (k TEXT, v BLOB)`)
	if err := (Source{}).Mirror(context.Background(), db2, dir, time.Now(), time.Minute); err == nil || !strings.Contains(err.Error(), `no column "key"`) {
		t.Fatalf("Mirror of a table of other columns: %v", err)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(names) != 0 {
		t.Fatalf("files exported of an unknown layout: %v", names)
	}
}

// Stores finds the editor's database in its user folder or globalStorage
// folder, the CLI's chats in its chats folder, a database named; none in
// the CLI's projects folder, whose transcripts are read as they are.
func TestStores(t *testing.T) {
	root := t.TempDir()
	touch := func(rel string) string { return mirrortest.Touch(t, root, rel) }
	global := touch("User/globalStorage/state.vscdb")
	touch("User/workspaceStorage/abc/state.vscdb")
	chat1 := touch("chats/6a4e/0f1e2d3c-0000-4000-8000-000000000001/store.db")
	chat2 := touch("chats/6a4e/0f1e2d3c-0000-4000-8000-000000000002/store.db")
	touch("projects/home-ana-app/agent-transcripts/x.jsonl")
	for _, tc := range []struct {
		root string
		want []string
	}{
		{filepath.Join(root, "User"), []string{global}},
		{filepath.Join(root, "User", "globalStorage"), []string{global}},
		{global, []string{global}},
		{filepath.Join(root, "chats"), []string{chat1, chat2}},
		{filepath.Join(root, "chats", "6a4e"), []string{chat1, chat2}},
		{chat1, []string{chat1}},
		{filepath.Join(root, "projects"), nil},
		{filepath.Join(root, "User", "workspaceStorage", "abc"), nil},
		{filepath.Join(root, "User", "workspaceStorage", "abc", "state.vscdb"), nil},
	} {
		if got := (Source{}).Stores(tc.root); !slices.Equal(got, tc.want) {
			t.Errorf("Stores(%s) = %v, want %v", tc.root, got, tc.want)
		}
	}
}

// Prune keeps the walks of the projects folder to agent-transcripts, and
// of the editor's user folder to its storage.
func TestPrune(t *testing.T) {
	for _, tc := range []struct {
		root, path string
		depth      int
		want       bool
	}{
		{"/h/.cursor/projects", "/h/.cursor/projects/p", 1, false},
		{"/h/.cursor/projects", "/h/.cursor/projects/p/agent-transcripts", 2, false},
		{"/h/.cursor/projects", "/h/.cursor/projects/p/terminals", 2, true},
		{"/h/.cursor/projects", "/h/.cursor/projects/p/agent-transcripts/x/subagents", 4, false},
		{"/h/.config/Cursor/User", "/h/.config/Cursor/User/History", 1, true},
		{"/h/.config/Cursor/User", "/h/.config/Cursor/User/globalStorage", 1, false},
		{"/h/.config/Cursor/User", "/h/.config/Cursor/User/workspaceStorage", 1, false},
		{"/h/elsewhere", "/h/elsewhere/History", 1, false},
	} {
		if got := (Source{}).Prune(tc.root, tc.path, tc.depth); got != tc.want {
			t.Errorf("Prune(%s, %s, %d) = %v, want %v", tc.root, tc.path, tc.depth, got, tc.want)
		}
	}
}

// decodeProject reads the CLI's project folder names.
func TestDecodeProject(t *testing.T) {
	for name, want := range map[string]string{
		"Users-ana-src-app": "/Users/ana/src/app",
		"c-Users-ana-app":   "c:/Users/ana/app",
		"":                  "",
	} {
		if got := decodeProject(name); got != want {
			t.Errorf("decodeProject(%q) = %q, want %q", name, got, want)
		}
	}
}
