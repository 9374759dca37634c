package projector

import (
	"context"
	"fmt"
	"os"

	tapelog "github.com/tape-dev/tape/log"
)

// What the index says of itself, for tape info and tape doctor: its size,
// its bad lines, its checkpoints (and, in export.go, how far it has read
// each file and the anchor folders it holds). Measuring it against the
// files, the lag and the drift, is package fresh's, which asks these.

// IndexBytes is the size of the index on disk: index.db and its WAL.
func (p *Projector) IndexBytes() int64 {
	var n int64
	for _, name := range []string{IndexFile, IndexFile + "-wal"} {
		if fi, err := os.Stat(p.ws.Abs(name)); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// BadLineCount is how many lines, files and folders the index could not
// read, in every tape: what tape doctor lists.
func (p *Projector) BadLineCount(ctx context.Context) (int, error) {
	var n int
	if err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM bad_lines`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count bad lines: %w", err)
	}
	return n, nil
}

// Checkpoint is how far the index has read one tape file, and how many of
// its entries it holds.
type Checkpoint struct {
	Key     tapelog.FileKey
	Offset  int64 // the end of the last complete line read
	Entries int
}

// Checkpoints returns the index's checkpoints, by file, for one tape or,
// with tape "", for all. It only reads the index.
func (p *Projector) Checkpoints(ctx context.Context, tape string) (map[tapelog.FileKey]Checkpoint, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT f.tape, f.folder, f.name, f.offset,
		(SELECT count(*) FROM entries e WHERE e.file_id = f.id)
		FROM files f WHERE ? = '' OR f.tape = ?`, tape, tape)
	if err != nil {
		return nil, fmt.Errorf("query checkpoints: %w", err)
	}
	defer rows.Close()
	cps := map[tapelog.FileKey]Checkpoint{}
	for rows.Next() {
		var cp Checkpoint
		if err := rows.Scan(&cp.Key.Tape, &cp.Key.Folder, &cp.Key.Name, &cp.Offset, &cp.Entries); err != nil {
			return nil, fmt.Errorf("query checkpoints: %w", err)
		}
		cps[cp.Key] = cp
	}
	return cps, rows.Err()
}
