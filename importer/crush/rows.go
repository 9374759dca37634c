package crush

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/tape-dev/tape/importer/mirrorfile"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// row is a row as the export reads it: every column of its table, by
// name, and its rowid, which orders the rows of one second.
type row struct {
	rowid int64
	cols  []string
	vals  []any
}

// value is the column's value; nil for NULL or a column the row has not.
func (r row) value(col string) any {
	for i, c := range r.cols {
		if c == col {
			return r.vals[i]
		}
	}
	return nil
}

// int is an integer column's value; 0 for anything else.
func (r row) int(col string) int64 {
	switch v := r.value(col).(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

// str is a text column's value; "" for anything else.
func (r row) str(col string) string {
	switch v := r.value(col).(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

// readRows reads the rows of a query whose first column is the rowid and
// the others a table's columns.
func readRows(ctx context.Context, stmt *sql.Stmt, args ...any) ([]row, error) {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []row
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		id, _ := vals[0].(int64)
		out = append(out, row{rowid: id, cols: cols[1:], vals: vals[1:]})
	}
	return out, rows.Err()
}

// jsonColumns are the columns in which Crush keeps JSON text: a message's
// parts, a session's todos. The mirror holds them as the JSON they are.
var jsonColumns = map[string]bool{"parts": true, "todos": true}

// writeRow writes r's mirror line: {"table": table, then each column that
// is not NULL, in the table's order}, then the members more adds. A JSON
// column is its JSON, or a string when it is not JSON; a blob that is
// not text is base64, as encoding/json writes bytes.
func writeRow(buf *bytes.Buffer, table string, r row, more func(o *rawjson.Object)) {
	o := rawjson.NewObject().Str("table", table)
	for i, c := range r.cols {
		switch v := r.vals[i].(type) {
		case nil:
		case int64:
			o.Int(c, v)
		case float64:
			o.Raw(c, rawjson.AppendFloat(nil, v))
		case bool:
			if v {
				o.Raw(c, []byte("true"))
			} else {
				o.Raw(c, []byte("false"))
			}
		case string:
			column(o, c, []byte(v))
		case []byte:
			if utf8.Valid(v) {
				column(o, c, v)
			} else {
				o.Raw(c, source.MustJSON(v))
			}
		case time.Time:
			o.Str(c, v.UTC().Format(time.RFC3339Nano))
		default:
			o.Str(c, fmt.Sprint(v))
		}
	}
	if more != nil {
		more(o)
	}
	buf.Write(o.Done())
	buf.WriteByte('\n')
}

func column(o *rawjson.Object, c string, v []byte) {
	if jsonColumns[c] {
		mirrorfile.JSONOrString(o, c, v)
		return
	}
	o.Str(c, string(v))
}
