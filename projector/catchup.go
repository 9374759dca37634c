package projector

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/tape-dev/tape/internal/fts5"
	"github.com/tape-dev/tape/internal/sqlitefile"
)

// Stats says what a pass did.
type Stats struct {
	FilesRead   int   // files opened because they changed
	Folders     int   // anchor folders looked at (a watcher's pass skips those it saw no change in)
	Listed      int   // anchor folders listed in full (the others had not changed)
	TapesListed int   // tapes' anchors folders listed in full (the others had not changed)
	Entries     int   // entries added
	Removed     int   // entries removed (files rewritten or deleted)
	BadLines    int   // bad lines recorded
	Bytes       int64 // bytes of JSONL read
	Duration    time.Duration
	// SearchInPlace, if not empty, says why a pass that started from an
	// empty index wrote its search index in place, the slower way, after
	// its build beside could not be copied in (ftsbuild.go): the SQLite
	// linked in failed the check of FTS5's formats (fts5.CheckJoin), say.
	SearchInPlace string

	ops int // changes applied to the index; 0 for a pass that found nothing new
}

// LockWait is how long a pass waits for another process's pass to finish.
const LockWait = 5 * time.Minute

// CatchUp brings the index up to date with the files, reading only what
// changed since the last pass.
func (p *Projector) CatchUp(ctx context.Context) (Stats, error) {
	return p.pass(ctx, false, LockWait, nil)
}

// CatchUpWait is CatchUp waiting at most wait for another process's pass;
// then it fails with ErrLocked.
func (p *Projector) CatchUpWait(ctx context.Context, wait time.Duration) (Stats, error) {
	return p.pass(ctx, false, wait, nil)
}

// Rebuild empties the index and projects every file again, in one
// transaction: readers see the old index until it commits.
func (p *Projector) Rebuild(ctx context.Context) (Stats, error) {
	return p.pass(ctx, true, LockWait, nil)
}

// ErrReplaced is returned by CatchUpBeside when index.db is not the file
// this Projector opened: catch up with CatchUp, which reopens it.
var ErrReplaced = errors.New("projector: index.db was replaced")

// CatchUpBeside is CatchUpWait on a connection of its own, closed after
// it, so that DB serves a read meanwhile: a read command can run its query
// beside the catch-up and keep the answer if nothing changed the index
// from before the query to after the catch-up (DataVersion). It never
// touches DB, so it cannot reopen an index.db that was deleted or made
// anew: then it returns ErrReplaced.
//
// rec, if not nil, is the state record DB read before the query
// (ReadStateRecord): if the files are as it says, nothing changed, and it
// returns without a connection or the lock.
func (p *Projector) CatchUpBeside(ctx context.Context, wait time.Duration, rec *StateRecord) (Stats, error) {
	start := time.Now()
	if p.Fresh {
		rec = nil // as below: the index is not the one its caller read
	}
	if stats, same := p.unchangedFrom(ctx, rec); same {
		stats.Duration = time.Since(start)
		return stats, nil
	}
	var stats Stats
	err := p.withLock(ctx, wait, func() error {
		if p.Fresh || p.replaced() {
			return ErrReplaced
		}
		db := sql.OpenDB(sqlitefile.NewPersistWALConnector(p.dsn("immediate")))
		db.SetMaxOpenConns(1)
		defer db.Close()
		err := p.passOn(ctx, db, false, nil, &stats)
		if err != nil && p.replaced() { // deleted since the check above
			return ErrReplaced
		}
		return err
	})
	stats.Duration = time.Since(start)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("index pass: %w", ctx.Err())
	}
	return stats, p.diskFull(err)
}

// DataVersion is SQLite's data_version of DB's connection: it differs
// between two calls if any other connection, in this process or another,
// committed a change to index.db in between. A read that ran between two
// equal versions read the index as it still is. (DB holds one connection,
// so both calls and the read use the same one.)
func (p *Projector) DataVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := p.db.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read index version: %w", err)
	}
	return v, nil
}

// EntriesVersion changes when the index's entries do: its generation and
// the rowid of its last entry (every entry added, and every file read
// again, takes a new rowid). A reader that polls for new entries (tape ui)
// compares it: DataVersion moves at every catch-up, which commits its
// state even when it found nothing new.
func (p *Projector) EntriesVersion(ctx context.Context) (string, error) {
	var last int64
	if err := p.db.QueryRowContext(ctx, `SELECT coalesce(max(rowid), 0) FROM entries`).Scan(&last); err != nil {
		return "", fmt.Errorf("read index version: %w", err)
	}
	return p.gen + "/" + strconv.FormatInt(last, 10), nil
}

// catchUpScoped is CatchUp looking only at the folders in sc (see scope),
// or at all of them if sc is nil or the index is not the one this
// Projector last caught up.
func (p *Projector) catchUpScoped(ctx context.Context, sc *scope) (Stats, error) {
	return p.pass(ctx, false, LockWait, sc)
}

func (p *Projector) pass(ctx context.Context, full bool, wait time.Duration, sc *scope) (Stats, error) {
	start := time.Now()
	if !full && sc == nil {
		// A catch-up that would find nothing to do needs neither the lock
		// nor the rows of every folder (staterecord.go).
		if stats, same := p.unchangedFrom(ctx, p.ReadStateRecord(ctx)); same {
			stats.Duration = time.Since(start)
			return stats, nil
		}
	}
	var stats Stats
	err := p.withLock(ctx, wait, func() error {
		// index.db may be deleted at any moment (rm .tape/index.db*, which
		// takes no lock), also during the pass: a build beside then cannot
		// open it ("unable to open database file": its connection never
		// creates the file), and a pass in place writes into the deleted
		// file. Either way the pass runs again on the index now there, a
		// few times at most.
		for attempt := 1; ; attempt++ {
			changed, err := p.prepareLocked(ctx)
			if err != nil {
				return err
			}
			if changed || full {
				sc = nil // what a watcher saw change says nothing of another index
			}
			if p.beforePass != nil {
				p.beforePass()
			}
			stats = Stats{}
			err = p.passLocked(ctx, full, sc, &stats)
			if attempt == prepareAttempts || ctx.Err() != nil || !p.replaced() {
				if err == nil {
					// It holds the files now: a server that made it asks
					// a running watcher from here on, as one that found
					// it does (generation.go: the answer is for this index).
					p.Fresh = false
				}
				return err
			}
		}
	})
	stats.Duration = time.Since(start)
	if err != nil && ctx.Err() != nil {
		// Cancelled: database/sql closes the transaction and its statements
		// under a running pass, whose own error then only says "closed".
		err = fmt.Errorf("index pass: %w", ctx.Err())
	}
	return stats, p.diskFull(err)
}

// passLocked runs a pass in one transaction; the caller holds the lock.
//
// A pass that starts from an empty index (a rebuild, a new index.db)
// builds the search index beside it (fts5.Build) and copies it in before it
// commits. It runs on a connection of its own, closed after the pass,
// because the connection that copies FTS5's tables must not be used again
// (see fts5.Build.CopyInto).
func (p *Projector) passLocked(ctx context.Context, full bool, sc *scope, stats *Stats) error {
	return p.passOn(ctx, p.db, full, sc, stats)
}

// passOn runs a pass on db, a connection pool to index.db. A pass whose
// search index, built beside, cannot be copied in (errCopyBuild: a
// structure record of a format this version does not know, after an
// upgrade of SQLite, say) runs again and writes it in place: slower, but
// a build that can never be joined must not stop every command.
func (p *Projector) passOn(ctx context.Context, db *sql.DB, full bool, sc *scope, stats *Stats) error {
	err := p.passOnce(ctx, db, full, sc, stats, true)
	if errors.Is(err, errCopyBuild) && ctx.Err() == nil {
		*stats = Stats{SearchInPlace: err.Error()}
		err = p.passOnce(ctx, db, full, sc, stats, false)
	}
	return err
}

// errCopyBuild marks the failure to copy a search index built beside into
// index.db.
var errCopyBuild = errors.New("copy the search index built beside")

// passOnce is passOn, building the search index beside if allowed and the
// pass starts from an empty index.
func (p *Projector) passOnce(ctx context.Context, db *sql.DB, full bool, sc *scope, stats *Stats, buildBeside bool) error {
	// What a killed pass left holds the tapes' words. A folder in the way
	// is no reason to fail: newBuild then fails, and the pass builds in
	// place.
	_ = fts5.RemoveBuilds(p.ws.Dir())
	var build *fts5.Build
	if empty, err := p.startsEmpty(ctx, db, full); err != nil {
		return err
	} else if empty && buildBeside {
		build = p.newBuild()
	}
	if build != nil {
		defer build.Close()
		// BEGIN IMMEDIATE would lock the attached build too, and its
		// builder could not write it: begin deferred, then take index.db's
		// write lock with a first write (lockMain).
		db = sql.OpenDB(sqlitefile.NewPersistWALConnector(p.dsn("deferred")))
		db.SetMaxOpenConns(1)
		defer db.Close()
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open index: %w", err)
	}
	defer conn.Close()
	if build != nil {
		if err := build.Attach(ctx, conn); err != nil {
			return err
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin index pass: %w", err)
	}
	defer tx.Rollback()
	if build != nil {
		if _, err := tx.ExecContext(ctx, `DELETE FROM main.meta WHERE 0`); err != nil { // lockMain
			return fmt.Errorf("begin index pass: %w", err)
		}
	}
	if full {
		if err := p.clearAll(ctx, tx); err != nil {
			return err
		}
	}
	if build != nil {
		if err := dropEntryIndexes(ctx, tx); err != nil {
			return err
		}
	}
	st, err := loadState(ctx, tx, sc)
	if err != nil {
		return err
	}
	if err := p.run(ctx, tx, st, sc, stats, build); err != nil {
		return err
	}
	if build != nil {
		if _, err := tx.ExecContext(ctx, entryIndexes); err != nil {
			return fmt.Errorf("index entries: %w", err)
		}
	}
	if err := keepStateRecord(ctx, tx, st, sc != nil, stats.ops > 0); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit index pass: %w", err)
	}
	return nil
}

// dropEntryIndexes drops the indexes a pass from an empty index creates
// again when it has written the entries (entryIndexes).
func dropEntryIndexes(ctx context.Context, tx sqlTx) error {
	for _, name := range entryIndexNames {
		if _, err := tx.ExecContext(ctx, `DROP INDEX IF EXISTS `+name); err != nil {
			return fmt.Errorf("drop index %s for the pass: %w", name, err)
		}
	}
	return nil
}

// startsEmpty reports whether a pass starts from an index with no entries,
// and so may build its search index beside it: a rebuild, or an index that
// has none (new, or of a workspace with no tapes).
func (p *Projector) startsEmpty(ctx context.Context, db *sql.DB, full bool) (bool, error) {
	if p.noBuild {
		return false, nil
	}
	if full {
		return true, nil
	}
	var empty bool
	if err := db.QueryRowContext(ctx, `SELECT NOT EXISTS (SELECT 1 FROM entries)`).Scan(&empty); err != nil {
		return false, fmt.Errorf("read index: %w", err)
	}
	return empty, nil
}

// run walks the files in one goroutine and applies its ops in this one,
// counting them in stats.ops.
func (p *Projector) run(ctx context.Context, tx sqlTx, st state, sc *scope, stats *Stats, build *fts5.Build) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ops := make(chan op, opsQueued)
	walkErr := make(chan error, 1)
	var walkStats Stats
	go func() {
		defer close(ops)
		w := &walker{ws: p.ws, st: st, scope: sc, out: ops, stats: &walkStats, tx: tx}
		walkErr <- w.walk(ctx)
	}()
	// On an error, cancel the walker and drain ops until it closes them:
	// every send of the walker, and every wait of its prefetch, also
	// watches ctx, so it stops soon.
	a := newApplier(tx, stats, p.viewTables())
	a.build, a.checkpointsAt = build, cmp.Or(p.checkpointsAt, flushCheckpointsAt)
	for o := range ops {
		stats.ops++
		if err := a.apply(ctx, o); err != nil {
			cancel()
			for range ops {
			}
			return err
		}
		if p.OnProgress != nil {
			p.OnProgress(*stats)
		}
	}
	if err := <-walkErr; err != nil {
		return fmt.Errorf("read tapes: %w", err)
	}
	if err := a.finish(ctx); err != nil {
		return err
	}
	if build != nil {
		built, err := build.Finish(ctx)
		if err != nil {
			return err
		}
		if build.Joins() {
			// The join rewrites FTS5's own records: only a SQLite that
			// writes them as it expects may be joined (fts5.CheckJoin).
			if err := p.ftsJoin.result(ctx); err != nil {
				return fmt.Errorf("%w: %w", errCopyBuild, err)
			}
		}
		if built {
			if p.beforeCopy != nil {
				if err := p.beforeCopy(ctx, tx); err != nil {
					return err
				}
			}
			if err := build.CopyInto(ctx, tx); err != nil {
				return fmt.Errorf("%w: %w", errCopyBuild, err)
			}
		}
	}
	stats.FilesRead, stats.Bytes, stats.Listed, stats.Folders = walkStats.FilesRead, walkStats.Bytes, walkStats.Listed, walkStats.Folders
	stats.TapesListed = walkStats.TapesListed
	return nil
}

// clearAll empties every table but meta, for a rebuild.
func (p *Projector) clearAll(ctx context.Context, tx sqlTx) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO entries_fts (entries_fts) VALUES ('delete-all')`); err != nil {
		return fmt.Errorf("clear index: %w", err)
	}
	for _, t := range p.allTables() {
		if t == "entries_fts" || t == "meta" {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t); err != nil {
			return fmt.Errorf("clear index: %w", err)
		}
	}
	return nil
}

// loadState reads the checkpoints the pass compares the files with.
func loadState(ctx context.Context, tx sqlTx, sc *scope) (state, error) {
	st := state{tapes: map[string]bool{}, folders: map[fileKey]folderMark{}, files: map[fileKey]checkpoint{}, unreadable: map[fileKey]string{}, tapeListings: map[string]tapeListing{}}
	if err := loadUnreadable(ctx, tx, st); err != nil {
		return st, err
	}
	only, err := scopedTapes(ctx, tx, st, sc)
	if err != nil {
		return st, err
	}
	if err := loadTapeListings(ctx, tx, st, only); err != nil {
		return st, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT tape, folder, seq, size, mtime_ns, ino, dir_mtime_ns, dir_ctime_ns, dir_ino, listed_ns, files_sig FROM anchors`+only.where(), only.args()...)
	if err != nil {
		return st, fmt.Errorf("load anchors: %w", err)
	}
	// Into a slice first, and then into a map of the right size: growing
	// the map row by row cost an eighth of loading it.
	type folderRow struct {
		key fileKey
		row folderMark
	}
	var loaded []folderRow
	for rows.Next() {
		var f folderRow
		var ino, dirIno int64
		r := &f.row
		if err := rows.Scan(&f.key.tape, &f.key.folder, &r.seq, &r.size, &r.mtimeNS, &ino, &r.listing.mtimeNS, &r.listing.ctimeNS, &dirIno, &r.listing.listedNS, &r.sig); err != nil {
			rows.Close()
			return st, fmt.Errorf("load anchors: %w", err)
		}
		r.ino, r.listing.ino = uint64(ino), uint64(dirIno)
		loaded = append(loaded, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("load anchors: %w", err)
	}
	st.folders = make(map[fileKey]folderMark, len(loaded))
	for _, f := range loaded {
		st.folders[f.key] = f.row
		st.tapes[f.key.tape] = true
	}
	st.index()
	return st, nil
}

// loadUnreadable reads what is recorded as a bad line 0: files that could
// not be opened, and folders and tapes that could not be listed.
func loadUnreadable(ctx context.Context, tx sqlTx, st state) error {
	bad, err := tx.QueryContext(ctx, `SELECT tape, folder, file, reason FROM bad_lines WHERE line = 0 AND file <> 'anchor.json'`)
	if err != nil {
		return fmt.Errorf("load unreadable files: %w", err)
	}
	defer bad.Close()
	for bad.Next() {
		var k fileKey
		var reason string
		if err := bad.Scan(&k.tape, &k.folder, &k.name, &reason); err != nil {
			return err
		}
		st.unreadable[k] = reason
		if k.name == "" { // a tape or folder that could not be listed
			st.tapes[k.tape] = true
		}
	}
	return bad.Err()
}

// tapeSet restricts what loadState reads to some tapes; nil is all of them.
type tapeSet []string

func (t tapeSet) where() string {
	if t == nil {
		return ""
	}
	return ` WHERE tape IN (SELECT value FROM json_each(?))`
}

func (t tapeSet) args() []any {
	if t == nil {
		return nil
	}
	data, _ := json.Marshal([]string(t)) // strings always encode
	return []any{string(data)}
}

// scopedTapes is the tapes a pass in scope sc visits: nil (all) for a full
// pass; for a scoped one, those sc names and those with folders it walks
// whatever its events say (volatile: symlinks, an unreadable anchor.json,
// unreadable files). A watcher's pass after one append read every folder's
// row: 217 ms of the search that followed, at 10,000 tapes. The state of
// the other tapes is not loaded, and the walk does not visit them
// (scope.wantsTape): a new tape is in scope by its own event.
func scopedTapes(ctx context.Context, tx sqlTx, st state, sc *scope) (tapeSet, error) {
	if sc == nil {
		return nil, nil
	}
	want := map[string]bool{}
	for tape := range sc.tapes {
		want[tape] = true
	}
	for k := range st.unreadable {
		want[k.tape] = true
	}
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT tape FROM anchors INDEXED BY anchors_volatile WHERE listed_ns = 0 OR size = -2`)
	if err != nil {
		return nil, fmt.Errorf("load volatile folders: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var tape string
		if err := rows.Scan(&tape); err != nil {
			return nil, err
		}
		want[tape] = true
	}
	return slices.Sorted(maps.Keys(want)), rows.Err()
}

// loadTapeListings reads what the tapes' anchors folders held when last
// listed into st.
func loadTapeListings(ctx context.Context, tx sqlTx, st state, only tapeSet) error {
	rows, err := tx.QueryContext(ctx, `SELECT tape, dir_mtime_ns, dir_ctime_ns, dir_ino, listed_ns, folders FROM tape_listings`+only.where(), only.args()...)
	if err != nil {
		return fmt.Errorf("load tape listings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var tape string
		var l tapeListing
		var ino int64
		if err := rows.Scan(&tape, &l.listing.mtimeNS, &l.listing.ctimeNS, &ino, &l.listing.listedNS, &l.folders); err != nil {
			return fmt.Errorf("load tape listings: %w", err)
		}
		l.listing.ino = uint64(ino)
		st.tapeListings[tape] = l
		st.tapes[tape] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load tape listings: %w", err)
	}
	return nil
}

// loadCheckpoints reads the checkpoints of one folder's files into
// st.files. Only a folder whose files changed needs them: loading every
// checkpoint was half of a catch-up that found nothing to do.
func loadCheckpoints(ctx context.Context, tx sqlTx, st state, folder fileKey) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, name, dev, ino, size, mtime_ns, offset, line, eff_time, fingerprint
		FROM files WHERE tape = ? AND folder = ?`, folder.tape, folder.folder)
	if err != nil {
		return fmt.Errorf("load checkpoints: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		k := folder
		var cp checkpoint
		var dev, ino, eff, fp int64
		if err := rows.Scan(&cp.id, &k.name, &dev, &ino, &cp.size, &cp.mtimeNS, &cp.pos.Offset, &cp.pos.Line, &eff, &fp); err != nil {
			return err
		}
		cp.dev, cp.ino, cp.pos.Fingerprint = uint64(dev), uint64(ino), uint64(fp)
		if eff != noDateEffTime {
			cp.pos.Time = time.Unix(0, eff).UTC()
		}
		st.files[k] = cp
	}
	return rows.Err()
}
