package projector

import (
	"context"
	"database/sql"
	"fmt"

	tapelog "github.com/tape-dev/tape/log"

	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/calls"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// The views the index keeps, beside the entries (package views says what
// a view is). Adding one is a package under views/ and a line here (an
// index without its tables is made anew: schemaVersion); a change to what
// one of them stores bumps SchemaVersion.
func (p *Projector) viewTables() []views.Table {
	return []views.Table{
		calls.Table{Chunk: p.foldChunk},
		sessions.Table{}, // before usage: usage's triggers on sessions need the table, and its Settle the rows (views/usage/attrs.go)
		usage.Table{},
		p.recency, // not a view people read: the blocks Search visits newest first
	}
}

// viewTableNames lists the tables of the views the index keeps.
func (p *Projector) viewTableNames() []string {
	var names []string
	for _, t := range p.viewTables() {
		names = append(names, t.Tables()...)
	}
	return names
}

// allTables lists the index's tables, the views' first, for dropping and
// emptying them.
func (p *Projector) allTables() []string { return append(p.viewTableNames(), tables...) }

// viewSchema is the statements that create the views' tables.
func viewSchema(tables []views.Table) string {
	var s string
	for _, t := range tables {
		s += t.Schema()
	}
	return s
}

// viewPasses keeps the views through one pass: the applier tells them
// what it does to the entries, in order (views.Pass).
type viewPasses []views.Pass

func beginViews(tables []views.Table, tx views.Tx) viewPasses {
	var vp viewPasses
	for _, t := range tables {
		vp = append(vp, t.Begin(tx))
	}
	return vp
}

func (vp viewPasses) added(ctx context.Context, e views.Added) error {
	for _, v := range vp {
		if err := v.Added(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

func (vp viewPasses) removing(ctx context.Context, where string, args ...any) error {
	for _, v := range vp {
		if err := v.Removing(ctx, where, args...); err != nil {
			return err
		}
	}
	return nil
}

func (vp viewPasses) changed(tape string, from views.Place) {
	for _, v := range vp {
		v.Changed(tape, from)
	}
}

func (vp viewPasses) dropTape(ctx context.Context, tape string) error {
	for _, v := range vp {
		if err := v.DropTape(ctx, tape); err != nil {
			return err
		}
	}
	return nil
}

// settle brings every view up to the entries applied so far.
func (vp viewPasses) settle(ctx context.Context) error {
	for _, v := range vp {
		if err := v.Settle(ctx); err != nil {
			return err
		}
	}
	return nil
}

// backlog is the largest work a view would settle now.
func (vp viewPasses) backlog() int {
	n := 0
	for _, v := range vp {
		n = max(n, v.Backlog())
	}
	return n
}

// A pass that builds its search index beside (ftsbuild.go) settles the
// views at the end of a folder once settleEvery entries wait: it waits for
// the builder anyway, and the calls fold would otherwise run at the end,
// on one core (a tenth of a rebuild). The threshold keeps a workspace of
// many small folders from paying a fold's queries per folder.
const settleEvery = 1024

// Read runs fn on one snapshot of the index (a read transaction): the
// view packages' queries read through it (views.Index).
func (p *Projector) Read(ctx context.Context, fn func(r views.Reader) error) error {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // it only read
	entries := p.ws.EntryReader()
	defer entries.Close()
	return fn(snapshotReader{p: p, q: tx, entries: entries})
}

// snapshotReader is a views.Reader on a read transaction.
type snapshotReader struct {
	p       *Projector
	q       querier
	entries *tapelog.EntryReader
}

func (r snapshotReader) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return r.q.QueryContext(ctx, query, args...)
}

func (r snapshotReader) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return r.q.QueryRowContext(ctx, query, args...)
}

func (r snapshotReader) Entry(ctx context.Context, rowid int64) (tapelog.Entry, error) {
	return r.p.entryAt(ctx, r.q, r.entries, rowid)
}

func (r snapshotReader) ReadEntry(want tapelog.Entry) (tapelog.Entry, error) {
	return r.entries.ReadEntry(want)
}
