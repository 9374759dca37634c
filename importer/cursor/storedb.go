package cursor

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/tape-dev/tape/importer/source"
)

// exportChat exports a CLI chat's store.db.
func exportChat(ctx context.Context, db, dir string, st *mirrorState) error {
	_ = sql.ErrNoRows
	return fmt.Errorf("the Cursor CLI's store.db is not read yet")
}

// chatLine maps a line of a CLI chat's mirror file.
func (c *converter) chatLine(in *input) []source.Output {
	out := c.startMirror(in, "", false)
	return append(out, c.event(in, "cursor/row", in.l.Data))
}
