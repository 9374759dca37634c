package log

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tape-dev/tape/internal/fileutil"
	"github.com/tape-dev/tape/internal/rawjson"
)

// lineFields is an entry as tape writes it: the envelope, in this key order.
type lineFields struct {
	ID      string          `json:"id"`
	Kind    string          `json:"kind"`
	Payload json.RawMessage `json:"payload"`
	Meta    json.RawMessage `json:"meta"`
	Date    string          `json:"date,omitempty"` // empty only for a recorded entry that had none
}

// encodeLine encodes an entry as one JSON line ending in '\n'. Payload and
// Meta must already be compact JSON objects (normalizeObject), so they are
// copied as they are, not re-encoded. The strings are written by
// rawjson.AppendString, which escapes no HTML characters, so the line
// reads as it was given.
func encodeLine(f lineFields) ([]byte, error) {
	b := make([]byte, 0, len(f.Payload)+len(f.Meta)+len(f.ID)+len(f.Kind)+len(f.Date)+64)
	b = append(b, `{"id":`...)
	b = rawjson.AppendString(b, f.ID)
	b = append(b, `,"kind":`...)
	b = rawjson.AppendString(b, f.Kind)
	b = append(b, `,"payload":`...)
	b = append(b, f.Payload...)
	b = append(b, `,"meta":`...)
	b = append(b, f.Meta...)
	if f.Date != "" {
		b = append(b, `,"date":`...)
		b = rawjson.AppendString(b, f.Date)
	}
	return append(b, "}\n"...), nil
}

// Append writes entries at the end of the tape's current anchor, each as one
// line of the file its kind goes to (FileForKind), and returns them with
// their ids, dates and positions filled in. Kind and Payload are required;
// ID and Date are assigned when empty (a ULID and the current time); Meta
// defaults to {}. A tape that does not exist yet is created first.
//
// Every entry is checked before anything is written: if one is refused (not
// a JSON object, invalid UTF-8, a line over the workspace's max_entry_bytes,
// or kind "anchor", which is Handoff's), Append writes nothing.
//
// Each line is written with one write(2) on an O_APPEND descriptor while
// holding an flock of the file, so lines from any number of processes never
// interleave, whatever their size. A write that falls short (a full disk)
// is taken back before the lock is released. If the file ends in a torn
// line (a writer was killed mid-line: no write of many pages is atomic),
// TornMark and a newline are written first: readers skip the fragment
// without reporting it, and the new entry stays whole.
func (t *Tape) Append(ctx context.Context, entries ...Entry) ([]Entry, error) {
	return t.appendEntries(ctx, true, entries)
}

// AppendRecorded is Append for entries recorded elsewhere (an import, a
// merge), written as they are: an entry without a date is written without
// one, where Append would stamp it with the time of the write. In a folder
// such a line sorts where it was written (effective time, package doc),
// and the date it never had is not made up.
func (t *Tape) AppendRecorded(ctx context.Context, entries ...Entry) ([]Entry, error) {
	return t.appendEntries(ctx, false, entries)
}

func (t *Tape) appendEntries(ctx context.Context, stamp bool, entries []Entry) ([]Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, nil
	}
	lines := make([][]byte, len(entries))
	out := make([]Entry, len(entries))
	for i, e := range entries {
		var err error
		if out[i], lines[i], err = t.prepare(e, stamp); err != nil {
			return nil, &EntryError{Index: i, Err: err}
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	err := t.writeLocked(ctx, out, lines)
	if errors.Is(err, fs.ErrNotExist) {
		// The current folder went away between listing and opening
		// (a reset, or a folder removed by hand): list again, once.
		t.forgetLocked()
		err = t.writeLocked(ctx, out, lines)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EntryError is returned by Append when it refuses one of the entries it
// was given; nothing was written.
type EntryError struct {
	Index int // the refused entry's index in the arguments
	Err   error
}

func (e *EntryError) Error() string { return e.Err.Error() }
func (e *EntryError) Unwrap() error { return e.Err }

// prepare validates an entry and encodes its line.
func (t *Tape) prepare(e Entry, stamp bool) (Entry, []byte, error) {
	if err := validateKind(e.Kind); err != nil {
		return Entry{}, nil, err
	}
	if e.Payload == nil {
		return Entry{}, nil, fmt.Errorf("%w: payload is missing", ErrInvalid)
	}
	limit := t.ws.config.MaxEntryBytes
	payload, err := normalizeObject(e.Payload, "payload", limit)
	if err != nil {
		return Entry{}, nil, err
	}
	meta, err := normalizeObject(e.Meta, "meta", limit)
	if err != nil {
		return Entry{}, nil, err
	}
	// An import's entry brings its id and date: the clock and the id
	// source are asked only for what it lacks.
	var id string
	var now time.Time
	if e.ID == "" || e.Date == "" && stamp {
		id, now = t.ws.ids.next(time.Now())
	}
	if e.ID != "" {
		if !utf8.ValidString(e.ID) {
			return Entry{}, nil, fmt.Errorf("%w: id is not valid UTF-8", ErrInvalid)
		}
		id = e.ID
	}
	var date string
	var tm time.Time
	switch {
	case e.Date != "":
		var err error
		if tm, err = ParseTime(e.Date); err != nil {
			return Entry{}, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		date = e.Date
	case stamp:
		date = FormatTime(now)
		tm, _ = ParseTime(date) // the date as the line holds it
	}
	line, err := encodeLine(lineFields{ID: id, Kind: e.Kind, Payload: payload, Meta: meta, Date: date})
	if err != nil {
		return Entry{}, nil, err
	}
	if n := int64(len(line)) - 1; n > limit {
		return Entry{}, nil, fmt.Errorf("%w: the entry is %d bytes as a line, over the limit of %d (max_entry_bytes in config.json)", ErrTooLarge, n, limit)
	}
	return Entry{ID: id, Kind: e.Kind, Payload: payload, Meta: meta, Date: date,
		Pos: Position{Tape: t.name, File: FileForKind(e.Kind), Time: tm}}, line, nil
}

func validateKind(kind string) error {
	switch {
	case kind == "":
		return fmt.Errorf("%w: kind is missing", ErrInvalid)
	case kind == KindAnchor:
		return fmt.Errorf("%w: anchors are not appended; hand off to start a new anchor", ErrInvalid)
	case len(kind) > 128 || !utf8.ValidString(kind):
		return fmt.Errorf("%w: kind %q is not a short UTF-8 word", ErrInvalid, kind)
	}
	for _, r := range kind {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return fmt.Errorf("%w: kind %q contains a space or control character", ErrInvalid, kind)
		}
	}
	return nil
}

// writeLocked writes the prepared lines into the current anchor folder,
// grouped by file, in order within each file. The caller holds t.mu.
func (t *Tape) writeLocked(ctx context.Context, entries []Entry, lines [][]byte) error {
	cur, err := t.currentFolder()
	if err != nil {
		return err
	}
	if cur.folder == "" {
		if _, err := t.ensure(ctx); err != nil {
			return err
		}
		if cur, err = t.currentFolder(); err != nil {
			return err
		}
		if cur.folder == "" {
			return fmt.Errorf("tape %s has no anchor folder after creating one; is %s writable?", t.name, t.ws.Abs(t.anchorsPath()))
		}
	}
	folder := cur.folder
	done := make([]bool, len(entries))
	for i := range entries {
		if done[i] {
			continue
		}
		file := entries[i].Pos.File
		var batch []int
		for j := i; j < len(entries); j++ {
			if !done[j] && entries[j].Pos.File == file {
				batch = append(batch, j)
				done[j] = true
			}
		}
		if err := t.appendLines(ctx, cur, file, entries, lines, batch); err != nil {
			return err
		}
	}
	for i := range entries {
		entries[i].Pos.Folder, entries[i].Pos.AnchorSeq, entries[i].Pos.Anchor = folder, cur.seq, cur.anchor
	}
	return nil
}

// appendLines appends the lines of entries[batch] to one file under its
// flock, and records their offsets.
func (t *Tape) appendLines(ctx context.Context, cur folderCache, file string, entries []Entry, lines [][]byte, batch []int) error {
	rel := t.folderPath(cur.folder) + "/" + file
	f, created, err := openAppend(cur.dir, file, rel)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := fileutil.LockContext(ctx, f); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil { // given up while we waited: write nothing
		return err
	}
	size, err := endLine(f)
	if err != nil {
		return fmt.Errorf("append to %s: %w", rel, err)
	}
	// The lines go in writes of up to writeChunk bytes, not one each: a
	// first import wrote one syscall per entry.
	chunk, at := make([]byte, 0, min(writeChunk, batchBytes(lines, batch))), size
	for _, i := range batch {
		if len(chunk) > 0 && len(chunk)+len(lines[i]) > writeChunk {
			if err := writeOwn(f, at, chunk); err != nil {
				return fmt.Errorf("append to %s: %w", rel, err)
			}
			at, chunk = size, chunk[:0]
		}
		entries[i].Pos.Offset = size
		chunk = append(chunk, lines[i]...)
		size += int64(len(lines[i]))
	}
	if err := writeOwn(f, at, chunk); err != nil {
		return fmt.Errorf("append to %s: %w", rel, err)
	}
	if t.Sync == SyncAlways {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", rel, err)
		}
		t.ws.synced(rel)
		if created {
			if err := fileutil.SyncDir(cur.dir, "."); err != nil {
				return err
			}
			t.ws.synced(t.folderPath(cur.folder))
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", rel, err)
	}
	return nil
}

// openAppend opens the file name of the folder dir for appending, creating
// it 0600 if needed, and says whether it created it (a new file needs its
// folder fsynced to be durable). rel names it in errors.
func openAppend(dir *os.Root, name, rel string) (*os.File, bool, error) {
	f, err := dir.OpenFile(name, os.O_RDWR|os.O_APPEND|syscall.O_NONBLOCK, 0)
	if err == nil {
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			f.Close()
			return nil, false, fmt.Errorf("append to %s: %w; tape appends only to regular files", rel, ErrNotRegular)
		}
		return f, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("open %s: %w", rel, err)
	}
	f, err = dir.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, filePerm)
	if errors.Is(err, fs.ErrExist) { // another writer created it first
		f, err = dir.OpenFile(name, os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			return nil, false, fmt.Errorf("open %s: %w", rel, err)
		}
		return f, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("create %s: %w", rel, err)
	}
	return f, true, nil
}

// appendFile is the file an append writes to: an *os.File, or in a test
// one whose writes fall short, as on a full disk.
type appendFile interface {
	io.ReaderAt
	Write(p []byte) (int, error)
	Stat() (fs.FileInfo, error)
	Truncate(size int64) error
}

// endLine makes sure the locked file f ends at a line boundary and returns
// the offset the next line starts at. A last line without its newline was
// cut short by a writer that died mid-line (or one that left a whole line
// unended): endLine ends it with TornMark and a newline, so that readers
// skip it if it is a torn write and read it if it is an entry, and the line
// that follows stays whole. The fragment's bytes are kept: tape does not
// own them.
func endLine(f appendFile) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	if size == 0 {
		return 0, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return 0, err
	}
	if last[0] == '\n' {
		return size, nil
	}
	end := []byte(TornMark + "\n")
	if err := writeOwn(f, size, end); err != nil {
		return 0, err
	}
	return size + int64(len(end)), nil
}

// writeChunk is the most bytes of lines appendLines writes at once.
const writeChunk = 1 << 20

// batchBytes is the size of the lines of a batch.
func batchBytes(lines [][]byte, batch []int) int {
	n := 0
	for _, i := range batch {
		n += len(lines[i])
	}
	return n
}

// writeOwn writes data, whole lines or the end of a torn one, at the end
// of the locked file f, which is at bytes long. A write that falls short
// (a full disk, a file size limit) leaves the lines it wrote whole, and
// bytes of the next without their newline: those are this writer's own,
// so it takes them back, truncating the file after the last whole line
// while it still holds the lock, unless the file grew by more than it
// wrote (a writer that took no lock appended meanwhile: the next append
// ends the line instead). No reader has read them: readers stop at the
// last newline, and they hold none. The whole lines stay: a reader may
// have read them.
func writeOwn(f appendFile, at int64, data []byte) error {
	n, err := f.Write(data)
	if err == nil || n == 0 {
		return err
	}
	whole := int64(bytes.LastIndexByte(data[:n], '\n') + 1)
	fi, serr := f.Stat()
	if serr == nil && fi.Size() == at+int64(n) {
		if serr = f.Truncate(at + whole); serr == nil {
			return fmt.Errorf("%w (the %d bytes written of the line were taken back)", err, int64(n)-whole)
		}
	}
	if serr == nil {
		serr = errors.New("the file grew meanwhile")
	}
	return fmt.Errorf("%w; %d bytes of the line were written and not taken back (%v): the next append ends them with %s", err, int64(n)-whole, serr, TornMark)
}
