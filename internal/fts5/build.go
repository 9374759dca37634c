package fts5

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"runtime"

	"github.com/tape-dev/tape/internal/sqlitefile"
)

// batch is how many search rows go to a builder at a time: one channel
// send per row cost more than the send saved.
const batch = 256

// batchBytes bounds a batch in the bytes of its text too, and queued how
// many batches wait for a part's builder: together they bound what a part
// holds in memory (about 2 MiB queued) whatever the entries' size. With 32
// batches of 256 rows queued, a builder that fell behind held tens of MB
// of tool output (docs/decisions/0082).
const (
	batchBytes = 256 << 10
	queued     = 8
)

// DefaultBlock is the runs of rowids that go to each part by default: a
// batch, so that a part's batches hold consecutive rowids.
const DefaultBlock int64 = batch

// buildHash is a builder's FTS5 hashsize: how many bytes of terms it
// holds before it writes them out as a segment. FTS5's default (1 MiB) made
// a part write a segment every few hundred rows and merge them again, a
// quarter of its time; with 32 MiB (what the native baseline, `tape-bench
// native`, uses too) a rebuild of 100k entries took 12% less time and its
// peak RSS grew by about 50 MB, which stays the same for a larger corpus:
// the hash is written out when full (three interleaved rebuilds at each
// size, `bin/tape-bench rebuild -dir /tmp/c100k -tape bin/tape`, 2026-11-23;
// docs/decisions/0024). 8 MiB, with index.db's page cache at 8 MiB too,
// took a rebuild of 354,395 imported entries from 341-346 MB of peak RSS
// to 240-249 MB at the same time, medians of four 67.4 s against 66.4 s
// (issue 31 wants 200 MB; docs/decisions/0079).
const buildHash = 8 << 20

// buildMerge is a builder's FTS5 crisismerge: how many segments of a
// level it lets gather before it merges them into one of the next level.
// At FTS5's default of 16, a part of 177k entries merged its first level
// before its optimize merged everything again, 3.7% of a rebuild's CPU
// (perf); at 64 a rebuild of 354,395 entries took 55-60 s instead of
// 65-79 s (docs/decisions/0082).
const buildMerge = 64

// Build builds the search index of a pass that starts from an empty
// index (a rebuild, or the first pass of a new index.db) on other
// connections, in scratch databases, while the pass's own connection
// writes the entries. FTS5 (tokenizing, hashing, merging segments) is
// most of a rebuild's time, and SQLite writes one database from one thread
// at a time; other database files are what let it use the other cores.
//
// With more than one core the build is split in parts, each its own FTS5
// index of a share of the rows, in its own file, filled by its own
// goroutine: rows go to parts in blocks of consecutive rowids, so each
// part sees its rowids in order, as FTS5 wants them, and a row's removal
// goes to the part that has it.
//
// Before it commits, the pass copies the shadow tables of the built
// indexes into those of entries_fts (CopyInto), joining parts into one
// index (join.go): copying rows is cheap next to building them, and the
// copy is in the pass's transaction, so readers see the old index or the
// new one, never a mix. A part starts with its first row, so a pass with
// nothing to index starts no builder.
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
// being the same in both databases (one SQLite, one Schema); the join of
// several, also on the formats of two of FTS5's own records, SQLite's
// internals (record.go). CheckJoin checks those formats; a caller runs it
// before its first join (Joins), and if the SQLite linked in fails it, or
// the join refuses a part, writes the search index in place instead
// (package projector: passOn, Stats.SearchInPlace).
//
// A Build is used from one goroutine, the pass's: NewBuild, Add and
// Remove as the pass goes, Finish, Attach and CopyInto before it commits,
// Close after, whatever happened.
type Build struct {
	parts []*part
	block int64 // rowids go to parts in runs of this many
}

// part is one scratch database and the goroutine that fills it.
type part struct {
	path       string
	schema     string // the name it is attached under to the pass's connection
	hash       int    // FTS5's hashsize (buildHash if 0; tests make it small for many segments)
	merge      int    // FTS5's crisismerge (buildMerge if 0; a test uses FTS5's 16, for levels in small builds)
	db         *sql.DB
	batch      []row
	batchBytes int // of the batch's text
	rows       chan []row
	done       chan error
	started    bool
	running    bool  // the builder goroutine has not reported on done yet
	failed     error // the builder's error, once it has reported one
}

// row is one change to the search index: a row to add, or, with del set,
// one to remove. text and parts are the table's two columns (Schema).
type row struct {
	rowid       int64
	text, parts string
	del         bool
}

// DefaultParts is how many parts a build is split into by default: one
// per core, at least one and at most two. On two cores, two: the pass's
// own connection is busy about half the time, and more parts than cores
// only add segments to join.
func DefaultParts() int {
	return min(max(runtime.GOMAXPROCS(0), 1), 2)
}

// NewBuild prepares a build of n parts (1 to MaxParts) in the folder
// dir, routing rowids to them in runs of block. It creates the scratch
// files (BuildFile) empty and private (they will hold the tapes' words,
// and SQLite would create them readable by all); the caller has removed
// what a killed pass left (RemoveBuilds), and if it could not, this
// fails and the caller builds in place.
func NewBuild(dir string, n int, block int64) (*Build, error) {
	if n < 1 || n > MaxParts || block < 1 {
		return nil, fmt.Errorf("search index build of %d parts, blocks of %d: out of range", n, block)
	}
	b := &Build{block: block}
	for k := range n {
		path, err := createPrivate(dir, BuildFile(k))
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("search index build: %w", err)
		}
		b.parts = append(b.parts, &part{path: path, schema: fmt.Sprintf("build%d", k)})
	}
	return b, nil
}

// SetHashSize sets the builders' FTS5 hashsize, in bytes, before the first
// Add: how much of the terms a builder holds before it writes a segment.
// Tests make it small, for many segments and merges; 0 keeps the default.
func (b *Build) SetHashSize(bytes int) {
	for _, p := range b.parts {
		p.hash = bytes
	}
}

// part is the part that has, or will have, rowid.
func (b *Build) part(rowid int64) *part {
	if len(b.parts) == 1 {
		return b.parts[0]
	}
	return b.parts[(rowid/b.block)%int64(len(b.parts))]
}

// Add queues a row for the search index: its rowid, and its two columns
// (Schema). Rowids come in increasing order, as a pass inserts them.
func (b *Build) Add(ctx context.Context, rowid int64, text, parts string) error {
	return b.part(rowid).push(ctx, row{rowid: rowid, text: text, parts: parts})
}

// Remove queues the removal of rows added earlier in the pass.
func (b *Build) Remove(ctx context.Context, rowids []int64) error {
	for _, id := range rowids {
		if err := b.part(id).push(ctx, row{rowid: id, del: true}); err != nil {
			return err
		}
	}
	return nil
}

func (p *part) push(ctx context.Context, r row) error {
	if !p.started {
		if err := p.start(ctx); err != nil {
			return err
		}
	}
	p.batch = append(p.batch, r)
	p.batchBytes += len(r.text) + len(r.parts)
	if len(p.batch) < batch && p.batchBytes < batchBytes {
		return nil
	}
	return p.flush(ctx)
}

func (p *part) flush(ctx context.Context) error {
	if len(p.batch) == 0 {
		return nil
	}
	select {
	case p.rows <- p.batch:
		p.batch, p.batchBytes = make([]row, 0, batch), 0
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
func (p *part) start(ctx context.Context) error {
	p.started = true
	p.db = openDB(sqlitefile.URI(p.path) + "?mode=rw&_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=cache_size(-8192)&_pragma=locking_mode(NORMAL)")
	if _, err := p.db.ExecContext(ctx, Schema); err != nil {
		return fmt.Errorf("create search index build %s: %w", p.path, err)
	}
	// No incremental merges: FTS5 merges a level whole when it reaches
	// buildMerge segments (crisismerge), and run optimizes the whole at
	// the end.
	// CopyInto leaves the settings behind, so index.db keeps FTS5's
	// defaults.
	config := []string{
		`INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', 0)`,
		fmt.Sprintf(`INSERT INTO entries_fts (entries_fts, rank) VALUES ('crisismerge', %d)`, cmp.Or(p.merge, buildMerge)),
		fmt.Sprintf(`INSERT INTO entries_fts (entries_fts, rank) VALUES ('hashsize', %d)`, cmp.Or(p.hash, buildHash)),
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
	p.batch = make([]row, 0, batch)
	// Room for a lag: the pass's last steps (the views, the checkpoints)
	// run on one core, and the builder can use the other meanwhile.
	p.rows = make(chan []row, queued)
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
func (p *part) run(ctx context.Context, rows <-chan []row, tx *sql.Tx, ins, del *sql.Stmt) {
	defer tx.Rollback()
	for batch := range rows {
		for _, r := range batch {
			var err error
			if r.del {
				_, err = del.ExecContext(ctx, r.rowid)
			} else {
				_, err = ins.ExecContext(ctx, r.rowid, r.text, r.parts)
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

// Finish waits for the builders to write everything queued, and reports
// whether they built anything: if not, there is nothing to copy.
func (b *Build) Finish(ctx context.Context) (bool, error) {
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

// Joins reports whether the build has more than one part to copy in,
// which CopyInto joins, and so whether the caller must check the join
// first (CheckJoin); one part is copied as it is.
func (b *Build) Joins() bool {
	n := 0
	for _, p := range b.parts {
		if p.started {
			n++
		}
	}
	return n > 1
}

// Close stops the builders that still run, and removes the scratch files.
func (b *Build) Close() error {
	var first error
	for _, p := range b.parts {
		if err := p.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (p *part) close() error {
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
	return removeFile(p.path)
}
