package opencode

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/mirrorfile/mirrortest"
	"github.com/tape-dev/tape/importer/sourcetest"
)

// goldenKiloDB is where the golden Kilo mirror lines say the database was.
const goldenKiloDB = "/home/u/.local/share/kilo/kilo.db"

func kiloSQL(t *testing.T) string {
	return mirrortest.Read(t, "../../testdata/import/kilo/kilo.sql")
}

// newKiloDB writes a kilo.db of the statements in sqlText.
func newKiloDB(t *testing.T, sqlText string) string {
	path := filepath.Join(t.TempDir(), "kilo.db")
	mirrortest.NewDB(t, path, sqlText)
	return path
}

// The export of the golden Kilo database (Kilo's session columns, its
// task and session_entry tables beside) is the golden mirror files:
// testdata/import/kilo/src, which the golden import test (cmd/tape)
// imports. A session's row keeps Kilo's current_state and
// recent_progress, and only where Kilo wrote them.
func TestKiloMirrorGolden(t *testing.T) {
	db := newKiloDB(t, kiloSQL(t))
	dir := t.TempDir()
	if err := Kilo().Mirror(context.Background(), db, dir, time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	got := mirrortest.Files(t, dir, db, goldenKiloDB)
	mirrortest.Golden(t, got, "../../testdata/import/kilo/src", goldenKiloDB, *update,
		func(name string) bool { return strings.HasPrefix(name, "x-") })
	if len(got) != 3 {
		t.Errorf("%d sessions exported, want 3", len(got))
	}
	main := got["ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv.jsonl"]
	if !strings.Contains(main, `"current_state":"The cart total now rounds half-even`) || !strings.Contains(main, `"recent_progress":"Read cart.go`) {
		t.Errorf("the session's row lacks Kilo's current_state or recent_progress:\n%s", main)
	}
	if child := got["ses_6b2e41c33ffeWx4Yz7Ab1Cd9Ef.jsonl"]; strings.Contains(child, "current_state") || strings.Contains(child, "recent_progress") {
		t.Errorf("a session Kilo wrote no metadata for has some:\n%s", child)
	}
}

// A Kilo database from before Kilo's session metadata (2026-04-23) has
// OpenCode's tables as they were: it exports as OpenCode's does.
func TestKiloMirrorsTheLayoutBeforeItsMetadata(t *testing.T) {
	db := newKiloDB(t, goldenSQL(t))
	dir := t.TempDir()
	if err := Kilo().Mirror(context.Background(), db, dir, time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := mirrortest.Files(t, dir, db, goldenDB); len(got) != 3 {
		t.Errorf("%d sessions exported, want 3", len(got))
	}
}

// A session's row is exported again when Kilo rewrites its
// current_state or recent_progress, the title unchanged; not when only
// its time_updated moved.
func TestKiloMirrorExportsTheSessionAgainWhenItsProgressChanges(t *testing.T) {
	db := newKiloDB(t, mirrortest.Schema(kiloSQL(t))+`;
		INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated, current_state)
		VALUES ('ses_k', 'p', 's', '/w', 'T', '7.2.14', 1, 2, 'reading the code')`)
	w := mirrortest.NewDB(t, db, "SELECT 1")
	dir := t.TempDir()
	later := time.Now().Add(time.Hour)
	sessionLines := func() int {
		t.Helper()
		if err := Kilo().Mirror(context.Background(), db, dir, later, time.Minute); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "ses_k.jsonl"))
		return strings.Count(string(b), `"table":"session"`)
	}
	if n := sessionLines(); n != 1 {
		t.Fatalf("%d session lines after the first export, want 1", n)
	}
	if _, err := w.Exec(`UPDATE session SET time_updated = 3`); err != nil {
		t.Fatal(err)
	}
	if n := sessionLines(); n != 1 {
		t.Fatalf("%d session lines after time_updated moved, want 1", n)
	}
	if _, err := w.Exec(`UPDATE session SET recent_progress = '写完了测试', time_updated = 4`); err != nil {
		t.Fatal(err)
	}
	if n := sessionLines(); n != 2 {
		t.Fatalf("%d session lines after recent_progress changed, want 2", n)
	}
}

// A database of a layout tape does not read names Kilo's schema.
func TestKiloMirrorNamesAnUnknownLayout(t *testing.T) {
	db := newKiloDB(t, `CREATE TABLE session_entry (id text, session_id text, type text, data text)`)
	err := Kilo().Mirror(context.Background(), db, t.TempDir(), time.Now(), time.Minute)
	if err == nil || !strings.Contains(err.Error(), `no table "session", which Kilo CLI`) || !strings.Contains(err.Error(), "session_entry") {
		t.Fatalf("Mirror of a database of no session table: %v", err)
	}
}

// Kilo's names: its folder, its variable, its databases (kilo.db, its
// channels' kilo-<channel>.db and, from before Kilo renamed them,
// opencode-<channel>.db), never OpenCode's opencode.db.
func TestKiloSource(t *testing.T) {
	k := Kilo()
	if k.Name() != "kilo" || k.Agent() != "Kilo CLI" || k.DirsEnv() != "KILO_DATA_DIR" || k == (Source{}) {
		t.Errorf("Kilo() = %q, %q, %q", k.Name(), k.Agent(), k.DirsEnv())
	}
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "/home/u/.local/share/kilo"},
		{map[string]string{"XDG_DATA_HOME": "/xdg"}, "/xdg/kilo"},
		{map[string]string{"XDG_DATA_HOME": "/xdg", "KILO_DATA_DIR": "/k", "OPENCODE_DATA_DIR": "/o"}, "/k"},
	} {
		env = tc.env
		if got := k.DefaultDirs(getenv, "/home/u"); !slices.Equal(got, []string{tc.want}) {
			t.Errorf("DefaultDirs with %v = %v, want %s", tc.env, got, tc.want)
		}
	}
	dir := t.TempDir()
	for _, n := range []string{"kilo.db", "kilo-dev.db", "opencode-dev.db", "opencode.db", "kilo.db-wal", "other.db"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := k.Stores(dir)
	for i := range got {
		got[i] = filepath.Base(got[i])
	}
	if want := []string{"kilo-dev.db", "kilo.db", "opencode-dev.db"}; !slices.Equal(got, want) {
		t.Errorf("Stores(dir) = %v, want %v", got, want)
	}
	// Kilo's storage folder of JSON files, as OpenCode's before 1.0.
	for _, d := range []string{"storage/session", "storage/message"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if got := k.Stores(dir); len(got) != 4 || got[3] != filepath.Join(dir, "storage") {
		t.Errorf("Stores(dir) with storage/ = %v, want the databases and storage", got)
	}
}

// The mapping is OpenCode's, under Kilo's name: its tapes, events and
// usage ids say kilo.
func TestKiloOddShapes(t *testing.T) {
	t.Parallel()
	row := func(table, data string) string {
		return `{"table":"` + table + `","id":"m1","session_id":"s1","time_created":1777712400000,"time_updated":1777712400000,"data":` + data + `}`
	}
	for _, tc := range []struct {
		name        string
		lines, want []string
	}{
		{"a user's message with Kilo's editor context", []string{row("message", `{"role":"user","editorContext":{"activeFile":"a.go"}}`)},
			[]string{`event {"data":{"role":"user","editorContext":{"activeFile":"a.go"}},"name":"kilo/message"}`}},
		{"an ignored text: a local warning", []string{row("part", `{"type":"text","text":"checkpoint saved","ignored":true}`)},
			[]string{`message {"role":"assistant","content":"checkpoint saved","part":{"ignored":true}}`}},
		{"a reply through the Kilo gateway", []string{row("message", `{"role":"assistant","modelID":"anthropic/claude-sonnet-4.5","providerID":"kilo","tokens":{"total":3,"input":1,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}`)},
			[]string{`event {"name":"run","data":{"status":"ok","model":"anthropic/claude-sonnet-4.5","provider":"kilo","usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"usage_id":"kilo:m1","message":{"role":"assistant","modelID":"anthropic/claude-sonnet-4.5","providerID":"kilo","tokens":{"total":3,"input":1,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}}}`}},
		{"a part of Kilo's own type", []string{row("part", `{"type":"kilo-memory","note":"n"}`)},
			[]string{`event {"data":{"type":"kilo-memory","note":"n"},"name":"kilo/kilo-memory"}`}},
		{"a row of Kilo's task table", []string{`{"table":"task","title":"round the invoice"}`},
			[]string{`event {"data":{"table":"task","title":"round the invoice"},"name":"kilo/row"}`}},
	} {
		sourcetest.CheckShape(t, Kilo(), tc.name, tc.lines, tc.want)
	}
}

// The never-drop-text property on Kilo's mirror files: the mapping is
// OpenCode's, so are the rows of random shapes.
func TestKiloKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Kilo(), transcript, keptIn)
}

// FuzzKiloConverter: a checkpoint anywhere loses nothing and adds
// nothing, from Kilo's golden mirror files (testdata/import/kilo/src).
func FuzzKiloConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Kilo(), `{"table":"session","id":"ses_1","current_state":7}`+"\n")
}
