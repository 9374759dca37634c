package sessions_test

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/sessions"
)

// oracle is the sessions list as it was computed before it was a view
// (projector.Sessions at 8cfa02d): every tape described when asked, from
// the entries, anchors and runs tables, and sorted as tape tapes sorted
// it. The view must answer as it does. One rule is added to it: runs that
// tie on (anchor seq, folder, time) are ordered by place, where the old
// query left the order to SQLite (the view takes the last run in tape
// order: fold.go says why that is the same).
func oracle(ctx context.Context, ix views.Index) ([]sessions.Session, error) {
	var out []sessions.Session
	parents := map[string]string{}
	err := ix.Read(ctx, func(r views.Reader) error {
		names, err := oracleTapes(ctx, r)
		if err != nil {
			return err
		}
		for _, name := range names {
			s, parent, err := oracleSession(ctx, r, name)
			if err != nil {
				return fmt.Errorf("describe tape %s: %w", name, err)
			}
			out = append(out, s)
			parents[name] = parent
		}
		return nil
	})
	bySession := map[string]string{}
	for _, s := range out {
		if s.SessionID != "" && parents[s.Name] == "" {
			bySession[s.Source+"/"+s.SessionID] = s.Name
		}
	}
	for i, s := range out {
		if p := parents[s.Name]; p != "" {
			out[i].Parent = bySession[s.Source+"/"+p]
		}
	}
	slices.SortStableFunc(out, func(a, b sessions.Session) int {
		if !a.Last.Equal(b.Last) {
			return b.Last.Compare(a.Last)
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out, err
}

func oracleTapes(ctx context.Context, r views.Reader) ([]string, error) {
	rows, err := r.QueryContext(ctx, `SELECT DISTINCT tape FROM entries ORDER BY tape`) // a tape of no entries has no session
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

func oracleSession(ctx context.Context, q views.Reader, name string) (s sessions.Session, parent string, err error) {
	s.Name = name
	var first, last sql.NullInt64
	var lastSeq int64
	var lastFolder string
	// An anchor is a folder with an anchor entry (its id not empty), and the
	// first and last folders are those that hold entries: a folder of
	// seq 0 without anchor.json has none of its own.
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM anchors WHERE tape = ? AND id <> ''`, name).Scan(&s.Anchors); err != nil {
		return s, "", err
	}
	if err := q.QueryRowContext(ctx, `SELECT anchor_seq, folder FROM entries WHERE tape = ? ORDER BY anchor_seq DESC, folder DESC LIMIT 1`, name).Scan(&lastSeq, &lastFolder); err != nil {
		return s, "", err
	}
	if err := q.QueryRowContext(ctx, `SELECT min(time_ns) FROM entries WHERE tape = ? AND anchor_seq = (SELECT min(anchor_seq) FROM entries WHERE tape = ?)`, name, name).Scan(&first); err != nil {
		return s, "", err
	}
	if err := q.QueryRowContext(ctx, `SELECT max(time_ns) FROM entries WHERE tape = ? AND anchor_seq = ? AND folder = ?`, name, lastSeq, lastFolder).Scan(&last); err != nil {
		return s, "", err
	}
	if first.Valid {
		s.First = time.Unix(0, first.Int64).UTC()
	}
	if last.Valid {
		s.Last = time.Unix(0, last.Int64).UTC()
	}
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM entries WHERE tape = ? AND file_id <> 0`, name).Scan(&s.Entries); err != nil {
		return s, "", err
	}
	rows, err := q.QueryContext(ctx, `SELECT facts FROM entries WHERE tape = ?
		AND (facts LIKE '%"cwd":%' OR facts LIKE '%"branch":%' OR facts LIKE '%"title":%')
		ORDER BY anchor_seq, folder, eff_time, file, line`, name)
	if err != nil {
		return s, "", err
	}
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			rows.Close()
			return s, "", err
		}
		f, err := views.DecodeFacts(text)
		if err != nil {
			rows.Close()
			return s, "", err
		}
		s.CWD = cmp.Or(s.CWD, f.CWD)
		s.Branch, s.Title = cmp.Or(f.Branch, s.Branch), cmp.Or(f.Title, s.Title)
	}
	rows.Close()
	if s.Title == "" {
		var title sql.NullInt64
		err := q.QueryRowContext(ctx, `SELECT rowid FROM entries WHERE tape = ? AND kind = 'message' AND facts LIKE '{"role":"user"%'
			AND facts NOT LIKE '{"role":"user","synthetic":true%'
			ORDER BY anchor_seq, folder, eff_time, file, line LIMIT 1`, name).Scan(&title)
		if err != nil && err != sql.ErrNoRows {
			return s, "", err
		}
		if title.Valid {
			if e, err := q.Entry(ctx, title.Int64); err == nil {
				s.Title = views.MessageText(e.Payload)
			}
		}
	}
	err = q.QueryRowContext(ctx, `SELECT r.model FROM runs r JOIN entries e ON e.rowid = r.entry WHERE r.tape = ? AND r.model <> ''
		ORDER BY r.anchor_seq DESC, r.folder DESC, r.time_ns DESC, e.eff_time DESC, e.file DESC, e.line DESC LIMIT 1`, name).Scan(&s.Model)
	if err != nil && err != sql.ErrNoRows {
		return s, "", err
	}
	var start string
	err = q.QueryRowContext(ctx, `SELECT payload FROM anchors WHERE tape = ? AND id <> '' ORDER BY seq, folder LIMIT 1`, name).Scan(&start)
	if err != nil && err != sql.ErrNoRows { // none: the tape's entries all come before its first anchor
		return s, "", err
	}
	var a struct {
		State struct {
			Source        string `json:"source"`
			SessionID     string `json:"session_id"`
			ParentSession string `json:"parent_session"`
			CWD           string `json:"cwd"`
			Branch        string `json:"git_branch"`
		} `json:"state"`
	}
	if json.Unmarshal([]byte(start), &a) == nil {
		s.Source, s.SessionID, parent = a.State.Source, a.State.SessionID, a.State.ParentSession
		s.CWD, s.Branch = cmp.Or(s.CWD, a.State.CWD), cmp.Or(s.Branch, a.State.Branch)
	}
	return s, parent, nil
}
