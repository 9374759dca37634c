package fts5

import (
	"context"
	"database/sql"

	"github.com/tape-dev/tape/internal/sqlitefile"
)

// Schema creates the search index, entries_fts, in index.db (package
// projector's schema includes it) and in every scratch database a build
// fills: the two must be the same for the copy from one to the other to
// be the same index, so it is defined here, once.
const Schema = `
CREATE VIRTUAL TABLE entries_fts USING fts5 (
	text,
	parts, -- the parts of the text's camelCase words (IdentifierParts)
	content = '',
	contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2'
);
`

// Tx is what CopyInto needs of the transaction it copies into: a
// *sql.Tx, on the connection the build is attached to (Build.Attach).
type Tx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// openDB opens the database of dsn on one connection: the builders and
// the check each write theirs from one goroutine. None of them is in WAL
// mode, so none needs the PERSIST_WAL that index.db's connections set.
func openDB(dsn string) *sql.DB {
	db := sql.OpenDB(sqlitefile.NewConnector(dsn))
	db.SetMaxOpenConns(1)
	return db
}
