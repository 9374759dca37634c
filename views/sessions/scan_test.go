package sessions

import (
	"database/sql"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// scan stops reading rows once stop is closed, leaving the rest unread
// (Each closes it when fn fails, or panics: a listing of 10,000 tapes
// must not read them all for a reader gone), and hands on what it read
// until then.
func TestScanStopsReading(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	// Rows of pageRow's 21 columns: text, integers and NULLs where it takes them.
	cols := strings.Repeat("'x', ", 4) + "'m', 1, 2, 3, 4, 's', 'id', 'p'" + strings.Repeat(", NULL", 9)
	rows, err := db.Query(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) SELECT ` + cols + ` FROM n`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	batches, free := make(chan []pageRow, 1), make(chan []pageRow, 3)
	for range 3 {
		free <- make([]pageRow, 0, scanBatch)
	}
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		defer close(batches)
		done <- scan(rows, batches, free, stop)
	}()
	first := <-batches
	if len(first) != scanBatch || first[0].Name != "x" || first[0].Entries != 3 {
		t.Fatalf("first batch: %d rows, %+v", len(first), first[0].Session)
	}
	close(stop)
	read := len(first)
	for b := range batches { // what scan had read before it saw stop
		read += len(b)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if read >= 1000 || !rows.Next() {
		t.Errorf("scan handed on %d of 1,000 rows and left none unread after stop", read)
	}
}
