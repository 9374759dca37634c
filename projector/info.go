package projector

import (
	"context"
	"fmt"
	"os"

	tapelog "github.com/tape-dev/tape/log"
)

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

// TapeBytes is the size of a tape's files, or a workspace's, and how
// much of it the index has not read yet.
type TapeBytes struct {
	Files    int   // the *.jsonl files of its anchor folders
	Bytes    int64 // those files and the anchor.json files
	LagBytes int64 // the bytes of *.jsonl files past the index's checkpoints
}

// Lag measures a tape's files against the index's checkpoints, as the
// index stands: call it before catching up, or the lag is always 0. A file
// without a checkpoint, or one shorter than its checkpoint (rewritten; it
// will be read again), counts whole.
func (p *Projector) Lag(ctx context.Context, t *tapelog.Tape) (TapeBytes, error) {
	offsets, err := p.offsets(ctx, t.Name())
	if err != nil {
		return TapeBytes{}, err
	}
	var tb TapeBytes
	if err := measure(t, offsets, &tb); err != nil {
		return TapeBytes{}, fmt.Errorf("measure tape %s: %w", t.Name(), err)
	}
	return tb, nil
}

// WorkspaceLag is Lag summed over every tape of the workspace. A tape or
// folder that cannot be listed is left out: tape doctor names it, and
// tape info on the rest still answers.
func (p *Projector) WorkspaceLag(ctx context.Context) (TapeBytes, error) {
	offsets, err := p.offsets(ctx, "")
	if err != nil {
		return TapeBytes{}, err
	}
	names, err := p.ws.Tapes()
	if err != nil {
		return TapeBytes{}, err
	}
	var tb TapeBytes
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return TapeBytes{}, err
		}
		t, err := p.ws.Tape(name)
		if err != nil {
			continue // a folder whose name is no tape's: not a tape
		}
		measure(t, offsets, &tb) //nolint:errcheck // see above
		t.Close()
	}
	return tb, nil
}

// measure adds the sizes of t's files, and their bytes past offsets, to tb.
func measure(t *tapelog.Tape, offsets map[tapelog.FileKey]int64, tb *TapeBytes) error {
	folders, err := t.Folders()
	if err != nil {
		return err
	}
	for _, f := range folders {
		anchor, files, _, err := t.FolderFiles(f.Name)
		if err != nil {
			return err
		}
		if anchor != nil {
			tb.Bytes += anchor.Size
		}
		for _, fi := range files {
			tb.Files++
			tb.Bytes += fi.Size
			off, ok := offsets[tapelog.FileKey{Tape: t.Name(), Folder: f.Name, Name: fi.Name}]
			if !ok || off > fi.Size {
				off = 0
			}
			tb.LagBytes += fi.Size - off
		}
	}
	return nil
}

// offsets are the index's checkpoints, by file, of one tape or, with tape
// "", of all: how far it has read each.
func (p *Projector) offsets(ctx context.Context, tape string) (map[tapelog.FileKey]int64, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT tape, folder, name, offset FROM files WHERE ? = '' OR tape = ?`, tape, tape)
	if err != nil {
		return nil, fmt.Errorf("query checkpoints: %w", err)
	}
	defer rows.Close()
	offsets := map[tapelog.FileKey]int64{}
	for rows.Next() {
		var k tapelog.FileKey
		var off int64
		if err := rows.Scan(&k.Tape, &k.Folder, &k.Name, &off); err != nil {
			return nil, fmt.Errorf("query checkpoints: %w", err)
		}
		offsets[k] = off
	}
	return offsets, rows.Err()
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
