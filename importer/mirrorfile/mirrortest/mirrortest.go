// Package mirrortest holds what the database sources' tests share
// (importer/opencode, goose, crush, cursor; decision 0097): a database written
// from a golden SQL script, its schema alone, and the mirror files an
// export wrote, compared with the golden ones under testdata; and the
// empty files a test of Stores or of a walk lays out (Touch).
package mirrortest

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tape-dev/tape/internal/sqlitefile"
)

// NewDB writes the SQLite database at path (its folder made) from the
// statements in sqlText, in WAL mode as the agents keep theirs, and
// returns a connection that writes it, closed when the test ends.
func NewDB(t testing.TB, path, sqlText string) *sql.DB {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", sqlitefile.URI(path)+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1) // one connection: a test's open transaction is the writer's
	if _, err := db.Exec(sqlText); err != nil {
		t.Fatal(err)
	}
	return db
}

// Read is the text of the file at path, failing the test without it.
func Read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Schema is the CREATE statements of a script, one a line: the tables of
// a golden database without its rows.
func Schema(script string) string {
	var out []string
	for _, l := range strings.Split(script, "\n") {
		if strings.HasPrefix(l, "CREATE ") {
			out = append(out, strings.TrimSuffix(l, ";"))
		}
	}
	return strings.Join(out, ";\n")
}

// Files are the mirror files (*.jsonl) in dir, by name, with every from
// written as to: the temporary path of a test's database as the golden
// files name it.
func Files(t testing.TB, dir, from, to string) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, n := range names {
		files[filepath.Base(n)] = strings.ReplaceAll(Read(t, n), from, to)
	}
	return files
}

// Golden compares the mirror files an export made (got, as Files gives
// them) with the golden ones in src, after writing them there when
// update is set. A golden file that handWritten names was written by
// hand, not exported.
func Golden(t *testing.T, got map[string]string, src, placeholder string, update bool, handWritten func(name string) bool) {
	t.Helper()
	if update {
		for name, text := range got {
			if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := Files(t, src, placeholder, placeholder)
	for name := range want {
		if _, ok := got[name]; !ok && !handWritten(name) {
			t.Errorf("%s is not exported", name)
		}
	}
	for name, text := range got {
		if want[name] != text {
			t.Errorf("%s differs from the golden file (-update writes it):\n%s", name, text)
		}
	}
}

// Touch makes an empty file at the slash-separated rel under root, with
// its folders, and returns its path: the layouts of agents' folders that
// Stores and the walks are tested on.
func Touch(t testing.TB, root, rel string) string {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
