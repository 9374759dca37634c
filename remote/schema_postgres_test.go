//go:build postgres

package remote

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// Clients that find an empty database at once make the schema once, in
// order, each migration with its version row; a database migrated by a
// newer tape is refused by name, and reads of a database no sync made
// say to run one.
func TestMigrations(t *testing.T) {
	ctx := context.Background()
	url := server.DB(t)
	if _, _, err := Tapes(ctx, connect(t, url), TapesFilter{}); !errors.Is(err, ErrNoSchema) {
		t.Errorf("tapes of an empty database: %v, want ErrNoSchema", err)
	}
	var wg sync.WaitGroup
	for range 4 {
		conn := connect(t, url)
		wg.Go(func() {
			if err := migrate(ctx, conn); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	conn := connect(t, url)
	var versions, max int
	if err := conn.QueryRow(ctx, `SELECT count(*), max(version) FROM tape.schema_migrations`).Scan(&versions, &max); err != nil {
		t.Fatal(err)
	}
	if versions != SchemaVersion || max != SchemaVersion {
		t.Errorf("after four clients migrated at once: %d version rows, the last %d; want %d", versions, max, SchemaVersion)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO tape.schema_migrations (version) VALUES ($1)`, SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, conn); !errors.Is(err, ErrNewerSchema) {
		t.Errorf("migrate a newer schema: %v, want ErrNewerSchema", err)
	}
}
