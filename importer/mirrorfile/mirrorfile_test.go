package mirrorfile

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/internal/rawjson"
	"github.com/tape-dev/tape/internal/sqlitefile"
	_ "modernc.org/sqlite"
)

// An append after a torn last line starts on a line of its own.
func TestAppendAfterATornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	for _, lines := range []string{"{\"a\":1}\n", "{\"b\":", "{\"c\":3}\n"} {
		if err := Append(path, []byte(lines)); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(path)
	if want := "{\"a\":1}\n{\"b\":\n{\"c\":3}\n"; string(got) != want {
		t.Errorf("mirror file %q, want %q", got, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mirror file mode %v, want 0600", fi.Mode().Perm())
	}
}

type state struct {
	DB      string            `json:"db"`
	Cursors map[string]string `json:"cursors"`
}

// A state saved is loaded as it was; none, or one that is not JSON, is
// the zero state.
func TestState(t *testing.T) {
	dir := t.TempDir()
	if st, err := LoadState[state](dir); err != nil || st.DB != "" {
		t.Fatalf("no state.json: %+v, %v", st, err)
	}
	want := state{DB: "/h/crush.db", Cursors: map[string]string{"s": "1"}}
	if err := SaveState(dir, want); err != nil {
		t.Fatal(err)
	}
	if st, err := LoadState[state](dir); err != nil || st.DB != want.DB || st.Cursors["s"] != "1" {
		t.Fatalf("state loaded %+v, %v; want %+v", st, err, want)
	}
	if err := os.WriteFile(filepath.Join(dir, StateFile), []byte(`{"db":"x","cursors":[`), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := LoadState[state](dir); err != nil || st.DB != "" || st.Cursors != nil {
		t.Fatalf("a torn state.json: %+v, %v; want the zero state", st, err)
	}
}

func TestJSON(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"a":1}`, `{"k":{"a":1}}`},
		{"[ {\"type\": \"text\"} ]", `{"k":[{"type":"text"}]}`},
		{`{not json`, `{"k":"{not json"}`},
		{"", `{"k":""}`},
	} {
		if got := string(JSON(rawjson.NewObject(), "k", []byte(tc.data)).Done()); got != tc.want {
			t.Errorf("JSON(%q) = %s, want %s", tc.data, got, tc.want)
		}
	}
}

// The stamp changes with a write to the database's WAL, and the database
// opened read-only takes no write.
func TestStampAndReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	w, err := sql.Open("sqlite", sqlitefile.URI(path)+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	if _, err := w.Exec(`CREATE TABLE sessions (id text, title text); CREATE TABLE messages (id text)`); err != nil {
		t.Fatal(err)
	}
	before := StampOf(path)
	if _, err := w.Exec(`INSERT INTO sessions VALUES ('s', 't')`); err != nil {
		t.Fatal(err)
	}
	if StampOf(path) == before {
		t.Error("a write left the stamp as it was")
	}
	r, err := sql.Open("sqlite", ReadOnly(path))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if tables, err := Tables(ctx, r); err != nil || !slices.Equal(tables, []string{"messages", "sessions"}) {
		t.Errorf("Tables = %v, %v", tables, err)
	}
	if cols, err := Columns(ctx, r, "sessions"); err != nil || !slices.Equal(cols, []string{"id", "title"}) {
		t.Errorf("Columns = %v, %v", cols, err)
	}
	if _, err := r.Exec(`INSERT INTO sessions VALUES ('x', 'y')`); err == nil || !strings.Contains(err.Error(), "readonly") && !strings.Contains(err.Error(), "read-only") {
		t.Errorf("a write through ReadOnly: %v, want refused", err)
	}
}
