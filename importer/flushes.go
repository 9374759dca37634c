package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// The flush journal: where imports flushed held lines.
//
// A converter holds the lines of a record that may go on (a Claude Code
// turn); once the file has been quiet for the settle time, the import
// writes what it holds as it stands (Flush), and the checkpoint it saves
// after says so by its state. An import killed between those writes and
// its checkpoint leaves tapes holding part of a record and no word of
// where it was cut. The next import reads the file from its start (or
// from an older checkpoint before the record) and makes the record whole
// under the same ids: its first part is skipped as on the tape, and what
// the agent wrote since is lost with it, or, where a checkpoint stops
// before the record again, written a second time by the import after.
//
// So each flush is written down before its entries: the transcript, its
// inode and the line after which the converter flushed, one line each in
// .tape/import/<source>.flushes. An import that reads a transcript from
// before such a line flushes there too, and its converter goes on as the
// killed import's did.
//
// A save of the checkpoints keeps, per transcript, the flushes after its
// checkpoint (an import killed since) and the last one before it: a
// checkpoint after a flush means the import that made it read on and
// wrote the record's later lines as entries of their own, and only the
// last such import can have been cut short in its writes. The journal
// is read only by an import that reads a transcript, so that an import
// with nothing new pays nothing for it. Lost, it costs what it cost before
// it existed, in a kill at that moment alone.

// flushesPath is the journal's file in the workspace.
func flushesPath(src source.Source) string { return "import/" + src.Name() + ".flushes" }

// maxFlushesBytes bounds the journal read: a line per flush, of a path
// and two numbers.
const maxFlushesBytes = 64 << 20

// flushPoint is one flush: the transcript's inode, and the line after
// which its converter flushed.
type flushPoint struct {
	ino  uint64
	line int
}

// flushJournal is a source's flush journal, as read when the import began
// and appended to since.
type flushJournal struct {
	ws     *tapelog.Workspace
	rel    string
	sync   bool                    // fsync each line: the tapes are synced as they are written
	points map[string][]flushPoint // nil until loaded
	f      *os.File                // opened at the first flush
	stale  bool                    // holds lines a save drops
}

func newFlushJournal(ws *tapelog.Workspace, src source.Source, sync bool) *flushJournal {
	return &flushJournal{ws: ws, rel: flushesPath(src), sync: sync}
}

// load reads the journal once; a line it cannot read is skipped, as a
// journal lost costs nothing but this protection.
func (j *flushJournal) load() error {
	if j.points != nil {
		return nil
	}
	j.points = map[string][]flushPoint{}
	data, err := j.ws.ReadPrivate(j.rel, maxFlushesBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the import's flush journal: %w", err)
	}
	for line := range bytes.Lines(data) {
		path, p, ok := parseFlushLine(line)
		if !ok || slices.Contains(j.points[path], p) {
			j.stale = true
			continue
		}
		j.points[path] = append(j.points[path], p)
	}
	return nil
}

// formatFlushLine is a journal line: "<inode> <line> <path, quoted>\n".
func formatFlushLine(path string, p flushPoint) string {
	return strconv.FormatUint(p.ino, 10) + " " + strconv.Itoa(p.line) + " " + strconv.Quote(path) + "\n"
}

func parseFlushLine(line []byte) (string, flushPoint, bool) {
	fields := strings.SplitN(strings.TrimSuffix(string(line), "\n"), " ", 3)
	if len(fields) != 3 {
		return "", flushPoint{}, false
	}
	ino, err1 := strconv.ParseUint(fields[0], 10, 64)
	n, err2 := strconv.Atoi(fields[1])
	path, err3 := strconv.Unquote(fields[2])
	if err1 != nil || err2 != nil || err3 != nil || n <= 0 {
		return "", flushPoint{}, false
	}
	return path, flushPoint{ino: ino, line: n}, true
}

// after is the lines after which the transcript's converter flushed,
// later than line, in order.
func (j *flushJournal) after(path string, ino uint64, line int) ([]int, error) {
	if err := j.load(); err != nil {
		return nil, err
	}
	var lines []int
	for _, p := range j.points[path] {
		if p.ino == ino && p.line > line {
			lines = append(lines, p.line)
		}
	}
	slices.Sort(lines)
	return lines, nil
}

// record writes a flush down, before the entries it made are written.
func (j *flushJournal) record(path string, ino uint64, line int) error {
	if err := j.load(); err != nil {
		return err
	}
	p := flushPoint{ino: ino, line: line}
	if slices.Contains(j.points[path], p) {
		return nil // an import read again from before it flushed there too
	}
	if j.f == nil {
		f, err := j.ws.AppendPrivate(j.rel)
		if err != nil {
			return fmt.Errorf("write the import's flush journal: %w", err)
		}
		j.f = f
	}
	if _, err := j.f.WriteString(formatFlushLine(path, p)); err != nil {
		return fmt.Errorf("write the import's flush journal: %w", err)
	}
	if j.sync {
		if err := j.f.Sync(); err != nil {
			return fmt.Errorf("write the import's flush journal: %w", err)
		}
	}
	j.points[path] = append(j.points[path], p)
	return nil
}

// forget drops a transcript's lines: it was written over, or replaced.
// The journal is read first, as the lines it would forget are there.
func (j *flushJournal) forget(path string) error {
	if err := j.load(); err != nil {
		return err
	}
	if _, ok := j.points[path]; ok {
		delete(j.points, path)
		j.stale = true
	}
	return nil
}

// prune drops the lines of transcripts whose checkpoint names another
// inode, or that are gone, and of each transcript's flushes before its
// checkpoint all but the last; it writes the journal again if it dropped
// any. It runs when the checkpoints are saved, after they are.
func (j *flushJournal) prune(cp *checkpoints) error {
	if j.points == nil {
		return nil // not read: nothing was flushed, and nothing is known
	}
	for path, points := range j.points {
		kept := keptFlushes(path, points, cp.Files[path])
		if len(kept) == len(points) {
			continue
		}
		j.stale = true
		if len(kept) == 0 {
			delete(j.points, path)
		} else {
			j.points[path] = kept
		}
	}
	if !j.stale {
		return nil
	}
	j.close()
	var b strings.Builder
	for _, path := range slices.Sorted(maps.Keys(j.points)) {
		for _, p := range j.points[path] {
			b.WriteString(formatFlushLine(path, p))
		}
	}
	if b.Len() == 0 {
		if err := j.ws.Remove(j.rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the import's flush journal: %w", err)
		}
	} else if err := j.ws.WritePrivate(j.rel, []byte(b.String())); err != nil {
		return fmt.Errorf("write the import's flush journal: %w", err)
	}
	j.stale = false
	return nil
}

// keptFlushes is what a save keeps of a transcript's flushes: with no
// checkpoint, all while the file is there; with one, those of its inode
// after it and the last before it.
func keptFlushes(path string, points []flushPoint, c *checkpoint) []flushPoint {
	if c == nil {
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return points
	}
	last := -1 // the last flush the checkpoint is past
	for i, p := range points {
		if p.ino == c.Ino && p.line <= c.Line && (last < 0 || p.line > points[last].line) {
			last = i
		}
	}
	var kept []flushPoint
	for i, p := range points {
		if p.ino == c.Ino && (p.line > c.Line || i == last) {
			kept = append(kept, p)
		}
	}
	return kept
}

func (j *flushJournal) close() {
	if j.f != nil {
		j.f.Close()
		j.f = nil
	}
}
