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
)

// A line torn by an export killed while it wrote is ended before the
// next export's lines, so that they stay lines of their own.
func TestAppendAfterATornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte("{\"a\":1}\n{\"b\":"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, []byte("{\"c\":3}\n")); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, []byte("{\"d\":4}\n")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := "{\"a\":1}\n{\"b\":\n{\"c\":3}\n{\"d\":4}\n"; string(got) != want {
		t.Fatalf("mirror file:\n%q\nwant\n%q", got, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

type testState struct {
	DB    string `json:"db"`
	Files Stamp  `json:"files"`
}

// A state saved is the state loaded; none, or one that is not JSON, is
// the zero state (the database is exported again).
func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	st, err := LoadState[testState](dir)
	if err != nil || st != (testState{}) {
		t.Fatalf("no state.json: %+v, %v", st, err)
	}
	want := testState{DB: "/h/sessions.db", Files: Stamp{DBSize: 1, DBMtime: 2, WALSize: 3, WALMtime: 4}}
	if err := SaveState(dir, want); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadState[testState](dir); err != nil || got != want {
		t.Fatalf("loaded %+v, %v; want %+v", got, err, want)
	}
	if err := os.WriteFile(filepath.Join(dir, StateFile), []byte("{torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadState[testState](dir); err != nil || got != (testState{}) {
		t.Fatalf("unreadable state.json: %+v, %v", got, err)
	}
}

// The stamp changes when the database or its WAL is written.
func TestStampOf(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	if s := StampOf(db); s != (Stamp{}) {
		t.Fatalf("no files: %+v", s)
	}
	if err := os.WriteFile(db, []byte("12"), 0o600); err != nil {
		t.Fatal(err)
	}
	first := StampOf(db)
	if first.DBSize != 2 || first.WALSize != 0 {
		t.Fatalf("stamp %+v", first)
	}
	if err := os.WriteFile(db+"-wal", []byte("123"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s := StampOf(db); s == first || s.WALSize != 3 {
		t.Fatalf("a WAL written, stamp %+v", s)
	}
}

func TestJSONOrString(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"a":1}`, `{"k":{"a":1}}`},
		{"[1, 2]\n", `{"k":[1,2]}`},
		{`{"a":`, `{"k":"{\"a\":"}`},
		{"", `{"k":""}`},
	} {
		if got := string(JSONOrString(rawjson.NewObject(), "k", []byte(tc.data)).Done()); got != tc.want {
			t.Errorf("JSONOrString(%q) = %s, want %s", tc.data, got, tc.want)
		}
	}
}

// Tables and Columns read a database opened with the read-only URI.
func TestTablesAndColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	w, err := sql.Open("sqlite", sqlitefile.URI(path))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec(`CREATE TABLE b (x, y); CREATE TABLE a (z)`); err != nil {
		t.Fatal(err)
	}
	r, err := sql.Open("sqlite", ReadOnly(path))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if got, err := Tables(ctx, r); err != nil || !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("Tables = %v, %v", got, err)
	}
	if got, err := Columns(ctx, r, "b"); err != nil || !slices.Equal(got, []string{"x", "y"}) {
		t.Fatalf("Columns = %v, %v", got, err)
	}
	if _, err := r.Exec(`CREATE TABLE c (w)`); err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Fatalf("a write through the read-only URI: %v", err)
	}
}

// Unchanged is true only for the database the stamp file was saved for,
// as it was then, with nothing pending; a write to its WAL, a pending
// export, a zero stamp (a tree of files) or no stamp file make it false.
func TestUnchanged(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	if err := os.WriteFile(db, []byte("rows"), 0o600); err != nil {
		t.Fatal(err)
	}
	if Unchanged(dir, db) {
		t.Fatal("Unchanged without a stamp file")
	}
	save := func(files Stamp, pending bool) {
		t.Helper()
		if err := SaveStamp(dir, db, files, pending); err != nil {
			t.Fatal(err)
		}
	}
	save(StampOf(db), false)
	if !Unchanged(dir, db) {
		t.Fatal("not Unchanged just after the stamp was saved")
	}
	if Unchanged(dir, filepath.Join(dir, "other.db")) {
		t.Error("Unchanged for another database")
	}
	save(StampOf(db), true)
	if Unchanged(dir, db) {
		t.Error("Unchanged with an export pending")
	}
	save(Stamp{}, false)
	if Unchanged(dir, db) {
		t.Error("Unchanged with a zero stamp")
	}
	save(StampOf(db), false)
	if err := os.WriteFile(db+"-wal", []byte("a write"), 0o600); err != nil {
		t.Fatal(err)
	}
	if Unchanged(dir, db) {
		t.Error("Unchanged after a write to the WAL")
	}
}

// FileName names a session's mirror file after its id, with nothing that
// would leave the folder or hide the file.
func TestFileName(t *testing.T) {
	for id, want := range map[string]string{
		"4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d": "4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.jsonl",
		"7c2e0004$$toolu_03Agent":              "7c2e0004$$toolu_03Agent.jsonl",
		"a/b\\c\x00d":                          "a_b_c_d.jsonl",
		"":                                     "_.jsonl",
		".":                                    "_..jsonl",
		"..":                                   "_...jsonl",
	} {
		if got := FileName(id); got != want {
			t.Errorf("FileName(%q) = %q, want %q", id, got, want)
		}
	}
}
