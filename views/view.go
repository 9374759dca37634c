package views

import (
	"cmp"
	"context"
	"database/sql"
	"math"

	tapelog "github.com/tape-dev/tape/log"
)

// The contract between the projector and a view it keeps in the index.
//
// A view that has tables is one package under views/ (views/calls,
// views/usage, views/sessions): its fold, its tables, how a pass keeps
// them and how they are queried. It implements Table, and the projector
// lists it once (projector/views.go). The projector owns the entries and
// the pass; it tells each view's Pass what the pass did to the entries, in
// order, and the view keeps its rows in the pass's transaction, so that
// the index commits entries, view rows and checkpoints together.

// Table is a view the projector keeps in the index.
type Table interface {
	// Name names the view in errors.
	Name() string
	// Schema is the statements that create its tables and indexes; they
	// run after the projector's, so they may index the entries table.
	Schema() string
	// Tables lists the tables Schema creates: a rebuild empties them, and
	// an index of another version drops them.
	Tables() []string
	// Begin starts keeping the view through one pass, in tx.
	Begin(tx Tx) Pass
}

// Pass keeps a view's rows through one pass of the projector. Its methods
// run in the goroutine that owns the transaction, in the order the pass
// changes the entries.
type Pass interface {
	// Added is told of each entry the pass indexed.
	Added(ctx context.Context, e Added) error
	// Removing is told that the entries that where (a condition on the
	// entries table, with args) selects are about to be removed.
	Removing(ctx context.Context, where string, args ...any) error
	// Changed is told that the tape's entries from place from on were
	// removed or may change (a file read again, a folder gone).
	Changed(tape string, from Place)
	// DropTape is told that the tape is gone: its entries were removed.
	DropTape(ctx context.Context, tape string) error
	// Backlog is how much work Settle would do now: a pass that builds its
	// search index beside settles mid-way once it is large.
	Backlog() int
	// Settle brings the view's rows up to the entries applied so far, as
	// if the pass ended here. The pass calls it at its end.
	Settle(ctx context.Context) error
}

// Added is an entry a pass indexed.
type Added struct {
	Rowid  int64 // entries.rowid
	Tape   string
	ID     string
	Kind   string
	Place  Place
	TimeNS *int64 // the time --since compares, nil for none
	Facts  Facts
}

// Tx is what a view needs of the pass's transaction.
type Tx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// Reader is what a view's queries need of the index: one snapshot of it,
// and the entries it points at, read from their files.
type Reader interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	// Entry reads the entry with the rowid; on an error it returns what
	// the index knows of it, without its payload.
	Entry(ctx context.Context, rowid int64) (tapelog.Entry, error)
	// ReadEntry reads the entry at want.Pos (its tape, anchor, folder,
	// file, line, offset and length) if it still is want, its id and
	// kind, as tapelog.EntryReader.ReadEntry does: a query that selected
	// where an entry is with its own rows reads it without another query,
	// and so while its rows are still open.
	ReadEntry(want tapelog.Entry) (tapelog.Entry, error)
}

// Index is what opens a Reader: the projector (Projector.Read).
type Index interface {
	Read(ctx context.Context, fn func(r Reader) error) error
}

// Place is an entry's place in tape order within its tape: the columns of
// the entries_order index after tape.
type Place struct {
	Seq    int64 // anchor_seq
	Folder string
	Eff    int64 // eff_time
	File   string
	Line   int
}

// Compare orders places as tape order does.
func (k Place) Compare(o Place) int {
	return cmp.Or(cmp.Compare(k.Seq, o.Seq), cmp.Compare(k.Folder, o.Folder), cmp.Compare(k.Eff, o.Eff),
		cmp.Compare(k.File, o.File), cmp.Compare(k.Line, o.Line))
}

// Args are the place's columns, for (anchor_seq, folder, eff_time, file,
// line) in a query.
func (k Place) Args() []any { return []any{k.Seq, k.Folder, k.Eff, k.File, k.Line} }

// TapeStart is before every entry of a tape.
var TapeStart = Place{Seq: math.MinInt64, Eff: math.MinInt64}

// FolderStart is before every entry of an anchor folder.
func FolderStart(seq int64, folder string) Place {
	return Place{Seq: seq, Folder: folder, Eff: math.MinInt64}
}

// Page is a slice of a list: Limit 0 means no limit.
type Page struct{ Limit, Offset int }

// PageOf is the page of a list held in memory (a list of few groups, or
// one filtered after its query).
func PageOf[T any](list []T, pg Page) []T {
	from, to := min(pg.Offset, len(list)), len(list)
	if pg.Limit > 0 {
		to = min(from+pg.Limit, len(list))
	}
	return list[from:to]
}

// SQL is the LIMIT and OFFSET of the page, and their arguments.
func (pg Page) SQL() (string, []any) {
	if pg.Limit <= 0 {
		return ` LIMIT -1 OFFSET ?`, []any{pg.Offset}
	}
	return ` LIMIT ? OFFSET ?`, []any{pg.Limit, pg.Offset}
}
