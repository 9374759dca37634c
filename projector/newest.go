package projector

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/tape-dev/tape/views/recency"
)

// newestInBlocks lists the matches of expr that filter keeps (conditions
// on entries e) among which are the limit newest by time, ties included
// (recency.Table.List, decision 0077), and returns the FROM clause and
// arguments that read them back for Search to order (byTime) and cut.
// The read back joins each by its rowid, tape and id: it is another
// statement, and a rowid freed by a pass between the two and given to
// another entry is dropped, not taken for a hit.
func (p *Projector) newestInBlocks(ctx context.Context, expr string, filter conds, limit int, since time.Time) (string, []any, error) {
	var listed []recency.Listed
	err := p.snapshot(ctx, func(q querier) (err error) {
		l := recency.Listing{Match: expr, Filter: filter.where, Args: filter.args, Since: since, Limit: limit}
		listed, err = p.recency.List(ctx, q.(*sql.Tx), l)
		return err
	})
	keys := make([][3]any, len(listed))
	for i, m := range listed {
		keys[i] = [3]any{m.Rowid, m.Tape, m.ID}
	}
	list, _ := json.Marshal(keys) // numbers and strings: it cannot fail
	return ` FROM json_each(?) newest CROSS JOIN entries e ON e.rowid = newest.value ->> 0 AND e.tape = newest.value ->> 1 AND e.id = newest.value ->> 2` +
		` JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder`, []any{string(list)}, err
}
