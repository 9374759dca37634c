package log

import (
	"io"
	"os"
)

// EntryReader reads entries back from where an index found them: a line
// of a known length at a known offset of a tape file. It keeps the files
// it read open, up to keptOpen of them: entries in tape order take turns
// between an anchor folder's few files (messages, tool calls, events),
// and opening one again for each entry, a path walked inside the
// workspace's root, was a seventh of reading a 10,000-entry tape. An
// EntryReader is not safe for use by several goroutines; Close it when
// done.
type EntryReader struct {
	ws    *Workspace
	files map[FileKey]*os.File
	order []FileKey // of files, the first opened first
	buf   []byte
}

// keptOpen is how many files an EntryReader keeps open: an anchor
// folder's few and the next folder's.
const keptOpen = 8

// EntryReader returns a reader of entries at known places in the
// workspace's tape files.
func (w *Workspace) EntryReader() *EntryReader {
	return &EntryReader{ws: w, files: map[FileKey]*os.File{}}
}

// Close closes the files the reader has open.
func (r *EntryReader) Close() error {
	var first error
	for _, key := range r.order {
		if err := r.files[key].Close(); err != nil && first == nil {
			first = err
		}
	}
	clear(r.files)
	r.order = r.order[:0]
	return first
}

// open opens the file of key in t and keeps it open, closing the one
// opened first of those it keeps when it keeps keptOpen.
func (r *EntryReader) open(t *Tape, key FileKey) (*os.File, error) {
	f, err := t.OpenFile(key.Folder, key.Name)
	if err != nil {
		return nil, err
	}
	if len(r.order) == keptOpen {
		r.files[r.order[0]].Close() //nolint:errcheck // read only
		delete(r.files, r.order[0])
		r.order = r.order[1:]
	}
	r.files[key] = f
	r.order = append(r.order, key)
	return f, nil
}

// ReadEntry reads the line want.Pos locates (Tape, AnchorSeq, Anchor,
// Folder, File, Line, Offset and Length, the line's bytes without its
// newline) and returns its entry, with want.Pos as its position, if it
// is still want: the same id and kind. A line that cannot be opened or
// read, or that no longer parses as that entry (a file rewritten by hand
// since it was indexed), is a *LineError that says so and what to do.
// The error of a tape name that is not valid is returned as it is.
func (r *EntryReader) ReadEntry(want Entry) (Entry, error) {
	pos := want.Pos
	key := FileKey{Tape: pos.Tape, Folder: pos.Folder, Name: pos.File}
	f, ok := r.files[key]
	if !ok {
		t, err := r.ws.Tape(key.Tape)
		if err != nil {
			return want, err
		}
		if f, err = r.open(t, key); err != nil {
			return want, staleLine(pos, "cannot open: "+IOReason(err))
		}
	}
	if cap(r.buf) < pos.Length {
		r.buf = make([]byte, pos.Length)
	}
	// Only the bytes read: a file cut since it was indexed reads short,
	// and the rest of the buffer holds an earlier line.
	n, err := f.ReadAt(r.buf[:pos.Length], pos.Offset)
	if err != nil && err != io.EOF {
		return want, staleLine(pos, "cannot read: "+err.Error())
	}
	buf := r.buf[:n]
	a := Anchor{Seq: pos.AnchorSeq, Folder: pos.Folder, Name: pos.Anchor}
	got, err := EntryAt(a, pos.File, pos.Line, buf)
	if err != nil || got.ID != want.ID || got.Kind != want.Kind {
		return want, staleLine(pos, "the line changed since it was indexed; run 'tape reindex'")
	}
	got.Pos = pos
	return got, nil
}

// staleLine is the error of a line that no longer reads as it was indexed.
func staleLine(pos Position, reason string) error {
	return &LineError{Path: pos.Path(), Line: pos.Line, Offset: pos.Offset, Reason: reason}
}
