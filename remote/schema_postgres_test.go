//go:build postgres

package remote

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
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

// Migration 2 mends the runs an older tape synced with counts out of
// range (2^63-1 read back as negative; a count of -5): the count becomes
// 0, a total out of range the sum of the others, the row is marked as
// bad usage, and which run of its usage id counts is decided again.
func TestMigrationMendsBadCounts(t *testing.T) {
	ctx := context.Background()
	conn := connect(t, server.DB(t))
	if err := ensureSchema(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, migrations[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO tape.schema_migrations (version) VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	// Two runs of one usage id: the first, read as -2^63 and 7, counted
	// by the old rule only because the other's total was lower still.
	_, err := conn.Exec(ctx, `INSERT INTO tape.runs (workspace_id, tape, folder, file, line, anchor_seq, eff_time, status, model, has_usage,
		input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens, total_tokens, usage_id, counted) VALUES
		('w', 't', 'f', 'a.jsonl', 1, 1, 0, '', 'm', true, -9223372036854775808, 7, 0, 0, -9223372036854775801, 'req', false),
		('w', 't', 'f', 'a.jsonl', 2, 1, 0, '', 'm', true, 3, -5, 0, 0, -2, 'req', true),
		('w', 't', 'f', 'a.jsonl', 3, 1, 0, '', 'm', true, 4, 5, 0, 0, 9, NULL, true)`)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, conn); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT input_tokens, output_tokens, total_tokens, bad_usage, counted FROM tape.runs ORDER BY line`)
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		in, out, total int64
		bad, counted   bool
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (run, error) {
		var x run
		err := r.Scan(&x.in, &x.out, &x.total, &x.bad, &x.counted)
		return x, err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []run{{0, 7, 7, true, true}, {3, 0, 3, true, false}, {4, 5, 9, false, true}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("runs after migration 2: %+v, want %+v", got, want)
	}
}
