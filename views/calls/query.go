package calls

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// Queries of the calls tables. A list's count, its rows and the entries
// they point at are read in one snapshot (views.Index.Read): a watcher's
// pass in between could otherwise make the total disagree with the page,
// or hand a rowid to another entry.

// Filter selects calls.
type Filter struct {
	Tape   string // "" for every tape
	Status string // pending, completed, failed; "" for all
	Name   string // the tool's name; "" for all
	views.Page
}

// Listed is one tool call as a list shows it: a row of the calls table,
// with its arguments and result read from the files.
type Listed struct {
	ID, Tape, Anchor, Name string
	Entry                  string // the id of the tool_call entry that made it
	Status                 string
	Arguments              json.RawMessage // nil when the call has none
	Result                 json.RawMessage // nil while pending; the whole payload of an error entry that answered it
	CalledAt, AnsweredAt   string          // the entries' dates; "" for none
	DurationMS             *int64
}

// List returns the calls the filter selects, newest first, and how many
// it selects in all. The calls of one tape come in reverse tape order;
// those of every tape by the time they were called (then in reverse tape
// order, and calls without a date last), so that a workspace of many
// sessions lists the latest session's calls first, not the last tape's
// by name. A call or
// result whose line changed since it was indexed comes back in errs, and
// the call without it.
func List(ctx context.Context, ix views.Index, f Filter) (calls []Listed, total int, errs []error, err error) {
	err = ix.Read(ctx, func(r views.Reader) error {
		calls, total, errs, err = list(ctx, r, f)
		return err
	})
	return calls, total, errs, err
}

// Count is how many calls the filter selects (its page aside), as List's
// total says, without listing any.
func Count(ctx context.Context, ix views.Index, f Filter) (total int, err error) {
	err = ix.Read(ctx, func(r views.Reader) error {
		total, err = count(ctx, r, f, f.equal())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("count calls: %w", err)
	}
	return total, nil
}

// equal is the WHERE of the calls f selects.
func (f Filter) equal() equal {
	var c equal
	c.add("c.tape", f.Tape, f.Tape != "")
	c.add("c.status", f.Status, f.Status != "")
	c.add("c.name", f.Name, f.Name != "")
	return c
}

// equal builds a WHERE of col = value conditions, for those that are on.
type equal struct {
	where []string
	args  []any
}

func (e *equal) add(col, value string, on bool) {
	if on {
		e.where, e.args = append(e.where, col+" = ?"), append(e.args, value)
	}
}

func (e *equal) sql() string {
	if len(e.where) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(e.where, " AND ")
}

// listedRef is a calls row before its entries are read.
type listedRef struct {
	call               Listed
	idx, resultIdx     int
	entry, resultEntry int64
	calledNS, answerNS sql.NullInt64
	hasResult          bool
}

func list(ctx context.Context, r views.Reader, f Filter) (calls []Listed, total int, errs []error, err error) {
	c := f.equal()
	if total, err = count(ctx, r, f, c); err != nil {
		return nil, 0, nil, fmt.Errorf("count calls: %w", err)
	}
	refs, err := listRefs(ctx, r, f, c)
	if err != nil {
		return nil, 0, nil, err
	}
	for _, ref := range refs {
		call := ref.call
		e, err := r.Entry(ctx, ref.entry)
		if err != nil {
			errs = append(errs, err)
		}
		call.Anchor, call.CalledAt, call.Entry = e.Pos.Anchor, e.Date, e.ID
		call.Arguments = callArguments(e.Payload, ref.idx)
		if ref.hasResult {
			res, err := r.Entry(ctx, ref.resultEntry)
			if err != nil {
				errs = append(errs, err)
			}
			call.AnsweredAt = res.Date
			call.Result = resultAt(res.Payload, ref.resultIdx)
		}
		if ref.calledNS.Valid && ref.answerNS.Valid {
			ms := (ref.answerNS.Int64 - ref.calledNS.Int64) / int64(time.Millisecond)
			call.DurationMS = &ms
		}
		calls = append(calls, call)
	}
	return calls, total, errs, nil
}

func listRefs(ctx context.Context, r views.Reader, f Filter, c equal) ([]listedRef, error) {
	limit, largs := f.Page.SQL()
	order := `c.tape DESC, c.anchor_seq DESC, c.folder DESC, c.eff_time DESC, c.file DESC, c.line DESC, c.idx DESC`
	if f.Tape == "" {
		order = `c.called_ns DESC, ` + order // calls_time, calls_status_time
	}
	rows, err := r.QueryContext(ctx, `SELECT c.tape, c.call_id, c.name, c.status, c.idx, c.entry, c.result_entry, c.result_idx, c.called_ns, c.answered_ns
		FROM calls c`+c.sql()+` ORDER BY `+order+limit,
		append(c.args, largs...)...)
	if err != nil {
		return nil, fmt.Errorf("query calls: %w", err)
	}
	defer rows.Close()
	var refs []listedRef
	for rows.Next() {
		var ref listedRef
		var resultEntry, resultIdx sql.NullInt64
		if err := rows.Scan(&ref.call.Tape, &ref.call.ID, &ref.call.Name, &ref.call.Status, &ref.idx, &ref.entry, &resultEntry, &resultIdx, &ref.calledNS, &ref.answerNS); err != nil {
			return nil, err
		}
		ref.resultEntry, ref.resultIdx, ref.hasResult = resultEntry.Int64, int(resultIdx.Int64), resultEntry.Valid
		refs = append(refs, ref)
	}
	return refs, rows.Err()
}

// count counts the calls a filter selects: from call_counts, kept with
// calls, unless it filters on the tool's name.
func count(ctx context.Context, r views.Reader, f Filter, c equal) (int, error) {
	var total int
	if f.Name != "" {
		err := r.QueryRowContext(ctx, `SELECT count(*) FROM calls c`+c.sql(), c.args...).Scan(&total)
		return total, err
	}
	var k equal
	k.add("tape", f.Tape, f.Tape != "")
	k.add("status", f.Status, f.Status != "")
	err := r.QueryRowContext(ctx, `SELECT coalesce(sum(n), 0) FROM call_counts`+k.sql(), k.args...).Scan(&total)
	return total, err
}

// callArguments picks the arguments of the idx-th call of a tool_call
// payload (views.ParseCall).
func callArguments(payload json.RawMessage, idx int) json.RawMessage {
	calls := views.Calls(payload)
	if idx < 0 || idx >= len(calls) {
		return nil
	}
	return views.ParseCall(calls[idx]).Arguments
}

// resultAt picks the idx-th result of a tool_result payload, or the whole
// payload of an error entry (idx -1).
func resultAt(payload json.RawMessage, idx int) json.RawMessage {
	if idx < 0 {
		return payload
	}
	var p struct {
		Results []json.RawMessage `json:"results"`
	}
	if json.Unmarshal(payload, &p) != nil || idx >= len(p.Results) {
		return nil
	}
	return p.Results[idx]
}

// Orphan is a tool result whose call id no waiting call had: it answers
// nothing (views.Orphan).
type Orphan struct {
	Tape, CallID string
	Path         string // the file of its tool_result entry, relative to the workspace
	Line         int
	Index        int // the result's position in the entry
}

// Orphans returns up to limit of the orphaned results of a tape ("" for
// every tape), in tape order, and how many there are.
func Orphans(ctx context.Context, ix views.Index, tape string, limit int) (out []Orphan, total int, err error) {
	err = ix.Read(ctx, func(r views.Reader) error {
		out, total, err = orphans(ctx, r, tape, limit)
		return err
	})
	return out, total, err
}

func orphans(ctx context.Context, r views.Reader, tape string, limit int) (out []Orphan, total int, err error) {
	var c equal
	c.add("tape", tape, tape != "")
	if err := r.QueryRowContext(ctx, `SELECT count(*) FROM orphan_results`+c.sql(), c.args...).Scan(&total); err != nil || total == 0 {
		return nil, total, err
	}
	rows, err := r.QueryContext(ctx, `SELECT tape, folder, file, line, idx, call_id FROM orphan_results`+c.sql()+
		` ORDER BY tape, anchor_seq, folder, eff_time, file, line, idx LIMIT ?`, append(c.args, limit)...)
	if err != nil {
		return nil, 0, fmt.Errorf("query orphaned results: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var o Orphan
		var folder, file string
		if err := rows.Scan(&o.Tape, &folder, &file, &o.Line, &o.Index, &o.CallID); err != nil {
			return nil, 0, err
		}
		o.Path = tapelog.Position{Tape: o.Tape, Folder: folder, File: file}.Path()
		out = append(out, o)
	}
	return out, total, rows.Err()
}
