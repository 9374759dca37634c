package log

import (
	"io"
	"os"
)

// EntryReader reads entries back from where an index found them: a line
// of a known length at a known offset of a tape file. It keeps the last
// file it read open, since entries in tape order come mostly from the
// same few files. An EntryReader is not safe for use by several goroutines;
// Close it when done.
type EntryReader struct {
	ws  *Workspace
	key FileKey
	f   *os.File // the file of key; nil when none is open
	buf []byte
}

// EntryReader returns a reader of entries at known places in the
// workspace's tape files.
func (w *Workspace) EntryReader() *EntryReader { return &EntryReader{ws: w} }

// Close closes the file the reader has open, if any.
func (r *EntryReader) Close() error {
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
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
	if key != r.key || r.f == nil {
		r.Close() //nolint:errcheck // read only
		r.key = key
		t, err := r.ws.Tape(key.Tape)
		if err != nil {
			return want, err
		}
		if r.f, err = t.OpenFile(key.Folder, key.Name); err != nil {
			return want, staleLine(pos, "cannot open: "+IOReason(err))
		}
	}
	if cap(r.buf) < pos.Length {
		r.buf = make([]byte, pos.Length)
	}
	// Only the bytes read: a file cut since it was indexed reads short,
	// and the rest of the buffer holds an earlier line.
	n, err := r.f.ReadAt(r.buf[:pos.Length], pos.Offset)
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
