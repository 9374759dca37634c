package projector

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/tape-dev/tape/internal/fileutil"
	"github.com/tape-dev/tape/internal/sqlitefile"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views/recency"
)

// Names in the workspace.
const (
	IndexFile = "index.db"
	lockFile  = "index.lock"
)

// ErrLocked is returned when another process holds the index and waiting
// for it was not allowed or timed out.
var ErrLocked = errors.New("projector: the index is held by another process")

// Projector projects a workspace's files into its index.
type Projector struct {
	ws   *tapelog.Workspace
	path string
	db   *sql.DB // nil only while it is being reopened
	ino  uint64  // the inode of index.db as opened: a different one means it was replaced
	// gen is the generation of the index this Projector last opened or
	// prepared (generation.go): another one at index.db means the index
	// was made anew since, whatever the inode says.
	gen  string
	lock fileutil.HolderLock
	// Holder names this process in the lock file, for those who wait.
	Holder string
	// RankWindow overrides DefaultRankWindow for Search.
	RankWindow int
	// denseAt overrides denseMatches (search.go); tests set it to try
	// both plans of a common search across tapes.
	denseAt int
	// foldChunk overrides the tool entries the calls fold reads at a time
	// (views.go); tests make it small so that folds span chunks.
	foldChunk int
	// recency overrides the recency blocks' size (recency.Table.Bits),
	// for tests.
	recency recency.Table
	// checkpointsAt overrides flushCheckpointsAt (apply.go); tests make it
	// small so that a build writes checkpoints mid-way.
	checkpointsAt int
	// noBuild makes passes from an empty index write the search index in
	// place instead of building it beside (ftsbuild.go), for tests that
	// compare the two.
	noBuild bool
	// buildParts, if set, overrides how many parts a build beside is split
	// into, and buildBlock the runs of rowids that go to each: tests split
	// small corpora, on any number of cores.
	buildParts int
	buildBlock int64
	buildHash  int // the builders' FTS5 hashsize, if set: small makes many segments
	// beforeCopy, if set, runs in a pass's transaction just before the
	// search index built beside is copied in: tests break the build there.
	beforeCopy func(ctx context.Context, tx sqlTx) error
	// beforePass, if set, runs under the lock between a pass's making the
	// index ready and the pass: tests delete index.db there.
	beforePass func()
	// ftsJoin is whether the SQLite linked in writes FTS5's records as the
	// join of a build in parts expects (ftsbuild.go), checked once.
	ftsJoin ftsJoinCheck
	// maxPages, if set, caps the pages of every connection's database
	// ("&_pragma=max_page_count(N)"): tests fill it, as a full disk would.
	maxPages string
	// Fresh is set when Open, or a pass, made the index's tables anew: it
	// holds nothing yet, however up to date the files are. A pass that
	// fills it clears it.
	Fresh bool
	// OnWait, if set, is told once, after a second, that a pass is waiting
	// for the lock and who holds it.
	OnWait func(holder string)
	// OnProgress, if set, is called by a pass, in the goroutine that runs
	// it, after each batch of work, with the counts so far: a long rebuild
	// can show that it is moving.
	OnProgress func(Stats)
}

// Open opens the workspace's index, creating it or rebuilding its tables if
// it is missing, of another schema version, or unreadable. It does not
// catch up; call CatchUp.
func Open(ctx context.Context, ws *tapelog.Workspace) (*Projector, error) {
	p := &Projector{ws: ws, path: ws.Abs(IndexFile), Holder: "tape"}
	lock, err := ws.OpenPrivate(lockFile)
	if err != nil {
		return nil, fmt.Errorf("open index lock: %w", err)
	}
	p.lock = fileutil.NewHolderLock(lock)
	// The common case, an index of this version, needs no lock. It must
	// not create index.db, though: only a holder of the lock may, after
	// removing what a deleted index left (reopenLocked).
	if err := p.openExisting(); err == nil {
		if v, gen, err := p.identity(ctx); err == nil && v == SchemaVersion && gen != "" {
			p.gen = gen
			return p, nil
		}
	}
	if err := p.withLock(ctx, LockWait, func() error { _, err := p.prepareLocked(ctx); return err }); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// prepareLocked makes the index usable: it opens the database file (a new
// one if it was deleted or replaced since this Projector opened it) and
// creates the tables when their version is not SchemaVersion. The caller
// holds the index lock. It reports whether the index is not the one this
// Projector last caught up: reopened or made anew.
//
// index.db may be deleted at any moment, also while this reads or makes
// it (rm .tape/index.db*, which takes no lock): SQLite then fails with a
// disk I/O error, and the index is prepared again from the file now
// there, a few times at most. (TestIndexDeletedWhileWatching, run 100
// times in each of four processes at once, failed 4 times in 400 before,
// on "disk I/O error" from the commit of a new index's tables.)
//
// A new index.db is also briefly in SQLite's rollback mode, before its
// first connection makes it WAL: a process that opens it then, without
// the lock (Open's fast path), can make this one's read fail at once
// with SQLITE_BUSY, which no busy timeout waits out (SQLite refuses to
// wait where two readers could deadlock). That passes in milliseconds,
// and the read is tried again. (TestInfoWatcher, a watcher and tape info
// opening a new index at once, failed 1 run in 60 on it.)
func (p *Projector) prepareLocked(ctx context.Context) (changed bool, err error) {
	for attempt := 1; ; attempt++ {
		c, err := p.prepareOnce(ctx)
		changed = changed || c
		busy := err != nil && isBusy(err)
		if err == nil || attempt == prepareAttempts || !(busy || p.replaced()) {
			return changed, err
		}
		if busy {
			if err := pause(ctx, time.Duration(attempt)*10*time.Millisecond); err != nil {
				return changed, err
			}
		}
	}
}

// prepareAttempts is how often prepareLocked tries.
const prepareAttempts = 5

// pause waits d, or until ctx is done.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY (database is locked).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

func (p *Projector) prepareOnce(ctx context.Context) (changed bool, err error) {
	if p.db == nil || p.replaced() {
		if err := p.reopenLocked(); err != nil {
			return true, err
		}
		changed = true
	}
	version, gen, err := p.identity(ctx)
	switch {
	case err == nil && version == SchemaVersion:
		if gen == "" { // made by a tape from before generations
			if gen, err = p.writeGeneration(ctx); err != nil {
				return changed, err
			}
		}
		changed = changed || gen != p.gen
		p.gen = gen
		return changed, nil
	case err != nil && isNotADatabase(err):
		if err := p.replaceUnreadable(); err != nil {
			return true, err
		}
	case err != nil:
		return changed, fmt.Errorf("read index %s: %w", p.path, err)
	}
	p.Fresh = true
	return true, p.createSchema(ctx)
}

// replaced reports whether index.db is no longer the file this Projector
// has open: someone deleted it, and maybe another process made a new one.
func (p *Projector) replaced() bool {
	fi, err := os.Stat(p.path)
	return err != nil || inode(fi) != p.ino
}

// reopenLocked drops the connection to a deleted index.db and opens the
// file now at its path.
//
// When index.db is missing, its -wal and -shm files, if any, belong to a
// deleted database that another process may still have open; they are
// removed first. SQLite would delete such a WAL by itself (it drops a WAL
// found beside an empty database file), but it would keep the -shm and map
// the old database's wal-index into the new one, shared with whoever still
// writes the old. Removing the names leaves the old process its own
// unlinked files, and the new index fresh ones. Connections run with
// SQLITE_FCNTL_PERSIST_WAL, so closing the old connection never deletes the
// new database's files by name. The caller holds the index lock, so no
// other process is creating the new files meanwhile.
func (p *Projector) reopenLocked() error {
	if p.db != nil {
		p.db.Close()
		p.db = nil
	}
	if _, err := os.Stat(p.path); errors.Is(err, fs.ErrNotExist) {
		for _, suffix := range []string{"-wal", "-shm"} {
			if err := os.Remove(p.path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove the files of a deleted index: %w", err)
			}
		}
	}
	return p.openDB()
}

// openExisting opens index.db if it exists, without creating it.
func (p *Projector) openExisting() error {
	fi, err := os.Stat(p.path)
	if err != nil {
		return err
	}
	return p.connect(fi)
}

// openDB opens index.db, creating it empty and private first if needed (it
// holds the tapes' words; SQLite gives its -wal and -shm files the same
// mode). The caller holds the index lock.
func (p *Projector) openDB() error {
	f, err := p.ws.OpenPrivate(IndexFile)
	if err != nil {
		return fmt.Errorf("open index: %w", err)
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil {
		return fmt.Errorf("open index: %w", err)
	}
	return p.connect(fi)
}

// connect opens the database at p.path, the file fi describes.
func (p *Projector) connect(fi fs.FileInfo) error {
	p.ino = inode(fi)
	// One connection: the projector writes from one goroutine, and one
	// connection keeps its temporary state (prepared statements, snapshot)
	// simple. Readers in other processes have their own.
	p.db = sql.OpenDB(sqlitefile.NewPersistWALConnector(p.dsn("immediate")))
	p.db.SetMaxOpenConns(1)
	return nil
}

// dsn names index.db and the settings of a connection to it. mode=rw:
// a connection never creates the file (openDB does, private), so one
// opened just after index.db was deleted fails instead of making a new
// one, readable by all, that nobody checked the schema of.
// txlock is how its transactions begin: "immediate" (taking the write
// lock at once), or "deferred". (It was once set by replacing text in the
// DSN, which a workspace path holding that text would have defeated.)
// Each connection caches 8 MiB of pages (decision 0079).
func (p *Projector) dsn(txlock string) string {
	return sqlitefile.URI(p.path) + "?mode=rw&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=journal_size_limit(67108864)&_pragma=cache_size(-8192)&_txlock=" + txlock + p.maxPages
}

func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// Close closes the index.
func (p *Projector) Close() error {
	var err error
	if p.db != nil {
		err = p.db.Close()
	}
	if cerr := p.lock.File().Close(); err == nil {
		err = cerr
	}
	return err
}

// DB is the index database, for queries.
func (p *Projector) DB() *sql.DB { return p.db }

// Workspace is the workspace the index belongs to.
func (p *Projector) Workspace() *tapelog.Workspace { return p.ws }

// identity reads the version and the generation from meta: version 0
// for an empty database, and for one that lacks a table of a view it
// keeps (an index made before the view was added), so that adding a view
// needs no new SchemaVersion; generation "" for an index made before
// generations.
func (p *Projector) identity(ctx context.Context) (version int, gen string, err error) {
	want := append([]string{"meta"}, p.viewTableNames()...)
	names, err := json.Marshal(want)
	if err != nil {
		return 0, "", err
	}
	var n int
	if err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN (SELECT value FROM json_each(?))`,
		string(names)).Scan(&n); err != nil {
		return 0, "", err
	}
	if n < len(want) {
		return 0, "", nil
	}
	var v string
	err = p.db.QueryRowContext(ctx, `SELECT value, coalesce((SELECT value FROM meta WHERE key = 'generation'), '')
		FROM meta WHERE key = 'schema_version'`).Scan(&v, &gen)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", err
	}
	version, _ = strconv.Atoi(v)
	return version, gen, nil
}

func (p *Projector) createSchema(ctx context.Context) error {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	defer tx.Rollback()
	for _, v := range sqlViews {
		if _, err := tx.ExecContext(ctx, `DROP VIEW IF EXISTS `+v); err != nil {
			return fmt.Errorf("drop %s: %w", v, err)
		}
	}
	for _, t := range p.allTables() {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+t); err != nil {
			return fmt.Errorf("drop %s: %w", t, err)
		}
	}
	if _, err := tx.ExecContext(ctx, schema+viewSchema(p.viewTables())); err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('schema_version', ?)`, strconv.Itoa(SchemaVersion)); err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	gen := newGeneration()
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('generation', ?)`, gen); err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	p.gen = gen
	return nil
}

func isNotADatabase(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "file is not a database") || strings.Contains(msg, "database disk image is malformed")
}

// replaceUnreadable moves an index.db that SQLite cannot read aside (it is
// derived data, but a person may want to look at it) and opens a new one.
// No other process can be using a file that is not a database.
func (p *Projector) replaceUnreadable() error {
	p.db.Close()
	p.db = nil
	aside := fmt.Sprintf("%s.unreadable-%d", p.path, time.Now().Unix())
	if err := os.Rename(p.path, aside); err != nil {
		return fmt.Errorf("move unreadable index aside: %w", err)
	}
	return p.reopenLocked()
}

// withLock runs fn holding the index lock, waiting up to wait for another
// process to release it.
func (p *Projector) withLock(ctx context.Context, wait time.Duration, fn func() error) error {
	if err := p.acquire(ctx, wait); err != nil {
		return err
	}
	defer fileutil.Unlock(p.lock.File()) //nolint:errcheck // closing releases it anyway
	return fn()
}

// acquire takes the index lock, polling until wait runs out, and writes
// this process into the lock file.
func (p *Projector) acquire(ctx context.Context, wait time.Duration) error {
	ok, err := p.lock.Acquire(ctx, wait, p.OnWait)
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("lock index: %w", err)
	case !ok:
		return fmt.Errorf("%w (%s); try again when it is done", ErrLocked, p.lock.HeldBy())
	}
	if err := p.lock.WriteHolder(p.Holder); err != nil {
		return fmt.Errorf("write index lock: %w", err)
	}
	return nil
}
