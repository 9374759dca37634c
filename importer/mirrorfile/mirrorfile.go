// Package mirrorfile owns what the database sources (importer/opencode,
// importer/goose, importer/crush, importer/cursor) share of their mirrors
// (decision 0097): the read-only URI a database is opened with, the stamp of a database and its WAL
// that says whether anything was written since the last export, the
// state.json kept beside the mirror files, the appending of lines to a
// mirror file, a column's value as a mirror line holds it, and the
// tables and columns a database has, for the check of its layout, and
// the name of a session's mirror file.
//
// It knows no agent: each source's package decides which rows are
// settled, in what order they are exported, and what its cursor is.
package mirrorfile

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/tape-dev/tape/internal/rawjson"
	"github.com/tape-dev/tape/internal/sqlitefile"
)

// ReadOnly is the URI that opens the database at db for reading only,
// waiting up to 5 s for its agent's writes: it never writes, nor
// checkpoints the WAL, nor holds a lock that blocks the agent. Not
// immutable, which would miss what the WAL holds.
func ReadOnly(db string) string {
	return sqlitefile.URI(db) + "?mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)"
}

// Stamp is the size and modification time of a database and of its
// write-ahead log: while both are as they were, nothing was written.
type Stamp struct {
	DBSize, DBMtime, WALSize, WALMtime int64
}

// StampOf stamps the database at db and its -wal file (zero for a file
// that is not there).
func StampOf(db string) Stamp {
	var s Stamp
	if fi, err := os.Stat(db); err == nil {
		s.DBSize, s.DBMtime = fi.Size(), fi.ModTime().UnixNano()
	}
	if fi, err := os.Stat(db + "-wal"); err == nil {
		s.WALSize, s.WALMtime = fi.Size(), fi.ModTime().UnixNano()
	}
	return s
}

// StateFile is the name of the state kept beside a mirror's files.
const StateFile = "state.json"

// LoadState reads the state.json in dir. A mirror without one (its first
// export), or with one that is not JSON of T, gets T's zero value: its
// database is then exported again, and the tapes skip what they hold.
func LoadState[T any](dir string) (T, error) {
	var st T
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("mirror state: %w", err)
	}
	if json.Unmarshal(data, &st) != nil {
		var zero T
		return zero, nil
	}
	return st, nil
}

// SaveState writes st as the state.json in dir, whole, through a
// temporary file renamed over it, so that a killed export leaves the old
// state or the new.
func SaveState(dir string, st any) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, StateFile+".tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("mirror state: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, StateFile)); err != nil {
		return fmt.Errorf("mirror state: %w", err)
	}
	return nil
}

// StampFile holds the stamp a mirror's last export saved with its state,
// apart: an export of a database nothing was written to since reads it
// alone, where the state (a cursor a session) was 1 MB at 10,000
// sessions, a fifth of a no-change import.
const StampFile = "stamp.json"

type savedStamp struct {
	DB      string `json:"db"`
	Files   Stamp  `json:"files"`
	Pending bool   `json:"pending,omitempty"`
}

// Unchanged reports whether the database db is as the last export of the
// mirror in dir found it, with nothing left waiting to settle: the
// export then has nothing to do. Without a stamp file (an older mirror,
// a first export), or with a zero stamp (a tree of files, listed each
// time), it is false.
func Unchanged(dir, db string) bool {
	data, err := os.ReadFile(filepath.Join(dir, StampFile))
	if err != nil {
		return false
	}
	var s savedStamp
	if json.Unmarshal(data, &s) != nil {
		return false
	}
	return s.DB == db && s.Files != (Stamp{}) && !s.Pending && s.Files == StampOf(db)
}

// SaveStamp writes the stamp file of the mirror in dir, after its state
// (SaveState): a stamp file is never newer than the state it stands for,
// so an export killed between the two finds the old stamp, which the
// database no longer matches, and reads the state.
func SaveStamp(dir, db string, files Stamp, pending bool) error {
	data, err := json.Marshal(savedStamp{DB: db, Files: files, Pending: pending})
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, StampFile+".tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("mirror stamp: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, StampFile)); err != nil {
		return fmt.Errorf("mirror stamp: %w", err)
	}
	return nil
}

// Append appends lines to a mirror file, 0600, after a newline if an
// export killed while it wrote left the file's last line torn (that line
// is then a bad line of the import, and its rows are exported again,
// since the state was not saved).
func Append(path string, lines []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			lines = append([]byte{'\n'}, lines...)
		}
	}
	if _, err := f.Write(lines); err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	return f.Close()
}

// FileName is the mirror file of a session: its id and ".jsonl", with a
// character a file name cannot hold ('/', '\\', NUL) replaced by '_', and
// an id that names no file ("", ".", "..") after a '_'.
func FileName(id string) string {
	b := []byte(id)
	for i, c := range b {
		if c == '/' || c == 0 || c == '\\' {
			b[i] = '_'
		}
	}
	if len(b) == 0 || string(b) == "." || string(b) == ".." {
		return "_" + string(b) + ".jsonl"
	}
	return string(b) + ".jsonl"
}

// JSONOrString adds a column that holds JSON text to o as the JSON it
// is, and one that does not as a string, so that nothing of it is lost.
func JSONOrString(o *rawjson.Object, key string, data []byte) *rawjson.Object {
	switch {
	case utf8.Valid(data) && rawjson.IsCompactObject(data): // as agents write it: one pass, no copy
		return o.Raw(key, data)
	case json.Valid(data):
		return o.Raw(key, rawjson.AppendCompact(nil, data))
	}
	return o.Str(key, string(data))
}

// Querier is what reads a database's layout: a *sql.Tx, a *sql.DB.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Tables are the names of the database's tables, sorted.
func Tables(ctx context.Context, q Querier) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("read the tables: %w", err)
	}
	return scanStrings(rows)
}

// Columns are the names of a table's columns, in their order.
func Columns(ctx context.Context, q Querier, table string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s: %w", table, err)
	}
	return scanStrings(rows)
}

func scanStrings(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
