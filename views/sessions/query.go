package sessions

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tape-dev/tape/views"
)

// Queries of the sessions table. A page, its total and the entries its
// titles are read from are read in one snapshot (views.Index.Read): a
// watcher's pass in between could otherwise make the total disagree with
// the page, or hand a rowid to another entry.

// Session is a tape as a list of sessions shows it.
type Session struct {
	Name string
	// Title is the last title an agent gave the tape (a title event), else
	// the text of its first user message that meta does not mark as
	// synthetic.
	Title string
	// CWD is the first working directory an entry's meta names, else the
	// one its first anchor's state names; Branch the last git branch, else
	// the first anchor's.
	CWD, Branch string
	Model       string    // of its last run that names one
	First, Last time.Time // zero when no entry has a date
	// Entries counts its entries, anchor entries not counted; Anchors its
	// anchor folders.
	Entries, Anchors int
	// What the tape's first anchor says of an imported session: the
	// agent that recorded it ("claude", "codex"), its id there, and the
	// tape of the session it is a subagent or a fork of ("" for none).
	Source, SessionID, Parent string
}

// Filter selects sessions.
type Filter struct {
	Since time.Time // only tapes last written at or after it; zero for all
	// Match, if not "", keeps the tapes whose name, title event, working
	// directory, git branch, model or source contains it, ASCII letters
	// in either case. (A title read from the first prompt is not matched:
	// it is not kept in the view; search finds it.)
	Match string
	Tape  string   // if not "", only the tape of this name
	Tapes []string // if not nil, only the tapes of these names
	views.Page
}

// List returns the page of the sessions f selects, the most recently
// written first (then by name, and tapes without a date last), and how
// many it selects in all. First is the earliest date of the tape's first
// anchor seq, Last the latest of its newest folder, where agents write.
func List(ctx context.Context, ix views.Index, f Filter) (page []Session, total int, err error) {
	err = ix.Read(ctx, func(r views.Reader) error {
		where, args := f.where()
		if err := r.QueryRowContext(ctx, `SELECT count(*) FROM sessions`+where, args...).Scan(&total); err != nil {
			return fmt.Errorf("count sessions: %w", err)
		}
		page, err = list(ctx, r, where, args, f.Page)
		return err
	})
	return page, total, err
}

// Count is how many sessions were last written at or after since (zero
// for all).
func Count(ctx context.Context, ix views.Index, since time.Time) (n int, err error) {
	err = ix.Read(ctx, func(r views.Reader) error {
		where, args := sinceWhere(since)
		if err := r.QueryRowContext(ctx, `SELECT count(*) FROM sessions`+where, args...).Scan(&n); err != nil {
			return fmt.Errorf("count sessions: %w", err)
		}
		return nil
	})
	return n, err
}

// where is the WHERE of the rows f selects, and its arguments.
func (f Filter) where() (string, []any) {
	where, args := sinceWhere(f.Since)
	and := func(cond string) {
		if where == "" {
			where = " WHERE " + cond
		} else {
			where += " AND " + cond
		}
	}
	if f.Tape != "" {
		and("tape = ?")
		args = append(args, f.Tape)
	}
	if f.Tapes != nil {
		and("tape IN (SELECT value FROM json_each(?))")
		names, _ := json.Marshal(f.Tapes)
		args = append(args, string(names))
	}
	if f.Match == "" {
		return where, args
	}
	like := "%" + likeEscaper.Replace(f.Match) + "%"
	cond := `(tape LIKE ? ESCAPE '\' OR title LIKE ? ESCAPE '\' OR cwd LIKE ? ESCAPE '\' OR start_cwd LIKE ? ESCAPE '\'
		OR branch LIKE ? ESCAPE '\' OR model LIKE ? ESCAPE '\' OR source LIKE ? ESCAPE '\')`
	for range 7 {
		args = append(args, like)
	}
	and(cond)
	return where, args
}

// likeEscaper escapes what LIKE reads as wildcards, with \.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// sinceWhere selects the rows last written at or after t, as time.Time
// compares: a time past the range of nanoseconds since 1970 selects none,
// one before it all that have a date.
func sinceWhere(t time.Time) (string, []any) {
	switch {
	case t.IsZero():
		return "", nil
	case t.Before(time.Unix(0, math.MinInt64)):
		return ` WHERE last_ns IS NOT NULL`, nil
	case t.After(time.Unix(0, math.MaxInt64)):
		return ` WHERE 0`, nil
	}
	return ` WHERE last_ns >= ?`, []any{t.UnixNano()}
}

// listed is a row as a page reads it, before its title and parent.
type listed struct {
	Session
	prompt        sql.NullInt64 // the first prompt's entry
	promptText    string        // its text, cut to views.PromptBytes
	promptCut     bool          // cut: the title is read from the entry
	startCWD      string
	startBranch   string
	parentSession string
}

func list(ctx context.Context, r views.Reader, where string, args []any, pg views.Page) ([]Session, error) {
	limit, largs := pg.SQL()
	rows, err := r.QueryContext(ctx, `SELECT tape, title, prompt_entry, prompt, prompt_cut, cwd, start_cwd, branch, start_branch, model, first_ns, last_ns,
		entries, anchors, source, session_id, parent_session
		FROM sessions`+where+` ORDER BY last_ns DESC, tape`+limit, append(args, largs...)...)
	if err != nil {
		return nil, fmt.Errorf("query sessions: %w", err)
	}
	var found []listed
	for rows.Next() {
		var l listed
		var first, last sql.NullInt64
		if err := rows.Scan(&l.Name, &l.Title, &l.prompt, &l.promptText, &l.promptCut, &l.CWD, &l.startCWD, &l.Branch, &l.startBranch, &l.Model, &first, &last,
			&l.Entries, &l.Anchors, &l.Source, &l.SessionID, &l.parentSession); err != nil {
			rows.Close()
			return nil, err
		}
		l.First, l.Last = timeOf(first), timeOf(last)
		found = append(found, l)
	}
	rows.Close() // before the reads below: they share the snapshot's connection
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Session, 0, len(found))
	for _, l := range found {
		s, err := complete(ctx, r, l)
		if err != nil {
			return nil, fmt.Errorf("describe tape %s: %w", l.Name, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func timeOf(ns sql.NullInt64) time.Time {
	if !ns.Valid {
		return time.Time{}
	}
	return time.Unix(0, ns.Int64).UTC()
}

// complete fills in what a row leaves to the page: the start's cwd and
// branch where no entry named one, the title from the first prompt where
// no event gave one (the row's text of it, or, where that was cut, the
// entry's, read from its file: an entry that no longer reads as it was
// indexed gives none), and the parent's tape.
func complete(ctx context.Context, r views.Reader, l listed) (Session, error) {
	s := l.Session
	s.CWD, s.Branch = cmp.Or(s.CWD, l.startCWD), cmp.Or(s.Branch, l.startBranch)
	if s.Title == "" && l.prompt.Valid && !l.promptCut {
		s.Title = l.promptText
	} else if s.Title == "" && l.prompt.Valid {
		if e, err := r.Entry(ctx, l.prompt.Int64); err == nil {
			s.Title = views.MessageText(e.Payload)
		}
	}
	if l.parentSession == "" {
		return s, nil
	}
	// Of the tapes that are the session (no subagent or fork themselves),
	// the last by name, as the list always took it.
	err := r.QueryRowContext(ctx, `SELECT tape FROM sessions WHERE source = ? AND session_id = ? AND session_id <> '' AND parent_session = ''
		ORDER BY tape DESC LIMIT 1`, s.Source, l.parentSession).Scan(&s.Parent)
	if err != nil && err != sql.ErrNoRows {
		return s, fmt.Errorf("find the parent session: %w", err)
	}
	return s, nil
}
