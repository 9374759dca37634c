package projector

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/internal/sqlitefile"
)

// removeIndex deletes index.db and its WAL and shared-memory files, as
// `rm .tape/index.db*` does.
func removeIndex(t *testing.T, dir string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(filepath.Join(dir, IndexFile+suffix)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

func TestUnreadableIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "zebra")
	if err := os.WriteFile(filepath.Join(ws.Dir(), IndexFile), []byte(strings.Repeat("not a database ", 500)), 0o600); err != nil {
		t.Fatal(err)
	}
	p := openProjector(t, ws)
	catchUp(t, p)
	if !found(t, p, "zebra") {
		t.Error("after replacing an unreadable index, search finds nothing")
	}
	aside, _ := filepath.Glob(filepath.Join(ws.Dir(), IndexFile+".unreadable-*"))
	if len(aside) != 1 {
		t.Errorf("unreadable index kept aside as %v, want one file", aside)
	}
}

func TestOlderSchemaIsRebuilt(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "zebra")
	p := openProjector(t, ws)
	catchUp(t, p)
	if _, err := p.DB().Exec(`UPDATE meta SET value = '0' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.DB().Exec(`DROP TABLE bad_lines`); err != nil {
		t.Fatal(err)
	}
	p.Close()
	p = openProjector(t, ws)
	if v, _, err := p.identity(context.Background()); err != nil || v != SchemaVersion {
		t.Fatalf("schema version after reopening = %d, %v", v, err)
	}
	catchUp(t, p)
	if !found(t, p, "zebra") {
		t.Error("after rebuilding an older schema, search finds nothing")
	}
}

// A new index never takes over the WAL of a deleted one that another
// process still has open: SQLite would read the old database's pages into
// it. (A closed index leaves an empty WAL: journal_size_limit truncates it.)
func TestNewIndexIgnoresDeletedIndexWAL(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "zebra")
	old := openProjector(t, ws) // keeps its connection, and its WAL, open
	catchUp(t, old)
	if fi, err := os.Stat(filepath.Join(ws.Dir(), IndexFile+"-wal")); err != nil || fi.Size() == 0 {
		t.Fatalf("the old index has no WAL frames (%v); the test needs them", err)
	}
	if err := os.Remove(filepath.Join(ws.Dir(), IndexFile)); err != nil {
		t.Fatal(err)
	}
	fresh := openProjector(t, ws)
	if found(t, fresh, "zebra") {
		t.Fatal("a new index read the deleted index's WAL")
	}
	catchUp(t, fresh)
	if !found(t, fresh, "zebra") {
		t.Error("the new index does not find zebra after catching up")
	}
}

// A pass waits for the one in progress elsewhere, and names its holder when
// it gives up.
func TestPassWaitsForTheHolder(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	holder := openProjector(t, ws)
	holder.Holder = "tape reindex --full"
	other := openProjector(t, ws)
	release := make(chan struct{})
	held := make(chan struct{})
	go holder.withLock(context.Background(), time.Second, func() error {
		close(held)
		<-release
		return nil
	})
	<-held
	_, err := other.CatchUpWait(context.Background(), 50*time.Millisecond)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "tape reindex --full") || !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Errorf("catch-up while another pass runs = %v; want ErrLocked naming the holder", err)
	}
	close(release)
	if _, err := other.CatchUpWait(context.Background(), 5*time.Second); err != nil {
		t.Errorf("catch-up after the holder is done: %v", err)
	}
}

// A connection opened just after index.db was deleted (CatchUpBeside
// checks, then opens by path) fails instead of making a new index.db, of
// mode 0644 and without tables, that the next Open would take as its own.
func TestConnectionNeverCreatesIndex(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "words")
	p := openProjector(t, ws)
	catchUp(t, p)
	removeIndex(t, ws.Dir())
	db := sql.OpenDB(sqlitefile.NewPersistWALConnector(p.dsn("immediate")))
	defer db.Close()
	var st Stats
	if err := p.passOn(context.Background(), db, false, nil, &st); err == nil {
		t.Error("a pass on a deleted index.db succeeded")
	}
	if _, err := os.Stat(filepath.Join(ws.Dir(), IndexFile)); !os.IsNotExist(err) {
		t.Errorf("index.db after a pass on the deleted one: %v; want none", err)
	}
	if _, err := p.CatchUpBeside(context.Background(), LockWait, nil); !errors.Is(err, ErrReplaced) {
		t.Errorf("CatchUpBeside of a deleted index.db: %v; want ErrReplaced", err)
	}
}

// TestTablesListsTheSchema checks that createSchema drops every table the
// schema makes (an index of another version is made anew in place).
func TestTablesListsTheSchema(t *testing.T) {
	t.Parallel()
	p := openProjector(t, newWorkspace(t))
	rows, err := p.DB().Query(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'entries_fts_%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(p.allTables(), name) {
			t.Errorf("table %s is not in tables: an index of another version would keep it", name)
		}
	}
}

// TestIndexWithoutAViewsTablesIsMadeAnew: an index made before a view was
// added lacks its tables; opening it makes the index anew, as for one of
// another version, so that adding a view needs no SchemaVersion.
func TestIndexWithoutAViewsTablesIsMadeAnew(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	p := openProjector(t, ws)
	if _, err := p.DB().Exec(`DROP TABLE runs`); err != nil {
		t.Fatal(err)
	}
	p.Close()
	p = openProjector(t, ws)
	if !p.Fresh {
		t.Error("an index without the runs table was opened as it was; want it made anew")
	}
	var n int
	if err := p.DB().QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'runs'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("runs tables after open: %d, %v; want 1", n, err)
	}
	p.Close()
	if p = openProjector(t, ws); p.Fresh {
		t.Error("an index with every table was made anew")
	}
}
