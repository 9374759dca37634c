package fresh

import (
	"context"
	"fmt"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// The lag: what the index has not read yet of the files, measured
// against its checkpoints (projector.EachFileRead). tape info shows it;
// tape doctor counts it, and calls it a problem only when a watcher
// answered that it had caught up (doctor.go).

// TapeBytes is the size of a tape's files, or a workspace's, and how
// much of it the index has not read yet.
type TapeBytes struct {
	Files    int   // the *.jsonl files of its anchor folders
	Bytes    int64 // those files and the anchor.json files
	LagBytes int64 // the bytes of *.jsonl files past the index's checkpoints
}

// Lag measures a tape's files against p's checkpoints, as the index
// stands: call it before catching up, or the lag is always 0. A file
// without a checkpoint, or one shorter than its checkpoint (rewritten; it
// will be read again), counts whole.
func Lag(ctx context.Context, p *projector.Projector, t *tapelog.Tape) (TapeBytes, error) {
	offsets, err := offsetsOf(ctx, p, t.Name())
	if err != nil {
		return TapeBytes{}, err
	}
	var tb TapeBytes
	if err := measure(t, offsets, &tb); err != nil {
		return TapeBytes{}, fmt.Errorf("measure tape %s: %w", t.Name(), err)
	}
	return tb, nil
}

// WorkspaceLag is Lag summed over every tape of p's workspace. A tape or
// folder that cannot be listed is left out: tape doctor names it, and
// tape info on the rest still answers.
func WorkspaceLag(ctx context.Context, p *projector.Projector) (TapeBytes, error) {
	offsets, err := offsetsOf(ctx, p, "")
	if err != nil {
		return TapeBytes{}, err
	}
	ws := p.Workspace()
	names, err := ws.Tapes()
	if err != nil {
		return TapeBytes{}, err
	}
	var tb TapeBytes
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return TapeBytes{}, err
		}
		t, err := ws.Tape(name)
		if err != nil {
			continue // a folder whose name is no tape's: not a tape
		}
		measure(t, offsets, &tb) //nolint:errcheck // see above
		t.Close()
	}
	return tb, nil
}

// offsetsOf is how far the index has read each file of a tape or, with
// tape "", of all: the offsets of its checkpoints.
func offsetsOf(ctx context.Context, p *projector.Projector, tape string) (map[tapelog.FileKey]int64, error) {
	offsets := map[tapelog.FileKey]int64{}
	err := p.EachFileRead(ctx, func(k tapelog.FileKey, f projector.FileRead) error {
		if tape == "" || k.Tape == tape {
			offsets[k] = f.Offset
		}
		return nil
	})
	return offsets, err
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

// add counts n bytes of one file not yet indexed.
func (tb *TapeBytes) add(n int64) {
	if n > 0 {
		tb.Files++
		tb.LagBytes += n
	}
}
