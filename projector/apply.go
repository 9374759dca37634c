package projector

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/tape-dev/tape/internal/fts5"
	"github.com/tape-dev/tape/internal/stmts"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// applier writes ops into the index inside one transaction. It runs in the
// goroutine that owns the transaction.
//
// Checkpoints are written at the end of the pass, still in its transaction:
// a statement that needs a statement journal makes FTS5 flush its pending
// terms to disk, and flushing once per file instead of once per pass made
// rebuilds twice as slow. File ids are handed out here for the same reason.
type applier struct {
	tx      *sql.Tx
	stmts   *stmts.Cache
	ids     map[fileKey]int64      // files.id of the files seen in this pass
	isNew   map[fileKey]bool       // files given an id in this pass, with no row yet
	pending map[fileKey]checkpoint // checkpoints to write at the end
	nextID  int64
	// noFiles says the files table was empty when the pass first looked
	// up a file's id (fileID), and so has no id to find all pass: file
	// rows are written at its end (finish).
	noFiles, lookedUp bool
	stats             *Stats
	views             viewPasses  // told of every change to the entries (views.go)
	build             *fts5.Build // where search rows go, if not to entries_fts (ftsbuild.go)
	checkpointsAt     int         // with build: write the checkpoints held once there are this many (flushCheckpointsAt)
}

// The statements an applier runs, by name.
var applyStatements = map[string]string{
	"insertEntry": `INSERT INTO entries (tape, id, kind, anchor_seq, folder, file, file_id, line, offset, length, date, eff_time, time_ns, facts)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"insertText": `INSERT INTO entries_fts (rowid, text, parts) VALUES (?, ?, ?)`,
	"insertBad":  `INSERT OR REPLACE INTO bad_lines (tape, folder, file, line, offset, reason) VALUES (?, ?, ?, ?, ?, ?)`,
	"insertFile": `INSERT INTO files (id, tape, folder, name, dev, ino, size, mtime_ns, offset, line, eff_time, fingerprint)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"updateFile": `UPDATE files SET dev = ?, ino = ?, size = ?, mtime_ns = ?, offset = ?, line = ?, eff_time = ?, fingerprint = ?
		WHERE id = ?`,
	"folderSig":    `UPDATE anchors SET files_sig = ? WHERE tape = ? AND folder = ?`,
	"folderListed": `UPDATE anchors SET dir_mtime_ns = ?, dir_ctime_ns = ?, dir_ino = ?, listed_ns = ? WHERE tape = ? AND folder = ?`,
	"upsertAnchor": `INSERT OR REPLACE INTO anchors (tape, folder, seq, name, id, payload, meta, date, size, mtime_ns, ino,
		dir_mtime_ns, dir_ctime_ns, dir_ino, listed_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"tapeListed": `INSERT OR REPLACE INTO tape_listings (tape, dir_mtime_ns, dir_ctime_ns, dir_ino, listed_ns, folders) VALUES (?, ?, ?, ?, ?, ?)`,
}

func newApplier(tx *sql.Tx, stats *Stats, tables []views.Table) *applier {
	return &applier{tx: tx, stmts: stmts.New(tx, applyStatements), ids: make(map[fileKey]int64),
		isNew: make(map[fileKey]bool), pending: make(map[fileKey]checkpoint), stats: stats, views: beginViews(tables, tx)}
}

// execStmt runs one of applyStatements, prepared the first time the pass
// needs it.
func (a *applier) execStmt(ctx context.Context, name string, args ...any) (sql.Result, error) {
	return a.stmts.Exec(ctx, name, args...)
}

func (a *applier) exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := a.tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// deleteEntries removes the entries that where selects (a condition on
// entries), their search rows and what the views keep of each. The caller
// tells the views where the tape changed (views.Pass.Changed).
func (a *applier) deleteEntries(ctx context.Context, where string, args ...any) error {
	if err := a.deleteText(ctx, where, args...); err != nil {
		return err
	}
	if err := a.views.removing(ctx, where, args...); err != nil {
		return err
	}
	n, err := a.exec(ctx, `DELETE FROM entries WHERE `+where, args...)
	a.stats.Removed += int(n)
	return err
}

// deleteText removes the search rows of the entries that where selects.
func (a *applier) deleteText(ctx context.Context, where string, args ...any) error {
	if a.build == nil {
		_, err := a.exec(ctx, `DELETE FROM entries_fts WHERE rowid IN (SELECT rowid FROM entries WHERE `+where+`)`, args...)
		return err
	}
	rows, err := a.tx.QueryContext(ctx, `SELECT rowid FROM entries WHERE `+where, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return a.build.Remove(ctx, ids)
}

func (a *applier) apply(ctx context.Context, o op) error {
	k := o.key
	switch o.kind {
	case opDropTape:
		if err := a.deleteEntries(ctx, "tape = ?", k.tape); err != nil {
			return err
		}
		if err := a.views.dropTape(ctx, k.tape); err != nil {
			return err
		}
		if _, err := a.exec(ctx, `DELETE FROM tape_listings WHERE tape = ?`, k.tape); err != nil {
			return err
		}
		return a.dropWhere(ctx, "tape = ?", k.tape)
	case opDropFolder:
		seq, _, _ := tapelog.ParseFolderName(k.folder)
		if err := a.deleteEntries(ctx, "tape = ? AND anchor_seq = ? AND folder = ?", k.tape, seq, k.folder); err != nil {
			return err
		}
		a.views.changed(k.tape, views.FolderStart(seq, k.folder))
		return a.dropWhere(ctx, "tape = ? AND folder = ?", k.tape, k.folder)
	case opAnchor:
		return a.putAnchor(ctx, k, o.anchor)
	case opDropFile, opResetFile:
		if err := a.resetFile(ctx, k); err != nil {
			return err
		}
		if o.kind == opDropFile {
			delete(a.pending, k)
			delete(a.isNew, k)
			delete(a.ids, k)
			_, err := a.exec(ctx, `DELETE FROM files WHERE tape = ? AND folder = ? AND name = ?`, k.tape, k.folder, k.name)
			return err
		}
		return nil
	case opEntries:
		return a.insertEntries(ctx, k, o.entries)
	case opBadLine:
		a.stats.BadLines++
		_, err := a.execStmt(ctx, "insertBad", k.tape, k.folder, k.name, o.bad.line, o.bad.offset, o.bad.reason)
		return err
	case opUnlisted, opListed:
		if _, err := a.exec(ctx, `DELETE FROM bad_lines WHERE tape = ? AND folder = ? AND file = '' AND line = 0`, k.tape, k.folder); err != nil {
			return err
		}
		if o.kind == opListed {
			return nil
		}
		a.stats.BadLines++
		_, err := a.execStmt(ctx, "insertBad", k.tape, k.folder, "", 0, 0, o.bad.reason)
		return err
	case opCheckpoint:
		return a.saveCheckpoint(ctx, k, o.cp)
	case opFolderSig: // the folder's files are all applied
		if _, err := a.execStmt(ctx, "folderSig", o.sig, k.tape, k.folder); err != nil {
			return err
		}
		if a.build == nil {
			return nil
		}
		if len(a.pending) >= a.checkpointsAt {
			if err := a.writeCheckpoints(ctx); err != nil {
				return err
			}
		}
		if a.views.backlog() >= settleEvery {
			return a.views.settle(ctx)
		}
		return nil
	case opFolderListed:
		_, err := a.execStmt(ctx, "folderListed", o.listing.mtimeNS, o.listing.ctimeNS, int64(o.listing.ino), o.listing.listedNS, k.tape, k.folder)
		return err
	case opTapeListed:
		if o.tapeAt == nil {
			_, err := a.exec(ctx, `DELETE FROM tape_listings WHERE tape = ?`, k.tape)
			return err
		}
		l := o.tapeAt.listing
		_, err := a.execStmt(ctx, "tapeListed", k.tape, l.mtimeNS, l.ctimeNS, int64(l.ino), l.listedNS, o.tapeAt.folders)
		return err
	}
	return fmt.Errorf("projector: unknown op %d", o.kind)
}

// dropWhere removes the files, anchors and bad lines of a tape or folder;
// the caller removes its entries, with a condition that an index serves.
func (a *applier) dropWhere(ctx context.Context, where string, args ...any) error {
	for _, table := range []string{"files", "anchors", "bad_lines"} { // all have tape and folder
		if _, err := a.exec(ctx, `DELETE FROM `+table+` WHERE `+where, args...); err != nil {
			return err
		}
	}
	for k := range a.ids {
		if k.tape == args[0] && (len(args) == 1 || k.folder == args[1]) {
			delete(a.ids, k)
			delete(a.isNew, k)
			delete(a.pending, k)
		}
	}
	return nil
}

// putAnchor replaces a folder's anchor row and its anchor entry. For a new
// folder there is nothing to delete, and not trying matters: a DELETE
// opens a statement journal, which makes FTS5 flush its pending terms, and
// a rebuild of thousands of folders would flush once per folder.
func (a *applier) putAnchor(ctx context.Context, k fileKey, r anchorRow) error {
	if r.replace {
		if err := a.deleteEntries(ctx, "tape = ? AND anchor_seq = ? AND folder = ? AND file_id = 0", k.tape, r.seq, k.folder); err != nil {
			return err
		}
		if _, err := a.exec(ctx, `DELETE FROM bad_lines WHERE tape = ? AND folder = ? AND file = 'anchor.json'`, k.tape, k.folder); err != nil {
			return err
		}
	}
	l := r.listing
	if _, err := a.execStmt(ctx, "upsertAnchor", k.tape, k.folder, r.seq, r.name, r.id, r.payload, r.meta, r.date, r.size, r.mtimeNS, r.ino,
		l.mtimeNS, l.ctimeNS, int64(l.ino), l.listedNS); err != nil {
		return err
	}
	if r.unanchored {
		return nil // the folder's row, and no anchor entry
	}
	line := 0
	if r.size >= 0 {
		line = 1
	}
	if err := a.insertEntry(ctx, k.tape, k.folder, "anchor.json", 0,
		entryRow{id: r.id, kind: "anchor", seq: r.seq, line: line, length: int(max(r.size, 0)), date: r.date, effTime: r.effTime, timeNS: anchorTime(r.date), text: r.text}); err != nil {
		return err
	}
	if r.badReason != "" {
		a.stats.BadLines++
		_, err := a.execStmt(ctx, "insertBad", k.tape, k.folder, "anchor.json", r.badLine, 0, r.badReason)
		return err
	}
	return nil
}

// resetFile removes a file's entries and bad lines.
func (a *applier) resetFile(ctx context.Context, k fileKey) error {
	if _, err := a.exec(ctx, `DELETE FROM bad_lines WHERE tape = ? AND folder = ? AND file = ?`, k.tape, k.folder, k.name); err != nil {
		return err
	}
	id, err := a.fileID(ctx, k)
	if err != nil || id == 0 {
		return err
	}
	seq, _, _ := tapelog.ParseFolderName(k.folder)
	a.views.changed(k.tape, views.FolderStart(seq, k.folder))
	return a.deleteEntries(ctx, "file_id = ?", id)
}

// fileID finds a file's id, 0 if it has none yet. In a pass that started
// with no files (a rebuild) it asks the index once, not once per file:
// with the tape listings' statement prepared and a folder's listing
// written with its row, 3.8% less CPU in BenchmarkRebuildManyTapes,
// whose 3,000 files each cost a query prepared anew.
func (a *applier) fileID(ctx context.Context, k fileKey) (int64, error) {
	if id, ok := a.ids[k]; ok {
		return id, nil
	}
	if !a.lookedUp {
		a.lookedUp = true
		if err := a.tx.QueryRowContext(ctx, `SELECT NOT EXISTS (SELECT 1 FROM files)`).Scan(&a.noFiles); err != nil {
			return 0, fmt.Errorf("read file ids: %w", err)
		}
	}
	if a.noFiles {
		return 0, nil
	}
	var id int64
	err := a.tx.QueryRowContext(ctx, `SELECT id FROM files WHERE tape = ? AND folder = ? AND name = ?`, k.tape, k.folder, k.name).Scan(&id)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err == nil {
		a.ids[k] = id
	}
	return id, err
}

// ensureFile gives a file an id; its row is written with its checkpoint.
func (a *applier) ensureFile(ctx context.Context, k fileKey) (int64, error) {
	id, err := a.fileID(ctx, k)
	if err != nil || id != 0 {
		return id, err
	}
	if a.nextID == 0 { // the first new file of the pass
		if err := a.tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM files`).Scan(&a.nextID); err != nil {
			return 0, fmt.Errorf("read file ids: %w", err)
		}
	}
	id = a.nextID
	a.nextID++
	a.ids[k], a.isNew[k] = id, true
	return id, nil
}

func (a *applier) insertEntries(ctx context.Context, k fileKey, rows []entryRow) error {
	id, err := a.ensureFile(ctx, k)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := a.insertEntry(ctx, k.tape, k.folder, k.name, id, r); err != nil {
			return err
		}
	}
	return nil
}

func (a *applier) insertEntry(ctx context.Context, tape, folder, file string, fileID int64, r entryRow) error {
	var timeNS *int64
	if r.timeNS != nil {
		timeNS = r.timeNS
	} else if r.effTime > noDateEffTime {
		timeNS = &r.effTime
	}
	var facts *string
	if enc := r.facts.Encode(); enc != "" {
		facts = &enc
	}
	res, err := a.execStmt(ctx, "insertEntry", tape, r.id, r.kind, r.seq, folder, file, fileID, r.line, r.offset, r.length, r.date, r.effTime, timeNS, facts)
	if err != nil {
		return fmt.Errorf("index entry %s: %w", r.id, err)
	}
	rowid, err := res.LastInsertId()
	if err != nil {
		return err
	}
	if err := a.views.added(ctx, views.Added{Rowid: rowid, Tape: tape, ID: r.id, Kind: r.kind, TimeNS: timeNS, Facts: r.facts,
		Place: views.Place{Seq: r.seq, Folder: folder, Eff: r.effTime, File: file, Line: r.line}}); err != nil {
		return err
	}
	if a.build != nil {
		err = a.build.Add(ctx, rowid, r.text.text, r.text.parts)
	} else {
		_, err = a.execStmt(ctx, "insertText", rowid, r.text.text, r.text.parts)
	}
	if err != nil {
		return fmt.Errorf("index text of entry %s: %w", r.id, err)
	}
	a.stats.Entries++
	return nil
}

func (a *applier) saveCheckpoint(ctx context.Context, k fileKey, cp checkpoint) error {
	if _, err := a.ensureFile(ctx, k); err != nil {
		return err
	}
	a.pending[k] = cp
	return nil
}

// finish writes the checkpoints of the pass, in a fixed order, and settles
// the views.
func (a *applier) finish(ctx context.Context) error {
	if err := a.writeCheckpoints(ctx); err != nil {
		return err
	}
	return a.views.settle(ctx)
}

// flushCheckpointsAt is how many checkpoints a pass that builds its search
// index beside holds before it writes them, at the end of a folder. It
// held them all to the end, three map entries a file: a rebuild of
// 100,000 tapes (427,492 files) peaked at 716 MB, against 312 MB at
// 10,000. Its search rows go to the builders, so writing the files rows
// early makes no FTS5 flush (see applier).
const flushCheckpointsAt = 4096

// writeCheckpoints writes the checkpoints the pass holds, in a fixed
// order, and forgets them: the files rows now hold them, and a file seen
// again is looked up there.
func (a *applier) writeCheckpoints(ctx context.Context) error {
	keys := make([]fileKey, 0, len(a.pending))
	for k := range a.pending {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y fileKey) int {
		return cmp.Or(cmp.Compare(x.tape, y.tape), cmp.Compare(x.folder, y.folder), cmp.Compare(x.name, y.name))
	})
	for _, k := range keys {
		cp, id := a.pending[k], a.ids[k]
		args := []any{int64(cp.dev), int64(cp.ino), cp.size, cp.mtimeNS, cp.pos.Offset, cp.pos.Line, effTime(cp.pos.Time), int64(cp.pos.Fingerprint)}
		var err error
		if a.isNew[k] {
			_, err = a.execStmt(ctx, "insertFile", append([]any{id, k.tape, k.folder, k.name}, args...)...)
		} else {
			_, err = a.execStmt(ctx, "updateFile", append(args, id)...)
		}
		if err != nil {
			return fmt.Errorf("save checkpoint of %s/%s/%s: %w", k.tape, k.folder, k.name, err)
		}
		delete(a.pending, k)
		delete(a.isNew, k)
		delete(a.ids, k)
	}
	if len(keys) > 0 {
		a.noFiles = false // the files table has rows now: look ids up there
	}
	return nil
}

// sqlTx is what a pass needs of a transaction.
type sqlTx = *sql.Tx

// anchorTime is the time of an anchor entry for --since and --until: its
// own date, since it sorts before its folder's entries whatever its date.
func anchorTime(date *string) *int64 {
	if date == nil {
		return nil
	}
	t, err := tapelog.ParseTime(*date)
	if err != nil {
		return nil
	}
	ns := t.UnixNano()
	return &ns
}
