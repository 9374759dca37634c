package sessions

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// A page of sessions is one query, read a row at a time: what a row leaves
// to the page (the parent's tape, where the title's entry is when the
// index kept only the start of its text) the query selects with it, and
// a title is read from its file with no query of its own. At 10,000
// tapes, a query for each cut title (3,051 of them) and its preparation
// were 40% of `tape tapes --limit 0`; and no query runs while the rows
// are open, so they are read as they are handed on (decision 0080).

// pageQuery selects a page's rows; the WHERE of Filter.where, ORDER BY
// and LIMIT go at its end.
//
// The title is the last title event's, else the first prompt's text
// where the index kept it whole; the cwd and branch the entries', else the
// start's. The parent is the last by name of the tapes that are the
// session (no subagent or fork themselves), as the list always took it.
// The title's entry is looked up only where the row holds no title event
// and a cut prompt: a NULL rowid is not sought (with the condition beside
// the rowid's, SQLite sought each tape's prompt: 23,934 reads of a page
// against 10,048 before the join).
const pageQuery = `SELECT s.tape,
	CASE WHEN s.title <> '' THEN s.title WHEN s.prompt_entry IS NULL OR s.prompt_cut THEN '' ELSE s.prompt END,
	CASE WHEN s.cwd <> '' THEN s.cwd ELSE s.start_cwd END, CASE WHEN s.branch <> '' THEN s.branch ELSE s.start_branch END,
	s.model, s.first_ns, s.last_ns, s.entries, s.anchors, s.source, s.session_id,
	CASE WHEN s.parent_session <> '' THEN coalesce((SELECT p.tape FROM sessions p
		WHERE p.source = s.source AND p.session_id = s.parent_session AND p.session_id <> '' AND p.parent_session = ''
		ORDER BY p.tape DESC LIMIT 1), '') ELSE '' END,
	e.id, e.kind, e.anchor_seq, e.folder, a.name, e.file, e.line, e.offset, e.length
	FROM sessions s
	LEFT JOIN entries e ON e.rowid = CASE WHEN s.title = '' AND s.prompt_cut THEN s.prompt_entry END
	LEFT JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder`

// pageRow is a page's row as the query gives it, before what complete adds.
type pageRow struct {
	Session
	first, last sql.NullInt64
	// The entry of the first prompt that is the title and that the index
	// cut, where it has it (id.Valid): what tapelog.EntryReader.ReadEntry
	// reads it by.
	id, kind, folder, anchor, file sql.NullString
	seq, line, offset, length      sql.NullInt64
}

func (l *pageRow) dest() []any {
	return []any{&l.Name, &l.Title, &l.CWD, &l.Branch,
		&l.Model, &l.first, &l.last, &l.Entries, &l.Anchors, &l.Source, &l.SessionID, &l.Parent,
		&l.id, &l.kind, &l.seq, &l.folder, &l.anchor, &l.file, &l.line, &l.offset, &l.length}
}

// each calls fn with each session of the page, in order, as it reads it.
//
// The rows are read on a goroutine of their own, a batch at a time,
// while this one completes the batch before (a cut title is read from
// its file) and hands its sessions to fn: SQLite's steps were half of a
// listing of every tape, the titles and what fn did with each row (the
// CLI: a stat for its forks, its JSON line) a third.
func each(ctx context.Context, r views.Reader, where string, args []any, pg views.Page, fn func(Session) error) error {
	limit, largs := pg.SQL()
	rows, err := r.QueryContext(ctx, pageQuery+where+` ORDER BY s.last_ns DESC, s.tape`+limit, append(args, largs...)...)
	if err != nil {
		return fmt.Errorf("query sessions: %w", err)
	}
	defer rows.Close()
	// Three batches go round: one being read, one waiting, one being
	// handed on; a batch comes back through free once handed on.
	batches, free := make(chan []pageRow, 1), make(chan []pageRow, 3)
	room := scanBatch
	if pg.Limit > 0 {
		room = min(room, pg.Limit) // a page of 20 needs no room for 64
	}
	for range 3 {
		free <- make([]pageRow, 0, room)
	}
	stop := make(chan struct{})
	halt := sync.OnceFunc(func() { close(stop) })
	defer halt() // and on a panic of fn: scan does not wait for a reader gone
	scanned := make(chan error, 1)
	go func() {
		defer close(batches)
		scanned <- scan(rows, batches, free, stop)
	}()
	var fnErr error
	for batch := range batches { // to the end, so that scan is done before rows.Close
		for i := 0; i < len(batch) && fnErr == nil; i++ {
			if err := ctx.Err(); err != nil {
				fnErr = fmt.Errorf("query sessions: %w", err) // nothing more for a caller gone
			} else {
				fnErr = fn(complete(r, &batch[i]))
			}
			if fnErr != nil {
				halt()
			}
		}
		free <- batch[:0]
	}
	scanErr := <-scanned
	if fnErr != nil {
		return fnErr
	}
	if scanErr != nil {
		return fmt.Errorf("query sessions: %w", scanErr)
	}
	return nil
}

// scanBatch is how many rows scan reads before it hands them on: few
// enough that the first rows go out at once, enough that the two
// goroutines seldom wait for each other.
const scanBatch = 64

// scan reads rows into batches taken from free until they end or stop is
// closed. Neither batches nor rows are allocated a row: the listing
// allocated 6 MB at 2,000 tapes (BenchmarkTapesJSON -benchmem), and at
// 10,000 its garbage was collected seven times.
func scan(rows *sql.Rows, batches chan<- []pageRow, free <-chan []pageRow, stop <-chan struct{}) error {
	batch := <-free
	send := func() bool {
		select {
		case batches <- batch:
		case <-stop:
			return false
		}
		select {
		case batch = <-free:
			return true
		case <-stop:
			return false
		}
	}
	var l pageRow
	dest := l.dest()
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil { // every field of l that is read
			return err
		}
		batch = append(batch, l)
		if len(batch) == scanBatch && !send() {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(batch) > 0 { // the last: no batch to take back for it
		select {
		case batches <- batch:
		case <-stop:
		}
	}
	return nil
}

func timeOf(ns sql.NullInt64) time.Time {
	if !ns.Valid {
		return time.Time{}
	}
	return time.Unix(0, ns.Int64).UTC()
}

// complete fills in what a row leaves to the page: its dates, and the
// title from the first prompt where no event gave one and the index cut
// its text: the entry's, read from its file (an entry that no longer
// reads as it was indexed gives none).
func complete(r views.Reader, l *pageRow) Session {
	s := l.Session
	s.First, s.Last = timeOf(l.first), timeOf(l.last)
	if l.id.Valid && l.anchor.Valid {
		if e, err := r.ReadEntry(l.entry(s.Name)); err == nil {
			s.Title = views.MessageText(e.Payload)
		}
	}
	return s
}

// entry is the cut prompt's entry as the index knows it, of tape.
func (l *pageRow) entry(tape string) tapelog.Entry {
	return tapelog.Entry{ID: l.id.String, Kind: l.kind.String, Pos: tapelog.Position{Tape: tape, AnchorSeq: l.seq.Int64,
		Anchor: l.anchor.String, Folder: l.folder.String, File: l.file.String, Line: int(l.line.Int64),
		Offset: l.offset.Int64, Length: int(l.length.Int64)}}
}
