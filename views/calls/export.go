package calls

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/tape-dev/tape/views"
)

// A copy of the calls elsewhere (the team index on PostgreSQL, package
// remote) keeps them as this view does: after entries of a tape change
// from a place on, the calls from FoldStart on are computed again, and
// the copy takes those rows (Since) in place of its own.

// FoldStart is where the calls of the tape must be computed again from
// when its tool entries changed from place from on (see foldStart).
func FoldStart(ctx context.Context, r views.Reader, tape string, from views.Place) (views.Place, error) {
	start, err := foldStart(ctx, r, tape, from)
	if err != nil {
		return views.Place{}, fmt.Errorf("the calls of tape %s: %w", tape, err)
	}
	return start, nil
}

// Kept is a call as the view keeps it: where its tool_call entry is, and
// where the entry that answered it is.
type Kept struct {
	Place                views.Place // of its tool_call entry
	Index                int         // its position there
	ID, Name             string
	Status               string
	CalledNS, AnsweredNS *int64
	// Result is the place of the tool_result or error entry that
	// answered it, and ResultIndex the position of the result there (-1
	// for an error entry); nil when pending.
	Result      *views.Place
	ResultIndex int
}

// Since returns the calls of the tape whose tool_call entry is at place
// from or after it, in tape order.
func Since(ctx context.Context, r views.Reader, tape string, from views.Place) ([]Kept, error) {
	rows, err := r.QueryContext(ctx, `SELECT c.anchor_seq, c.folder, c.eff_time, c.file, c.line, c.idx, c.call_id, c.name, c.status,
			c.called_ns, c.answered_ns, e.anchor_seq, e.folder, e.eff_time, e.file, e.line, c.result_idx
		FROM calls c LEFT JOIN entries e ON e.rowid = c.result_entry
		WHERE c.tape = ? AND (c.anchor_seq, c.folder, c.eff_time, c.file, c.line) >= (?, ?, ?, ?, ?)
		ORDER BY c.anchor_seq, c.folder, c.eff_time, c.file, c.line, c.idx`, append([]any{tape}, from.Args()...)...)
	if err != nil {
		return nil, fmt.Errorf("the calls of tape %s: %w", tape, err)
	}
	defer rows.Close()
	var out []Kept
	for rows.Next() {
		var k Kept
		var rSeq, rEff, rLine, rIdx sql.NullInt64
		var rFolder, rFile sql.NullString
		p := &k.Place
		if err := rows.Scan(&p.Seq, &p.Folder, &p.Eff, &p.File, &p.Line, &k.Index, &k.ID, &k.Name, &k.Status,
			&k.CalledNS, &k.AnsweredNS, &rSeq, &rFolder, &rEff, &rFile, &rLine, &rIdx); err != nil {
			return nil, fmt.Errorf("the calls of tape %s: %w", tape, err)
		}
		if rSeq.Valid {
			k.Result = &views.Place{Seq: rSeq.Int64, Folder: rFolder.String, Eff: rEff.Int64, File: rFile.String, Line: int(rLine.Int64)}
			k.ResultIndex = int(rIdx.Int64)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}
