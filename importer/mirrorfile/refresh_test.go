package mirrorfile

import (
	"os"
	"path/filepath"
	"testing"
)

type refreshState struct {
	Head
	Rows int `json:"rows"`
}

// Refresh exports a database once while nothing is written to it, again
// while rows wait to settle, and again after a write; the state it saves
// is the export's.
func TestRefresh(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	if err := os.WriteFile(db, []byte("rows"), 0o600); err != nil {
		t.Fatal(err)
	}
	exports, pending := 0, false
	refresh := func() {
		t.Helper()
		err := Refresh(dir, db, func(st *refreshState) error {
			exports++
			st.Rows++
			st.Pending = pending
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	refresh()
	refresh()
	if exports != 1 {
		t.Fatalf("%d exports of a database nothing was written to; want 1", exports)
	}
	pending = true
	if err := os.WriteFile(db+"-wal", []byte("w"), 0o600); err != nil {
		t.Fatal(err)
	}
	refresh()
	refresh()
	if exports != 3 {
		t.Fatalf("%d exports; want 3: after the write, and again while rows wait to settle", exports)
	}
	st, err := LoadState[refreshState](dir)
	if err != nil || st.Rows != 3 || st.DB != db || !st.Pending {
		t.Errorf("state %+v, %v; want 3 rows, the database, pending", st, err)
	}
}
