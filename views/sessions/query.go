package sessions

import (
	"context"
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
	total, err = Each(ctx, ix, f, func(s Session) error {
		page = append(page, s)
		return nil
	})
	return page, total, err
}

// Each is List that hands each session of the page to fn as it is read,
// in the page's order, instead of keeping the page: a listing of every
// tape prints its first rows at once, and holds three batches of 64 rows
// at most, not the page. fn runs inside the snapshot, while its rows are
// open, and must not read the index; an error of fn ends the listing and
// is returned as it is.
func Each(ctx context.Context, ix views.Index, f Filter, fn func(Session) error) (total int, err error) {
	err = ix.Read(ctx, func(r views.Reader) error {
		where, args := f.where()
		if f.Limit <= 0 && f.Offset == 0 { // the page is every row: they are counted as they are read
			return each(ctx, r, where, args, f.Page, func(s Session) error {
				total++
				return fn(s)
			})
		}
		if err := r.QueryRowContext(ctx, `SELECT count(*) FROM sessions s`+where, args...).Scan(&total); err != nil {
			return fmt.Errorf("count sessions: %w", err)
		}
		return each(ctx, r, where, args, f.Page, fn)
	})
	return total, err
}

// Count is how many sessions were last written at or after since (zero
// for all).
func Count(ctx context.Context, ix views.Index, since time.Time) (n int, err error) {
	err = ix.Read(ctx, func(r views.Reader) error {
		where, args := sinceWhere(since)
		if err := r.QueryRowContext(ctx, `SELECT count(*) FROM sessions s`+where, args...).Scan(&n); err != nil {
			return fmt.Errorf("count sessions: %w", err)
		}
		return nil
	})
	return n, err
}

// where is the WHERE of the rows f selects, and its arguments: of the
// sessions table as s, which the page's query joins with others.
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
		and("s.tape = ?")
		args = append(args, f.Tape)
	}
	if f.Tapes != nil {
		and("s.tape IN (SELECT value FROM json_each(?))")
		names, _ := json.Marshal(f.Tapes)
		args = append(args, string(names))
	}
	if f.Match == "" {
		return where, args
	}
	like := "%" + likeEscaper.Replace(f.Match) + "%"
	cond := `(s.tape LIKE ? ESCAPE '\' OR s.title LIKE ? ESCAPE '\' OR s.cwd LIKE ? ESCAPE '\' OR s.start_cwd LIKE ? ESCAPE '\'
		OR s.branch LIKE ? ESCAPE '\' OR s.model LIKE ? ESCAPE '\' OR s.source LIKE ? ESCAPE '\')`
	for range 7 {
		args = append(args, like)
	}
	and(cond)
	return where, args
}

// likeEscaper escapes what LIKE reads as wildcards, with \.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// sinceWhere selects the rows of s last written at or after t, as time.Time
// compares: a time past the range of nanoseconds since 1970 selects none,
// one before it all that have a date.
func sinceWhere(t time.Time) (string, []any) {
	switch {
	case t.IsZero():
		return "", nil
	case t.Before(time.Unix(0, math.MinInt64)):
		return ` WHERE s.last_ns IS NOT NULL`, nil
	case t.After(time.Unix(0, math.MaxInt64)):
		return ` WHERE 0`, nil
	}
	return ` WHERE s.last_ns >= ?`, []any{t.UnixNano()}
}
