// Package mirrorfile holds what the database sources share of their
// mirrors (decision 0097): the URI that opens an agent's database for
// reading only, the stamp of a database and its write-ahead log that
// says nothing was written since, the mirror's state.json, the append of
// lines to a mirror file, a column's value as a mirror line holds it,
// and the names of a database's tables and columns, which a source
// checks against the layout it knows before it reads a row.
//
// Each source (importer/opencode, importer/crush) keeps its own rows,
// cursors and settle rule; what is here knows no agent.
package mirrorfile

import (
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
// waiting up to 5 s for the agent's writes: it never writes, nor
// checkpoints the WAL, nor holds a lock that blocks the agent. It is
// not immutable, which would miss what the WAL holds.
func ReadOnly(db string) string {
	return sqlitefile.URI(db) + "?mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)"
}

// Stamp is the size and modification time of a database and its
// write-ahead log: while both are as they were, nothing was written, and
// the database is not opened.
type Stamp struct {
	DBSize, DBMtime, WALSize, WALMtime int64
}

// StampOf is the stamp of the database at db now; a file missing is
// zeros.
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

// StateFile is the name of a mirror's state, in its folder.
const StateFile = "state.json"

// LoadState reads the state.json in dir. A mirror without one, or with
// one that cannot be read as a T, has the zero T: it is exported again,
// and the tapes skip what they hold.
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

// SaveState writes state.json whole, through a temporary file renamed
// over it, so that a killed export leaves the old state or the new.
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

// JSON adds to o, as key, a column that holds JSON (a row's data, a
// message's parts): as the JSON it is, compacted, or, when it is not
// JSON, as a string, so that nothing of it is lost. A compact object,
// as agents write them, is copied in one pass.
func JSON(o *rawjson.Object, key string, data []byte) *rawjson.Object {
	switch {
	case utf8.Valid(data) && rawjson.IsCompactObject(data):
		return o.Raw(key, data)
	case json.Valid(data):
		return o.Raw(key, rawjson.AppendCompact(nil, data))
	}
	return o.Str(key, string(data))
}
