package projector

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"

	"github.com/tape-dev/tape/internal/fileutil"
	"github.com/tape-dev/tape/internal/fts5"
	tapelog "github.com/tape-dev/tape/log"
)

// buildFile is the scratch database in which a pass that starts from an
// empty index builds the search index (see ftsBuild); a build in parts
// puts part k > 0 in index-build-k.db. Only the holder of the index lock
// uses them; a pass removes what a killed one left.
const buildFile = "index-build.db"

// maxBuildParts bounds the parts a build is split into, and so the scratch
// files a pass looks for to remove.
const maxBuildParts = 4

// ftsBatch is how many search rows go to a builder at a time: one channel
// send per row cost more than the send saved.
const ftsBatch = 256

// ftsBuildHash is a builder's FTS5 hashsize: how many bytes of terms it
// holds before it writes them out as a segment. FTS5's default (1 MiB) made
// a part write a segment every few hundred rows and merge them again, a
// quarter of its time; with 32 MiB (what the native baseline, `tape-bench
// native`, uses too) a rebuild of 100k entries took 12% less time and its
// peak RSS grew by about 50 MB, which stays the same for a larger corpus:
// the hash is written out when full (three interleaved rebuilds at each
// size, `bin/tape-bench rebuild -dir /tmp/c100k -tape bin/tape`, 2026-11-23;
// docs/decisions/0024).
const ftsBuildHash = 32 << 20

// ftsShadows are the tables in which FTS5 keeps entries_fts (a contentless
// table with contentless_delete has no content table). Their rows are the
// whole index: copied into a table of the same definition, they make it
// the same index.
var ftsShadows = []string{"entries_fts_data", "entries_fts_idx", "entries_fts_docsize", "entries_fts_config"}

// ftsBuild builds the search index of a pass that starts from an empty
// index (a rebuild, or the first pass of a new index.db) on other
// connections, in scratch databases, while the pass's own connection
// writes the entries. FTS5 (tokenizing, hashing, merging segments) is
// most of a rebuild's time, and SQLite writes one database from one thread
// at a time; other database files are what let it use the other cores.
//
// With more than one core the build is split in parts (ftsPart), each
// its own FTS5 index of a share of the rows, in its own file, filled by
// its own goroutine: rows go to parts in blocks of consecutive rowids, so
// each part sees its rowids in order, as FTS5 wants them, and a row's
// removal goes to the part that has it.
//
// Before it commits, the pass copies the shadow tables of the built
// indexes into those of entries_fts (copyInto), joining parts into one
// index (package fts5): copying rows is cheap next to building them, and
// the copy is in the pass's transaction, so readers see the old index or
// the new one, never a mix. A part starts with its first row, so a pass
// with nothing to index starts no builder.
//
// What it buys: building it beside in one part, with the one-pass line
// parser of the same change, took a rebuild of 1M entries from 71.4 s to
// 58.2 s, and two parts joined took it from 53.65 s (one builder, at
// ef4f441) to 44.10 s: one run of each binary in one loop, 2026-11-22,
// `bin/tape-bench rebuild -dir /tmp/c1m -tape BIN` on the corpus of
// `bin/tape-bench gen -entries 1000000` (the tables are in git: `git show
// 809b766:BENCHMARKS.md`; docs/decisions/0023). At 20k entries, in
// process, one part bought nothing: 922 ms a rebuild against 936 in
// place, medians (`go test ./projector -run '^$' -bench Rebuild -count
// 6`, beside against in-place).
//
// What it depends on: the copy of one part, only on the shadow tables
// being the same in both databases (one SQLite, one ftsSchema); the join
// of several, also on the formats of two of FTS5's own records, SQLite's
// internals (package fts5). A Projector checks those formats before its
// first join (ftsprobe.go); if the SQLite linked in fails the check, or
// the join refuses a part, the pass runs again and writes the search index
// in place (passOn), and Stats says why (SearchInPlace).
type ftsBuild struct {
	parts []*ftsPart
	block int64 // rowids go to parts in runs of this many
}

// ftsPart is one scratch database and the goroutine that fills it.
type ftsPart struct {
	path    string
	schema  string // the name it is attached under to the pass's connection
	hash    int    // FTS5's hashsize (ftsBuildHash; tests make it small for many segments)
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
	text  ftsText
	del   bool
}

// buildPath is the scratch file of part k.
func buildPath(k int) string {
	if k == 0 {
		return buildFile
	}
	return fmt.Sprintf("index-build-%d.db", k)
}

// buildParts is how many parts a build is split into by default: one per
// core, at least one and at most two. On two cores, two: the pass's own
// connection is busy about half the time, and more parts than cores
// only add segments to join.
func buildParts() int {
	return min(max(runtime.GOMAXPROCS(0), 1), 2)
}

// newFTSBuild prepares a build of n parts (1 to maxBuildParts), routing
// rowids to them in runs of block. It creates the scratch files empty and
// private (they will hold the tapes' words, and SQLite would create them
// readable by all); the pass has removed what a killed one left
// (removeBuilds), and if it could not, this fails and the pass builds in
// place.
func newFTSBuild(ws *tapelog.Workspace, n int, block int64) (*ftsBuild, error) {
	if n < 1 || n > maxBuildParts || block < 1 {
		return nil, fmt.Errorf("search index build of %d parts, blocks of %d: out of range", n, block)
	}
	b := &ftsBuild{block: block}
	for k := range n {
		f, err := ws.CreatePrivate(buildPath(k))
		if err != nil {
			b.close()
			return nil, fmt.Errorf("search index build: %w", err)
		}
		b.parts = append(b.parts, &ftsPart{path: ws.Abs(buildPath(k)), schema: fmt.Sprintf("build%d", k)})
		if err := f.Close(); err != nil {
			b.close()
			return nil, fmt.Errorf("search index build: %w", err)
		}
	}
	return b, nil
}

// removeBuilds removes the scratch files a killed pass may have left. Every
// pass does, under the index lock, so no pass is using them: they hold the
// tapes' words, and one a kill left behind stayed until the next rebuild.
func removeBuilds(ws *tapelog.Workspace) error {
	for k := range maxBuildParts {
		if err := ws.Remove(buildPath(k)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove old search index build: %w", err)
		}
	}
	return nil
}

// removeKilledBuilds removes what a killed pass left, if no pass runs:
// the index lock is free. A watcher calls it when a reader asks, so that
// a rebuild killed beside it leaves nothing for long, though the watcher
// may have no pass to run.
func (p *Projector) removeKilledBuilds() {
	if !buildsLeft(p.ws) {
		return
	}
	if free, err := fileutil.TryLock(p.lock); err != nil || !free {
		return // a pass runs: the files are its own, or it removes them
	}
	defer fileutil.Unlock(p.lock) //nolint:errcheck // closing releases it anyway
	removeBuilds(p.ws)            //nolint:errcheck // the next pass tries again
}

// part is the part that has, or will have, rowid.
func (b *ftsBuild) part(rowid int64) *ftsPart {
	if len(b.parts) == 1 {
		return b.parts[0]
	}
	return b.parts[(rowid/b.block)%int64(len(b.parts))]
}

// add queues a row for the search index.
func (b *ftsBuild) add(ctx context.Context, rowid int64, text ftsText) error {
	return b.part(rowid).push(ctx, ftsRow{rowid: rowid, text: text})
}

// remove queues the removal of rows added earlier in the pass.
func (b *ftsBuild) remove(ctx context.Context, rowids []int64) error {
	for _, id := range rowids {
		if err := b.part(id).push(ctx, ftsRow{rowid: id, del: true}); err != nil {
			return err
		}
	}
	return nil
}

func (p *ftsPart) push(ctx context.Context, r ftsRow) error {
	if !p.started {
		if err := p.start(ctx); err != nil {
			return err
		}
	}
	p.batch = append(p.batch, r)
	if len(p.batch) < ftsBatch {
		return nil
	}
	return p.flush(ctx)
}

func (p *ftsPart) flush(ctx context.Context) error {
	if len(p.batch) == 0 {
		return nil
	}
	select {
	case p.rows <- p.batch:
		p.batch = make([]ftsRow, 0, ftsBatch)
		return nil
	case err := <-p.done: // the builder stopped early
		p.running, p.failed = false, err
		return fmt.Errorf("build search index: %w", err)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// start opens the scratch database, creates entries_fts in it and starts
// the goroutine that fills it, in one transaction. Nothing in it needs to
// survive a crash: no journal, no syncs. A cache of 8 MiB builds as fast
// as one of 32 MiB (FTS5 writes its segments mostly in order).
func (p *ftsPart) start(ctx context.Context) error {
	p.started = true
	dsn := fileURI(p.path) + "?mode=rw&_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=cache_size(-8192)&_pragma=locking_mode(NORMAL)"
	p.db = sql.OpenDB(newConnector(dsn))
	p.db.SetMaxOpenConns(1)
	if _, err := p.db.ExecContext(ctx, ftsSchema); err != nil {
		return fmt.Errorf("create search index build %s: %w", p.path, err)
	}
	// No incremental merges: FTS5 merges a level whole when it reaches
	// 16 segments (crisismerge), and run optimizes the whole at the end.
	// copyInto leaves the settings behind, so index.db keeps FTS5's
	// defaults.
	config := []string{
		`INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', 0)`,
		fmt.Sprintf(`INSERT INTO entries_fts (entries_fts, rank) VALUES ('hashsize', %d)`, cmp.Or(p.hash, ftsBuildHash)),
	}
	for _, q := range config {
		if _, err := p.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("configure search index build: %w", err)
		}
	}
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin search index build: %w", err)
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO entries_fts (rowid, text, parts) VALUES (?, ?, ?)`)
	if err != nil {
		tx.Rollback()
		return fmt.Errorf("prepare search index build: %w", err)
	}
	del, err := tx.PrepareContext(ctx, `DELETE FROM entries_fts WHERE rowid = ?`)
	if err != nil {
		tx.Rollback()
		return fmt.Errorf("prepare search index build: %w", err)
	}
	p.batch = make([]ftsRow, 0, ftsBatch)
	// Room for a lag: the pass's last steps (the views, the checkpoints)
	// run on one core, and the builder can use the other meanwhile.
	p.rows = make(chan []ftsRow, 32)
	p.done = make(chan error, 1)
	p.running = true
	go p.run(ctx, p.rows, tx, ins, del)
	return nil
}

// run applies the batches until rows is closed, then merges the part's
// segments into one and commits. After an error it stops and reports it;
// flush sees it.
//
// The merge costs a tenth of a rebuild of 100k entries (3.7 s to 4.1 s),
// less than the incremental merges it replaces at 1M, and is what searches
// need: an index of a million entries joined from parts that were not
// merged had 35 segments, which made searches 13% slower than the 14 of
// one built with automerge 8; the two of two merged parts made them 10%
// faster. It also leaves no merge unfinished, which a join needs.
func (p *ftsPart) run(ctx context.Context, rows <-chan []ftsRow, tx *sql.Tx, ins, del *sql.Stmt) {
	defer tx.Rollback()
	for batch := range rows {
		for _, r := range batch {
			var err error
			if r.del {
				_, err = del.ExecContext(ctx, r.rowid)
			} else {
				_, err = ins.ExecContext(ctx, r.rowid, r.text.text, r.text.parts)
			}
			if err != nil {
				p.done <- fmt.Errorf("search row %d: %w", r.rowid, err)
				return
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO entries_fts (entries_fts) VALUES ('optimize')`); err != nil {
		p.done <- fmt.Errorf("merge search index build: %w", err)
		return
	}
	p.done <- tx.Commit()
}

// finish waits for the builders to write everything queued, and reports
// whether they built anything.
func (b *ftsBuild) finish(ctx context.Context) (bool, error) {
	built := false
	for _, p := range b.parts {
		if !p.started {
			continue
		}
		if err := p.flush(ctx); err != nil {
			return false, err
		}
		close(p.rows)
		p.rows = nil
		built = true
	}
	for _, p := range b.parts {
		if !p.running {
			continue
		}
		select {
		case err := <-p.done:
			p.running = false
			if err != nil {
				p.failed = err
				return false, fmt.Errorf("build search index: %w", err)
			}
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	return built, nil
}

// joins reports whether the build has more than one part to copy in, which
// the copy joins (copyInto); one part is copied as it is.
func (b *ftsBuild) joins() bool {
	n := 0
	for _, p := range b.parts {
		if p.started {
			n++
		}
	}
	return n > 1
}

// attach attaches the scratch databases to conn, which runs the pass, each
// under its part's schema name.
func (b *ftsBuild) attach(ctx context.Context, conn *sql.Conn) error {
	for _, p := range b.parts {
		if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS `+p.schema, p.path); err != nil {
			return fmt.Errorf("attach search index build %s: %w", p.path, err)
		}
	}
	return nil
}

// copyInto replaces the search index of the transaction's database with
// the one built, its parts attached to its connection (attach). The
// connection must be closed after the pass: FTS5 caches an index's
// structure per connection and would not see rows written beside it.
func (b *ftsBuild) copyInto(ctx context.Context, tx sqlTx) error {
	var built []*ftsPart
	for _, p := range b.parts {
		if p.started {
			built = append(built, p)
		}
	}
	if len(built) == 0 {
		return nil
	}
	for _, t := range ftsShadows {
		if _, err := tx.ExecContext(ctx, `DELETE FROM main.`+t); err != nil {
			return fmt.Errorf("copy search index: %w", err)
		}
	}
	// The builders' own settings stay behind.
	if _, err := tx.ExecContext(ctx, `INSERT INTO main.entries_fts_config SELECT * FROM `+built[0].schema+
		`.entries_fts_config WHERE k NOT IN ('automerge', 'crisismerge', 'hashsize')`); err != nil {
		return fmt.Errorf("copy search index: %w", err)
	}
	if len(built) == 1 {
		from := built[0].schema
		for _, t := range ftsShadows[:3] {
			if _, err := tx.ExecContext(ctx, `INSERT INTO main.`+t+` SELECT * FROM `+from+`.`+t); err != nil {
				return fmt.Errorf("copy search index: %w", err)
			}
		}
		return nil
	}
	return joinInto(ctx, tx, built)
}

// joinInto copies the indexes of parts into main's entries_fts as one
// index (package fts5): their segments renumbered, their records of the
// whole index added up.
func joinInto(ctx context.Context, tx sqlTx, parts []*ftsPart) error {
	structs := make([]fts5.Structure, len(parts))
	averages := make([][]byte, len(parts))
	for k, p := range parts {
		var rec []byte
		err := tx.QueryRowContext(ctx, `SELECT block FROM `+p.schema+`.entries_fts_data WHERE id = ?`, fts5.StructureRowid).Scan(&rec)
		if err == nil {
			structs[k], err = fts5.DecodeStructure(rec)
		}
		if err == nil {
			err = tx.QueryRowContext(ctx, `SELECT block FROM `+p.schema+`.entries_fts_data WHERE id = ?`, fts5.AveragesRowid).Scan(&averages[k])
		}
		if err == nil {
			err = tx.QueryRowContext(ctx, `SELECT coalesce(max(origin), 0) FROM `+p.schema+`.entries_fts_docsize`).Scan(&structs[k].RowOrigin)
		}
		var other int
		if err == nil { // only the two records of the whole index sit below the segments
			err = tx.QueryRowContext(ctx, `SELECT count(*) FROM `+p.schema+`.entries_fts_data WHERE id < ? AND id NOT IN (?, ?)`,
				int64(1)<<fts5.SegidShift, fts5.AveragesRowid, fts5.StructureRowid).Scan(&other)
		}
		if err == nil && other > 0 {
			err = fmt.Errorf("%d records of an unknown kind", other)
		}
		if err != nil {
			return fmt.Errorf("join search index part %s: %w", p.path, err)
		}
	}
	joined, shifts, err := fts5.Join(structs)
	if err != nil {
		return err
	}
	avg, err := fts5.JoinAverages(averages)
	if err != nil {
		return err
	}
	for k, p := range parts {
		sh := shifts[k]
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO main.entries_fts_data (id, block) SELECT id + ?, block FROM ` + p.schema + `.entries_fts_data WHERE id >= ?`,
				[]any{int64(sh.Segid) << fts5.SegidShift, int64(1) << fts5.SegidShift}},
			{`INSERT INTO main.entries_fts_idx (segid, term, pgno) SELECT segid + ?, term, pgno FROM ` + p.schema + `.entries_fts_idx`,
				[]any{sh.Segid}},
			{`INSERT INTO main.entries_fts_docsize (id, sz, origin) SELECT id, sz, origin + ? FROM ` + p.schema + `.entries_fts_docsize`,
				[]any{int64(sh.Origin)}},
		} {
			if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
				return fmt.Errorf("copy search index part %s: %w", p.path, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO main.entries_fts_data (id, block) VALUES (?, ?), (?, ?)`,
		fts5.AveragesRowid, avg, fts5.StructureRowid, joined.Encode()); err != nil {
		return fmt.Errorf("copy search index: %w", err)
	}
	return nil
}

// close stops the builders that still run, and removes the scratch files.
func (b *ftsBuild) close() error {
	var first error
	for _, p := range b.parts {
		if err := p.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (p *ftsPart) close() error {
	if p.rows != nil { // stopped early: let the builder end and roll back
		close(p.rows)
		p.rows = nil
	}
	if p.running { // it ends soon: its rows are closed, or its context is done
		<-p.done
		p.running = false
	}
	if p.db != nil {
		p.db.Close()
	}
	if err := os.Remove(p.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove search index build: %w", err)
	}
	return nil
}
