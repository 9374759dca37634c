package remote

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/calls"
	"github.com/tape-dev/tape/views/sessions"
)

// Bringing the tapes and calls rows of the tapes that changed up to the
// local index's: the tapes row is the local sessions row; the calls are
// taken again from where the local calls view would fold them again
// (calls.FoldStart of the first place that changed).

// refreshChunk is how many tapes one transaction brings up to date.
const refreshChunk = 500

type pendingTape struct {
	tape string
	from views.Place
}

// refreshPending brings every marked tape up to date, the marks left by
// a sync that was stopped among them.
func (s *syncer) refreshPending(ctx context.Context) error {
	rows, err := s.conn.Query(ctx, `SELECT tape, anchor_seq, folder, eff_time, file, line FROM tape.pending WHERE workspace_id = $1 ORDER BY tape`, s.wsID)
	if err != nil {
		return fmt.Errorf("read the tapes to bring up to date: %w", err)
	}
	pending, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pendingTape, error) {
		var p pendingTape
		err := r.Scan(&p.tape, &p.from.Seq, &p.from.Folder, &p.from.Eff, &p.from.File, &p.from.Line)
		return p, err
	})
	if err != nil {
		return fmt.Errorf("read the tapes to bring up to date: %w", err)
	}
	for start := 0; start < len(pending); start += refreshChunk {
		if err := s.refresh(ctx, pending[start:min(start+refreshChunk, len(pending))]); err != nil {
			return err
		}
	}
	return nil
}

// refresh brings a chunk of tapes up to date in one transaction.
func (s *syncer) refresh(ctx context.Context, chunk []pendingTape) error {
	var names []string
	for _, p := range chunk {
		names = append(names, p.tape)
	}
	local, _, err := sessions.List(ctx, s.ix, sessions.Filter{Tapes: names}) // a tape gone has none, and its row goes
	if err != nil {
		return err
	}
	var tapeRows, callRows [][]any
	for _, sess := range local {
		tapeRows = append(tapeRows, s.tapeRow(sess))
	}
	var starts []views.Place
	for _, p := range chunk {
		var kept []calls.Kept
		start := views.TapeStart
		err := s.ix.Read(ctx, func(r views.Reader) error {
			var err error
			if start, err = calls.FoldStart(ctx, r, p.tape, p.from); err != nil {
				return err
			}
			kept, err = calls.Since(ctx, r, p.tape, start)
			return err
		})
		if err != nil {
			return err
		}
		starts = append(starts, start)
		for _, c := range kept {
			if utf8.ValidString(c.Place.Folder + c.Place.File) { // the entries of a file named otherwise are not synced (storable)
				callRows = append(callRows, s.callRow(p.tape, c))
			}
		}
	}
	tx, err := s.conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it does nothing
	if _, err := tx.Exec(ctx, `DELETE FROM tape.tapes WHERE workspace_id = $1 AND tape = ANY($2)`, s.wsID, names); err != nil {
		return fmt.Errorf("write tapes: %w", err)
	}
	if err := deleteCallsFrom(ctx, tx, s.wsID, names, starts); err != nil {
		return err
	}
	for _, c := range []struct {
		table string
		cols  []string
		rows  [][]any
	}{{"tapes", tapeColumns, tapeRows}, {"calls", callColumns, callRows}} {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{Schema, c.table}, c.cols, pgx.CopyFromRows(c.rows)); err != nil {
			return fmt.Errorf("write %s: %w", c.table, err)
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM tape.pending WHERE workspace_id = $1 AND tape = ANY($2)`, s.wsID, names); err != nil {
		return fmt.Errorf("write tapes: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	s.stats.Tapes += len(chunk)
	s.stats.Commits++
	return nil
}

// deleteCallsFrom deletes each tape's calls from its start on.
func deleteCallsFrom(ctx context.Context, tx pgx.Tx, wsID string, tapes []string, starts []views.Place) error {
	var seqs, effs []int64
	var folders, files []string
	var lines []int32
	for _, p := range starts {
		seqs, folders, effs, files, lines = append(seqs, p.Seq), append(folders, p.Folder), append(effs, p.Eff), append(files, p.File), append(lines, int32(p.Line))
	}
	_, err := tx.Exec(ctx, `DELETE FROM tape.calls c
		USING unnest($2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[], $7::int[]) AS s(tape, anchor_seq, folder, eff_time, file, line)
		WHERE c.workspace_id = $1 AND c.tape = s.tape
			AND (c.anchor_seq, c.folder, c.eff_time, c.file, c.line) >= (s.anchor_seq, s.folder COLLATE "C", s.eff_time, s.file COLLATE "C", s.line)`,
		wsID, tapes, seqs, folders, effs, files, lines)
	if err != nil {
		return fmt.Errorf("write calls: %w", err)
	}
	return nil
}

var tapeColumns = []string{"workspace_id", "tape", "title", "cwd", "branch", "model", "first", "last", "entries", "anchors", "source", "session_id", "parent"}

func (s *syncer) tapeRow(t sessions.Session) []any {
	if r := s.opts.Redactor; r != nil { // a title is the first prompt, often; a folder may be named after anything
		t.Title = r.Title(t.Title)
		t.CWD, _ = r.Text(t.CWD)
	}
	return []any{s.wsID, t.Name, pgText(t.Title), pgText(t.CWD), pgText(t.Branch), pgText(t.Model), timeOrNil(t.First), timeOrNil(t.Last),
		int32(t.Entries), int32(t.Anchors), pgText(t.Source), pgText(t.SessionID), pgText(t.Parent)}
}

var callColumns = []string{"workspace_id", "tape", "anchor_seq", "folder", "eff_time", "file", "line", "idx", "call_id", "name", "status",
	"called_at", "answered_at", "result_folder", "result_file", "result_line", "result_idx"}

func (s *syncer) callRow(tape string, c calls.Kept) []any {
	p := c.Place
	row := []any{s.wsID, tape, p.Seq, p.Folder, p.Eff, p.File, int32(p.Line), int32(c.Index), pgText(c.ID), pgText(c.Name), c.Status, timeOf(c.CalledNS), timeOf(c.AnsweredNS)}
	if r := c.Result; r != nil && utf8.ValidString(r.Folder+r.File) {
		return append(row, r.Folder, r.File, int32(r.Line), int32(c.ResultIndex))
	}
	return append(row, nil, nil, nil, nil)
}

func timeOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}
