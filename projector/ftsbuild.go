package projector

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"

	tapelog "github.com/tape-dev/tape/log"
)

// buildFile is the scratch database in which a pass that starts from an
// empty index builds the search index (see ftsBuild). Only the holder of
// the index lock uses it; a pass removes what a killed one left.
const buildFile = "index-build.db"

// buildAutomerge is the builder's FTS5 automerge setting.
const buildAutomerge = 8

// ftsBatch is how many search rows go to the builder at a time: one channel
// send per row cost more than the send saved.
const ftsBatch = 256

// ftsShadows are the tables in which FTS5 keeps entries_fts (a contentless
// table with contentless_delete has no content table). Their rows are the
// whole index: copied into a table of the same definition, they make it
// the same index.
var ftsShadows = []string{"entries_fts_data", "entries_fts_idx", "entries_fts_docsize", "entries_fts_config"}

// ftsBuild builds the search index of a pass that starts from an empty
// index (a rebuild, or the first pass of a new index.db) on a second
// connection, in buildFile, while the pass's own connection writes the
// entries. FTS5 (tokenizing, hashing, merging segments) is most of a
// rebuild's time, and SQLite writes one database from one thread at a
// time; a second database file is what lets it use the second core.
//
// Before it commits, the pass copies the shadow tables of the built index
// into those of entries_fts (copyInto): copying rows is cheap next to
// building them, and the copy is in the pass's transaction, so readers see
// the old index or the new one, never a mix. The builder starts with the
// first row, so a pass with nothing to index makes no scratch file.
type ftsBuild struct {
	path    string
	db      *sql.DB
	batch   []ftsRow
	rows    chan []ftsRow
	done    chan error
	started bool
	running bool  // the builder goroutine has not reported on done yet
	failed  error // the builder's error, once it has reported one
}

// ftsRow is one change to the search index: a row to add, or, with del
// set, one to remove.
type ftsRow struct {
	rowid int64
	text  string
	del   bool
}

// newFTSBuild prepares a build in the workspace's buildFile, which it
// creates empty and private (it will hold the tapes' words, and SQLite
// would create it readable by all), after removing what a killed pass may
// have left there.
func newFTSBuild(ws *tapelog.Workspace) (*ftsBuild, error) {
	if err := ws.Remove(buildFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("remove old search index build: %w", err)
	}
	f, err := ws.CreatePrivate(buildFile)
	if err != nil {
		return nil, fmt.Errorf("search index build: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("search index build: %w", err)
	}
	return &ftsBuild{path: ws.Abs(buildFile)}, nil
}

// add queues a row for the search index.
func (b *ftsBuild) add(ctx context.Context, rowid int64, text string) error {
	return b.push(ctx, ftsRow{rowid: rowid, text: text})
}

// remove queues the removal of rows added earlier in the pass.
func (b *ftsBuild) remove(ctx context.Context, rowids []int64) error {
	for _, id := range rowids {
		if err := b.push(ctx, ftsRow{rowid: id, del: true}); err != nil {
			return err
		}
	}
	return nil
}

func (b *ftsBuild) push(ctx context.Context, r ftsRow) error {
	if !b.started {
		if err := b.start(ctx); err != nil {
			return err
		}
	}
	b.batch = append(b.batch, r)
	if len(b.batch) < ftsBatch {
		return nil
	}
	return b.flush(ctx)
}

func (b *ftsBuild) flush(ctx context.Context) error {
	if len(b.batch) == 0 {
		return nil
	}
	select {
	case b.rows <- b.batch:
		b.batch = make([]ftsRow, 0, ftsBatch)
		return nil
	case err := <-b.done: // the builder stopped early
		b.running, b.failed = false, err
		return fmt.Errorf("build search index: %w", err)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// start opens the scratch database, creates entries_fts in it and starts
// the goroutine that fills it, in one transaction. Nothing in it needs to
// survive a crash: no journal, no syncs. A cache of 8 MiB builds as fast
// as one of 32 MiB (FTS5 writes its segments mostly in order).
func (b *ftsBuild) start(ctx context.Context) error {
	b.started = true
	dsn := "file:" + b.path + "?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=cache_size(-8192)&_pragma=locking_mode(NORMAL)"
	b.db = sql.OpenDB(newConnector(dsn))
	b.db.SetMaxOpenConns(1)
	if _, err := b.db.ExecContext(ctx, ftsSchema); err != nil {
		return fmt.Errorf("create search index build %s: %w", b.path, err)
	}
	// Merge segments eight at a time instead of four: a rebuild of 100k
	// entries took 4.35 s instead of 5.05 (medians of three). copyInto
	// leaves the setting behind, so index.db keeps FTS5's default.
	if _, err := b.db.ExecContext(ctx, `INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', ?)`, buildAutomerge); err != nil {
		return fmt.Errorf("configure search index build: %w", err)
	}
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin search index build: %w", err)
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO entries_fts (rowid, text) VALUES (?, ?)`)
	if err != nil {
		tx.Rollback()
		return fmt.Errorf("prepare search index build: %w", err)
	}
	del, err := tx.PrepareContext(ctx, `DELETE FROM entries_fts WHERE rowid = ?`)
	if err != nil {
		tx.Rollback()
		return fmt.Errorf("prepare search index build: %w", err)
	}
	b.batch = make([]ftsRow, 0, ftsBatch)
	// Room for a lag: the pass's last steps (the views, the checkpoints)
	// run on one core, and the builder can use the other meanwhile.
	b.rows = make(chan []ftsRow, 32)
	b.done = make(chan error, 1)
	b.running = true
	go b.run(ctx, b.rows, tx, ins, del)
	return nil
}

// run applies the batches until rows is closed, then commits. After an
// error it stops and reports it; flush sees it.
func (b *ftsBuild) run(ctx context.Context, rows <-chan []ftsRow, tx *sql.Tx, ins, del *sql.Stmt) {
	defer tx.Rollback()
	for batch := range rows {
		for _, r := range batch {
			var err error
			if r.del {
				_, err = del.ExecContext(ctx, r.rowid)
			} else {
				_, err = ins.ExecContext(ctx, r.rowid, r.text)
			}
			if err != nil {
				b.done <- fmt.Errorf("search row %d: %w", r.rowid, err)
				return
			}
		}
	}
	b.done <- tx.Commit()
}

// finish waits for the builder to write everything queued, and reports
// whether it built anything.
func (b *ftsBuild) finish(ctx context.Context) (bool, error) {
	if !b.started {
		return false, nil
	}
	if err := b.flush(ctx); err != nil {
		return false, err
	}
	close(b.rows)
	b.rows = nil
	select {
	case err := <-b.done:
		b.running = false
		if err != nil {
			b.failed = err
			return false, fmt.Errorf("build search index: %w", err)
		}
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// copyInto replaces the search index of the transaction's database with
// the one built, attached to its connection as schema "build". The
// connection must be closed after the pass: FTS5 caches an index's
// structure per connection and would not see rows written beside it.
func (b *ftsBuild) copyInto(ctx context.Context, tx sqlTx) error {
	for _, t := range ftsShadows {
		if _, err := tx.ExecContext(ctx, `DELETE FROM main.`+t); err != nil {
			return fmt.Errorf("copy search index: %w", err)
		}
		q := `INSERT INTO main.` + t + ` SELECT * FROM build.` + t
		if t == "entries_fts_config" {
			q += ` WHERE k <> 'automerge'` // the builder's own setting
		}
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("copy search index: %w", err)
		}
	}
	return nil
}

// close stops the builder if it still runs, and removes the scratch file.
func (b *ftsBuild) close() error {
	if b.rows != nil { // stopped early: let the builder end and roll back
		close(b.rows)
		b.rows = nil
	}
	if b.running { // it ends soon: its rows are closed, or its context is done
		<-b.done
		b.running = false
	}
	if b.db != nil {
		b.db.Close()
	}
	if err := os.Remove(b.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove search index build: %w", err)
	}
	return nil
}
