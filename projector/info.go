package projector

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	tapelog "github.com/tape-dev/tape/log"
)

// Watching reports whether a `tape watch` runs on the workspace, and its
// pid when the lock file names it (0 otherwise).
func (p *Projector) Watching() (running bool, pid int) {
	if !p.watcherRunning() {
		return false, 0
	}
	data, err := p.ws.ReadPrivate(watchLockFile, 128)
	if err != nil {
		return true, 0
	}
	return true, lockPID(data)
}

// lockPID reads the pid a watcher writes into watch.lock, "pid <n>: tape
// watch"; 0 if there is none.
func lockPID(data []byte) int {
	rest, ok := strings.CutPrefix(string(data), "pid ")
	if !ok {
		return 0
	}
	field, _, _ := strings.Cut(rest, ":")
	pid, err := strconv.Atoi(field)
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

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

// TapeBytes is the size of a tape's files and how much of it the index
// has not read yet.
type TapeBytes struct {
	Bytes    int64 // the *.jsonl and anchor.json files of its anchor folders
	LagBytes int64 // the bytes of *.jsonl files past the index's checkpoints
}

// Lag measures a tape's files against the index's checkpoints, as the
// index stands: call it before catching up, or the lag is always 0. A file
// without a checkpoint, or one shorter than its checkpoint (rewritten; it
// will be read again), counts whole.
func (p *Projector) Lag(ctx context.Context, t *tapelog.Tape) (TapeBytes, error) {
	cps, err := p.Checkpoints(ctx, t.Name())
	if err != nil {
		return TapeBytes{}, err
	}
	folders, err := t.Folders()
	if err != nil {
		return TapeBytes{}, err
	}
	var tb TapeBytes
	for _, f := range folders {
		anchor, files, _, err := t.FolderFiles(f.Name)
		if err != nil {
			return TapeBytes{}, fmt.Errorf("measure tape %s: %w", t.Name(), err)
		}
		if anchor != nil {
			tb.Bytes += anchor.Size
		}
		for _, fi := range files {
			tb.Bytes += fi.Size
			cp, ok := cps[tapelog.FileKey{Tape: t.Name(), Folder: f.Name, Name: fi.Name}]
			if !ok || cp.Offset > fi.Size {
				cp.Offset = 0
			}
			tb.LagBytes += fi.Size - cp.Offset
		}
	}
	return tb, nil
}
