package sessions

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
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
// are open, so they are read as they are handed on.

// pageQuery selects a page's rows; the WHERE of Filter.where, ORDER BY
// and LIMIT go at its end.
//
// The parent is the last by name of the tapes that are the session (no
// subagent or fork themselves), as the list always took it; the title's
// entry is looked up only where the row holds no title event and a cut
// prompt: a NULL rowid is not sought (with the condition beside the
// rowid's, SQLite sought each tape's prompt: 23,934 reads of a page
// against 10,048 before the join).
const pageQuery = `SELECT s.tape, s.title, s.prompt_entry IS NOT NULL, s.prompt, s.prompt_cut, s.cwd, s.start_cwd, s.branch, s.start_branch,
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
	hasPrompt   bool   // the tape has a first prompt
	promptText  string // its text, cut to views.PromptBytes
	promptCut   bool   // cut: the title is read from the entry
	startCWD    string
	startBranch string
	first, last sql.NullInt64
	// The cut prompt's entry, where the index has it (ID.Valid): what
	// tapelog.EntryReader.ReadEntry reads it by.
	id, kind, folder, anchor, file sql.NullString
	seq, line, offset, length      sql.NullInt64
}

func (l *pageRow) dest() []any {
	return []any{&l.Name, &l.Title, &l.hasPrompt, &l.promptText, &l.promptCut, &l.CWD, &l.startCWD, &l.Branch, &l.startBranch,
		&l.Model, &l.first, &l.last, &l.Entries, &l.Anchors, &l.Source, &l.SessionID, &l.Parent,
		&l.id, &l.kind, &l.seq, &l.folder, &l.anchor, &l.file, &l.line, &l.offset, &l.length}
}

// each calls fn with each session of the page, in order, as it reads it.
func each(ctx context.Context, r views.Reader, where string, args []any, pg views.Page, fn func(Session) error) error {
	limit, largs := pg.SQL()
	rows, err := r.QueryContext(ctx, pageQuery+where+` ORDER BY s.last_ns DESC, s.tape`+limit, append(args, largs...)...)
	if err != nil {
		return fmt.Errorf("query sessions: %w", err)
	}
	defer rows.Close()
	var l pageRow
	dest := l.dest()
	for rows.Next() {
		l = pageRow{}
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("query sessions: %w", err)
		}
		if err := fn(complete(r, &l)); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("query sessions: %w", err)
	}
	return nil
}

func timeOf(ns sql.NullInt64) time.Time {
	if !ns.Valid {
		return time.Time{}
	}
	return time.Unix(0, ns.Int64).UTC()
}

// complete fills in what a row leaves to the page: its dates, the start's
// cwd and branch where no entry named one, and the title from the first
// prompt where no event gave one (the row's text of it, or, where that
// was cut, the entry's, read from its file: an entry that no longer reads
// as it was indexed gives none).
func complete(r views.Reader, l *pageRow) Session {
	s := l.Session
	s.First, s.Last = timeOf(l.first), timeOf(l.last)
	s.CWD, s.Branch = cmp.Or(s.CWD, l.startCWD), cmp.Or(s.Branch, l.startBranch)
	switch {
	case s.Title != "" || !l.hasPrompt:
	case !l.promptCut:
		s.Title = l.promptText
	case l.id.Valid && l.anchor.Valid:
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
