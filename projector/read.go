package projector

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// EntryFilter selects entries of one tape for Entries.
type EntryFilter struct {
	Tape    string
	Folders []string // anchor folders; nil for all
	Kinds   []string // nil for all
	Last    int      // only the last N; 0 for all
}

// Anchors returns a tape's anchors in order, with the number of entries in
// each (its anchor entry not counted).
func (p *Projector) Anchors(ctx context.Context, tape string) ([]tapelog.Anchor, map[string]int, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT folder, seq, name, id, payload, meta, date FROM anchors WHERE tape = ? ORDER BY seq, folder`, tape)
	if err != nil {
		return nil, nil, fmt.Errorf("query anchors: %w", err)
	}
	defer rows.Close()
	var anchors []tapelog.Anchor
	for rows.Next() {
		var a tapelog.Anchor
		var payload string
		var meta, date sql.NullString
		if err := rows.Scan(&a.Folder, &a.Seq, &a.Name, &a.Entry.ID, &payload, &meta, &date); err != nil {
			return nil, nil, err
		}
		a.Unanchored = a.Entry.ID == "" // its row has no anchor entry
		a.Entry.Kind, a.Entry.Payload = tapelog.KindAnchor, json.RawMessage(payload)
		if meta.Valid {
			a.Entry.Meta = json.RawMessage(meta.String)
		}
		a.Entry.Date = date.String
		a.State = stateOf(a.Entry.Payload)
		a.Entry.Pos = tapelog.Position{Tape: tape, AnchorSeq: a.Seq, Anchor: a.Name, Folder: a.Folder, File: tapelog.AnchorFile}
		anchors = append(anchors, a)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	counts := make(map[string]int, len(anchors))
	// Anchor entries are those of file anchor.json (file_id 0; a JSONL
	// file never has that name): asked so, the count reads the entries'
	// order index alone, not each entry's row, which took the page of a
	// 10,000-entry tape from 33 to 26 ms (BenchmarkTapePage/newest in
	// package web, medians of 3 runs each, taking turns).
	crow, err := p.db.QueryContext(ctx, `SELECT folder, count(*) FROM entries WHERE tape = ? AND file <> '`+tapelog.AnchorFile+`' GROUP BY anchor_seq, folder`, tape)
	if err != nil {
		return nil, nil, fmt.Errorf("count entries: %w", err)
	}
	defer crow.Close()
	for crow.Next() {
		var folder string
		var n int
		if err := crow.Scan(&folder, &n); err != nil {
			return nil, nil, err
		}
		counts[folder] = n
	}
	return anchors, counts, crow.Err()
}

func stateOf(payload json.RawMessage) json.RawMessage {
	var p struct {
		State json.RawMessage `json:"state"`
	}
	if json.Unmarshal(payload, &p) != nil || string(p.State) == "null" {
		return nil
	}
	return p.State
}

// Tapes lists the tapes in the index.
func (p *Projector) Tapes(ctx context.Context) ([]string, error) { return tapeNames(ctx, p.db) }

func tapeNames(ctx context.Context, q querier) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM tapes ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("query tapes: %w", err)
	}
	defer rows.Close()
	var tapes []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		tapes = append(tapes, t)
	}
	return tapes, rows.Err()
}

// entryColumns are the columns located entries are read with (see
// scanLocated), from entries e joined with anchors a.
const entryColumns = `e.tape, e.id, e.kind, e.anchor_seq, e.folder, a.name, e.file, e.file_id, e.line, e.offset, e.length, e.date, e.eff_time, a.payload, a.meta`

// located is an entry as the index knows it: where to read its line.
type located struct {
	e      tapelog.Entry
	fileID int64
	length int
	effNS  int64
}

func scanLocated(rows *sql.Rows, extra ...any) (located, error) {
	var l located
	var date, meta sql.NullString
	var payload string
	dest := append([]any{&l.e.Pos.Tape, &l.e.ID, &l.e.Kind, &l.e.Pos.AnchorSeq, &l.e.Pos.Folder, &l.e.Pos.Anchor,
		&l.e.Pos.File, &l.fileID, &l.e.Pos.Line, &l.e.Pos.Offset, &l.length, &date, &l.effNS, &payload, &meta}, extra...)
	if err := rows.Scan(dest...); err != nil {
		return l, err
	}
	l.e.Date = date.String
	if l.effNS > noDateEffTime {
		l.e.Pos.Time = time.Unix(0, l.effNS).UTC()
	} else if t, err := tapelog.ParseTime(l.e.Date); err == nil {
		l.e.Pos.Time = t
	}
	if l.fileID == 0 { // an anchor entry: its payload is in the index
		l.e.Payload = json.RawMessage(payload)
		if meta.Valid {
			l.e.Meta = json.RawMessage(meta.String)
		}
	}
	return l, nil
}

// Entries returns the entries of a tape in tape order, their payloads read
// from the files. A line that no longer reads as it did when it was
// indexed (the file changed since the last catch-up) comes back as a
// *tapelog.LineError in errs instead.
func (p *Projector) Entries(ctx context.Context, f EntryFilter) (entries []tapelog.Entry, errs []error, err error) {
	where, args := f.where()
	q := `SELECT ` + entryColumns + ` FROM entries e JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder WHERE ` + where
	if f.Last > 0 {
		q += ` ORDER BY e.anchor_seq DESC, e.folder DESC, e.eff_time DESC, e.file DESC, e.line DESC LIMIT ?`
		args = append(args, f.Last)
	} else {
		q += ` ORDER BY ` + entryOrder
	}
	found, err := queryLocated(ctx, p.db, q, args)
	if err != nil {
		return nil, nil, err
	}
	if f.Last > 0 {
		slices.Reverse(found)
	}
	entries, errs, err = p.load(ctx, found)
	if err != nil {
		return nil, nil, err
	}
	return slices.DeleteFunc(entries, func(e tapelog.Entry) bool { return e.Payload == nil }), errs, nil
}

// EntryPage returns a page of the entries f selects, in tape order (its
// Last is not used), and how many it selects in all, read in one
// snapshot. A page counts from the first entry, so appending at the end
// of a tape never moves the entries of a page: a reader can page back
// from the last page it was given. An Offset below zero counts from the
// end: {Limit: n, Offset: -n} is the last n entries. An entry that no
// longer reads as it did when it was indexed comes back in errs instead,
// as with Entries.
func (p *Projector) EntryPage(ctx context.Context, f EntryFilter, pg views.Page) (entries []tapelog.Entry, total int, errs []error, err error) {
	where, args := f.where()
	err = p.snapshot(ctx, func(q querier) error {
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM entries e WHERE `+where, args...).Scan(&total); err != nil {
			return fmt.Errorf("count entries: %w", err)
		}
		if pg.Offset < 0 {
			pg.Offset = max(0, total+pg.Offset)
		}
		// The page's rows are picked from the entries' index alone, and
		// only they are joined with their anchors: OFFSET steps over the
		// rows before the page, and stepping over joined rows took the
		// last page of a 10,000-entry anchor from 34 to 50 ms
		// (BenchmarkTapePage/newest in package web, medians of 4 runs
		// each, taking turns).
		limit, largs := pg.SQL()
		found, err := queryLocated(ctx, q, `SELECT `+entryColumns+` FROM entries e JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder
			WHERE e.rowid IN (SELECT e.rowid FROM entries e WHERE `+where+` ORDER BY `+entryOrder+limit+`) ORDER BY `+entryOrder, append(args, largs...))
		if err != nil {
			return err
		}
		entries, errs, err = p.load(ctx, found)
		return err
	})
	if err != nil {
		return nil, 0, nil, err
	}
	return slices.DeleteFunc(entries, func(e tapelog.Entry) bool { return e.Payload == nil }), total, errs, nil
}

// entryOrder is tape order, as the entries table holds it.
const entryOrder = `e.anchor_seq, e.folder, e.eff_time, e.file, e.line`

// where is the filter's WHERE clause, on entries e, and its arguments.
func (f EntryFilter) where() (string, []any) {
	c := conds{where: []string{"e.tape = ?"}, args: []any{f.Tape}}
	c.in("e.folder", f.Folders, f.Folders != nil)
	c.in("e.kind", f.Kinds, len(f.Kinds) > 0)
	return strings.Join(c.where, " AND "), c.args
}

// queryLocated runs a query of entryColumns and returns the entries it
// locates, in its order.
func queryLocated(ctx context.Context, q querier, query string, args []any) ([]located, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query entries: %w", err)
	}
	defer rows.Close()
	var found []located
	for rows.Next() {
		l, err := scanLocated(rows)
		if err != nil {
			return nil, err
		}
		found = append(found, l)
	}
	return found, rows.Err()
}

// load reads the payloads of located entries from their files. An entry
// whose line cannot be read back as it was indexed comes back without a
// payload, and its error in errs.
func (p *Projector) load(ctx context.Context, found []located) (entries []tapelog.Entry, errs []error, err error) {
	r := p.ws.EntryReader()
	defer r.Close()
	entries = make([]tapelog.Entry, len(found))
	for i, l := range found {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		e, err := l.read(r)
		if err != nil {
			errs = append(errs, err)
			e = l.e
			e.Payload = nil
		}
		entries[i] = e
	}
	return entries, errs, nil
}

// read reads the entry's line back from its file (an anchor entry's
// payload is in the index already): on an error, it returns what the
// index knows of it.
func (l located) read(r *tapelog.EntryReader) (tapelog.Entry, error) {
	if l.fileID == 0 {
		return l.e, nil
	}
	want := l.e
	want.Pos.Length = l.length
	e, err := r.ReadEntry(want)
	if err != nil {
		return l.e, err
	}
	return e, nil
}

// BadLines returns the bad lines recorded for a tape, or for some of its
// folders, in tape order. The tape's own, that its anchors folder could
// not be listed (line 0 of tapes/<tape>/anchors), comes with any folders.
func (p *Projector) BadLines(ctx context.Context, tape string, folders []string) ([]*tapelog.LineError, error) {
	c := conds{where: []string{"b.tape = ?"}, args: []any{tape}}
	if folders != nil {
		c.where = append(c.where, "(b.folder = '' OR b.folder IN ("+strings.TrimSuffix(strings.Repeat("?,", len(folders)), ",")+"))")
		for _, f := range folders {
			c.args = append(c.args, f)
		}
	}
	q := `SELECT b.folder, b.file, b.line, b.offset, b.reason FROM bad_lines b LEFT JOIN anchors a ON a.tape = b.tape AND a.folder = b.folder WHERE ` +
		strings.Join(c.where, " AND ") + ` ORDER BY a.seq, b.folder, b.file, b.line`
	rows, err := p.db.QueryContext(ctx, q, c.args...)
	if err != nil {
		return nil, fmt.Errorf("query bad lines: %w", err)
	}
	defer rows.Close()
	var bad []*tapelog.LineError
	for rows.Next() {
		var folder, file string
		le := &tapelog.LineError{}
		if err := rows.Scan(&folder, &file, &le.Line, &le.Offset, &le.Reason); err != nil {
			return nil, err
		}
		le.Path = tapelog.Position{Tape: tape, Folder: folder, File: file}.Path()
		bad = append(bad, le)
	}
	return bad, rows.Err()
}

// Unlisted returns, for the given tapes (nil for all), the bad lines that
// say a tape's anchors folder, or one anchor folder, could not be listed,
// or a file could not be opened: the index has nothing of what they hold,
// and a search must say so (issue 29 found a file made unreadable left
// out of search without a word). A tape's comes first, then its folders',
// each before its files'.
func (p *Projector) Unlisted(ctx context.Context, tapes []string) ([]*tapelog.LineError, error) {
	c := conds{where: []string{"line = 0"}}
	c.in("tape", tapes, tapes != nil)
	rows, err := p.db.QueryContext(ctx, `SELECT tape, folder, file, reason FROM bad_lines WHERE `+strings.Join(c.where, " AND ")+` ORDER BY tape, folder, file`, c.args...)
	if err != nil {
		return nil, fmt.Errorf("query unreadable folders: %w", err)
	}
	defer rows.Close()
	var bad []*tapelog.LineError
	for rows.Next() {
		var pos tapelog.Position
		le := &tapelog.LineError{}
		if err := rows.Scan(&pos.Tape, &pos.Folder, &pos.File, &le.Reason); err != nil {
			return nil, err
		}
		le.Path = pos.Path()
		bad = append(bad, le)
	}
	return bad, rows.Err()
}

// conds gathers the conditions of a WHERE clause and their arguments.
type conds struct {
	where []string
	args  []any
}

// in adds "col IN (values)" when on.
func (c *conds) in(col string, values []string, on bool) {
	if !on {
		return
	}
	c.where = append(c.where, col+" IN ("+strings.TrimSuffix(strings.Repeat("?,", len(values)), ",")+")")
	for _, v := range values {
		c.args = append(c.args, v)
	}
}

// querier is what reads need of a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// snapshot runs fn in a read transaction.
func (p *Projector) snapshot(ctx context.Context, fn func(q querier) error) error {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // it only read
	return fn(tx)
}

// entryAt reads the entry with the given rowid; on an error it returns
// what the index knows of it, without its payload.
func (p *Projector) entryAt(ctx context.Context, q querier, r *tapelog.EntryReader, rowid int64) (tapelog.Entry, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+entryColumns+` FROM entries e JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder WHERE e.rowid = ?`, rowid)
	if err != nil {
		return tapelog.Entry{}, fmt.Errorf("query entry: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return tapelog.Entry{}, fmt.Errorf("entry %d is not in the index; run 'tape reindex'", rowid)
	}
	l, err := scanLocated(rows)
	if err != nil {
		return tapelog.Entry{}, err
	}
	e, err := l.read(r)
	if err != nil {
		e.Payload = nil
	}
	return e, err
}

// Messages returns the chat messages of a tape in tape order, a page of
// them, and how many there are.
func (p *Projector) Messages(ctx context.Context, tape string, pg views.Page) (msgs []tapelog.Entry, total int, errs []error, err error) {
	err = p.snapshot(ctx, func(q querier) error {
		msgs, total, errs, err = p.messages(ctx, q, tape, pg)
		return err
	})
	return msgs, total, errs, err
}

func (p *Projector) messages(ctx context.Context, q querier, tape string, pg views.Page) ([]tapelog.Entry, int, []error, error) {
	var total int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM entries WHERE tape = ? AND kind = 'message'`, tape).Scan(&total); err != nil {
		return nil, 0, nil, fmt.Errorf("count messages: %w", err)
	}
	limit, largs := pg.SQL()
	rows, err := q.QueryContext(ctx, `SELECT `+entryColumns+` FROM entries e JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder
		WHERE e.tape = ? AND e.kind = 'message' ORDER BY e.anchor_seq, e.folder, e.eff_time, e.file, e.line`+limit, append([]any{tape}, largs...)...)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("query messages: %w", err)
	}
	var found []located
	for rows.Next() {
		l, err := scanLocated(rows)
		if err != nil {
			rows.Close()
			return nil, 0, nil, err
		}
		found = append(found, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, nil, err
	}
	entries, errs, err := p.load(ctx, found)
	return entries, total, errs, err
}

// AnchorsAfter lists up to n anchors of every tape, in the order of
// (tape, folder), after the anchor of tape and folder ("", "": from the
// first): every anchor of a workspace, a page at a time, each page found
// through the table's key. An anchor's tape is its Entry.Pos.Tape.
func (p *Projector) AnchorsAfter(ctx context.Context, tape, folder string, n int) ([]tapelog.Anchor, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT tape, folder, seq, name, id, date FROM anchors WHERE (tape, folder) > (?, ?) ORDER BY tape, folder LIMIT ?`, tape, folder, n)
	if err != nil {
		return nil, fmt.Errorf("query anchors: %w", err)
	}
	defer rows.Close()
	var anchors []tapelog.Anchor
	for rows.Next() {
		var a tapelog.Anchor
		var date sql.NullString
		if err := rows.Scan(&a.Entry.Pos.Tape, &a.Folder, &a.Seq, &a.Name, &a.Entry.ID, &date); err != nil {
			return nil, err
		}
		a.Unanchored = a.Entry.ID == "" // as Anchors reads it
		a.Entry.Kind, a.Entry.Date = tapelog.KindAnchor, date.String
		a.Entry.Pos.AnchorSeq, a.Entry.Pos.Anchor, a.Entry.Pos.Folder = a.Seq, a.Name, a.Folder
		anchors = append(anchors, a)
	}
	return anchors, rows.Err()
}

// EntryPlace finds the entry of a tape with the given id: its anchor
// folder, and how many entries of that folder come before it in tape
// order, which is its offset in an EntryPage of the folder. ok is false
// when the tape has no entry of that id; of entries that share one (lines
// copied by hand), the first in tape order is found. The index has no
// index on ids: it reads the tape's rows, about 4 ms at 10,000 entries.
func (p *Projector) EntryPlace(ctx context.Context, tape, id string) (folder string, offset int, ok bool, err error) {
	err = p.snapshot(ctx, func(q querier) error {
		var seq, eff int64
		var file string
		var line int
		err := q.QueryRowContext(ctx, `SELECT e.anchor_seq, e.folder, e.eff_time, e.file, e.line FROM entries e
			WHERE e.tape = ? AND e.id = ? ORDER BY `+entryOrder+` LIMIT 1`, tape, id).Scan(&seq, &folder, &eff, &file, &line)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("find entry %s of tape %s: %w", id, tape, err)
		}
		ok = true
		err = q.QueryRowContext(ctx, `SELECT count(*) FROM entries e WHERE e.tape = ? AND e.anchor_seq = ? AND e.folder = ?
			AND (e.eff_time, e.file, e.line) < (?, ?, ?)`, tape, seq, folder, eff, file, line).Scan(&offset)
		if err != nil {
			return fmt.Errorf("place entry %s of tape %s: %w", id, tape, err)
		}
		return nil
	})
	return folder, offset, ok, err
}

// NextAnchor is the anchor of a tape that follows folder in tape order
// (seq, then folder name), and false when folder is the tape's last, or
// not one of its anchors.
func (p *Projector) NextAnchor(ctx context.Context, tape, folder string) (a tapelog.Anchor, ok bool, err error) {
	var date sql.NullString
	err = p.db.QueryRowContext(ctx, `SELECT n.folder, n.seq, n.name, n.date FROM anchors c JOIN anchors n ON n.tape = c.tape AND (n.seq, n.folder) > (c.seq, c.folder)
		WHERE c.tape = ? AND c.folder = ? ORDER BY n.seq, n.folder LIMIT 1`, tape, folder).Scan(&a.Folder, &a.Seq, &a.Name, &date)
	if errors.Is(err, sql.ErrNoRows) {
		return a, false, nil
	}
	if err != nil {
		return a, false, fmt.Errorf("find the anchor after %s of tape %s: %w", folder, tape, err)
	}
	a.Entry.Kind, a.Entry.Date = tapelog.KindAnchor, date.String
	a.Entry.Pos = tapelog.Position{Tape: tape, AnchorSeq: a.Seq, Anchor: a.Name, Folder: a.Folder, File: tapelog.AnchorFile}
	return a, true, nil
}

// TapeOfEntry is the tape that holds an entry of the given id, the first
// by name when several do; ok is false when none does. The index has no
// index on ids: it reads every entry's id (tape resume ENTRY_ID).
func (p *Projector) TapeOfEntry(ctx context.Context, id string) (tape string, ok bool, err error) {
	err = p.snapshot(ctx, func(q querier) error {
		err := q.QueryRowContext(ctx, `SELECT tape FROM entries WHERE id = ? ORDER BY tape LIMIT 1`, id).Scan(&tape)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("find entry %s: %w", id, err)
		}
		ok = true
		return nil
	})
	return tape, ok, err
}
