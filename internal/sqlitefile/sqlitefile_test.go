package sqlitefile

import (
	"database/sql"
	"database/sql/driver"
	"os"
	"path/filepath"
	"testing"
)

// A path's characters that mean something in a file: URI are escaped.
func TestURI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, want string }{
		{"/w/.tape/index-build.db", "file:/w/.tape/index-build.db"},
		{"/C#/.tape/x.db", "file:/C%23/.tape/x.db"},
		{"/a?b/100%/x.db", "file:/a%3Fb/100%25/x.db"},
		{"/x%23/y.db", "file:/x%2523/y.db"},
	} {
		if got := URI(tc.path); got != tc.want {
			t.Errorf("URI(%q) = %q; want %q", tc.path, got, tc.want)
		}
	}
}

// A database opened by its URI is the file at its path, whatever the
// path's characters, and nothing beside it.
func TestURIOpensThePath(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "C# 100%25?mode=ro&x#y")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "index.db")
	db := sql.OpenDB(NewConnector(URI(path) + "?mode=rwc"))
	if _, err := db.Exec(`CREATE TABLE t (x)`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("no database at its path: %v", err)
	}
	if names, err := os.ReadDir(base); err != nil || len(names) != 1 {
		t.Errorf("files beside the folder of the database: %v, %v; want only that folder", names, err)
	}
}

// A WAL database's connections delete its -wal file when the last one
// closes, unless they set PERSIST_WAL: the file at that name may belong
// to another database by then.
func TestPersistWAL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		connect func(dsn string) *Connector
		kept    bool
	}{
		{"plain", NewConnector, false},
		{"persist WAL", NewPersistWALConnector, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "index.db")
			var c driver.Connector = tt.connect(URI(path) + "?mode=rwc&_pragma=journal_mode(WAL)")
			db := sql.OpenDB(c)
			if _, err := db.Exec(`CREATE TABLE t (x); INSERT INTO t VALUES (1)`); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path + "-wal"); err != nil {
				t.Fatalf("no -wal file while the database is open: %v", err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(path + "-wal")
			if kept := err == nil; kept != tt.kept {
				t.Errorf("-wal file kept after the last connection closed: %v (%v); want %v", kept, err, tt.kept)
			}
		})
	}
}
