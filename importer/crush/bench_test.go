package crush

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// BenchmarkConvert converts one generated mirror file of 4 MB: the
// converter's throughput, without the writes.
//
//	go test ./importer/crush -run '^$' -bench Convert -count 6
func BenchmarkConvert(b *testing.B) {
	data := BenchSession(4 << 20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sourcetest.Convert(b, Source{}, data)
	}
}

// BenchmarkMirror exports a database of 8 sessions of about 2 MB of rows
// each (BenchSession's) into a new mirror: the export's throughput, in
// bytes of the mirror written a second.
//
//	go test ./importer/crush -run '^$' -bench Mirror -count 6
func BenchmarkMirror(b *testing.B) {
	path, db := newDB(b, b.TempDir(), "app", goldenSchema(b))
	var total int64
	for k := range 8 {
		data := BenchSession(2 << 20)
		total += int64(len(data))
		if err := insertRows(db, fmt.Sprintf("%08d-0000-4000-8000-000000000000", k), data); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(total)
	for b.Loop() {
		dir := b.TempDir()
		if err := (Source{}).Mirror(context.Background(), path, dir, time.Now(), time.Minute); err != nil {
			b.Fatal(err)
		}
	}
	// The mirror of one session is what it was made of, but for its ids.
	dir := b.TempDir()
	if err := (Source{}).Mirror(context.Background(), path, dir, time.Now(), time.Minute); err != nil {
		b.Fatal(err)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(names) != 8 {
		b.Fatalf("%d mirror files, want 8", len(names))
	}
}

// insertRows inserts the rows of a mirror file as the session id's.
func insertRows(db *sql.DB, id string, mirror []byte) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // committed below
	for _, line := range bytes.Split(bytes.TrimSpace(mirror), []byte("\n")) {
		var r struct {
			Table, ID, Role, Model string
			Parts                  json.RawMessage
			Created                int64 `json:"created_at"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		switch r.Table {
		case "sessions":
			_, err = tx.Exec(`INSERT INTO sessions VALUES (?, NULL, 'T', 0, 52000, 900, 0.31, ?, ?, NULL, NULL)`, id, r.Created, r.Created)
		case "messages":
			_, err = tx.Exec(`INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 'anthropic', 0)`, id+"/"+r.ID, id, r.Role, string(r.Parts), r.Model, r.Created, r.Created)
		}
		if err != nil {
			return err
		}
	}
	return tx.Commit()
}
