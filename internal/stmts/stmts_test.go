package stmts

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

func TestCachePreparesOnFirstUseAndRefusesUnknownNames(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	c := New(tx, map[string]string{"insert": `INSERT INTO t (x) VALUES (?)`, "broken": `INSERT INTO nowhere VALUES (1)`})
	if len(c.stmts) != 0 {
		t.Fatalf("prepared %d statements before any ran", len(c.stmts))
	}
	for i := range 3 {
		if _, err := c.Exec(ctx, "insert", i); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.stmts) != 1 {
		t.Fatalf("prepared %d statements; want 1, once", len(c.stmts))
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("rows = %d, %v; want 3", n, err)
	}
	if _, err := c.Exec(ctx, "missing"); err == nil || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("unknown name: err = %v; want one that names it", err)
	}
	if _, err := c.Exec(ctx, "broken"); err == nil || !strings.Contains(err.Error(), "prepare broken") {
		t.Errorf("bad statement: err = %v; want one that names it", err)
	}
}
