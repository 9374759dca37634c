package bub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	tapelog "github.com/tape-dev/tape/log"
)

// importBatch is how many entries an import appends at once: one lock and
// one write per file instead of one per entry.
const importBatch = 512

// ErrOtherTape is Import's refusal of a tape that holds entries and none
// of the file's: it is another tape, which an import must not mix into.
var ErrOtherTape = errors.New("bub: the tape holds entries and none of the file's")

// Stats is what an import of one Bub file did.
type Stats struct {
	Imported int // entries written, anchors included
	Anchors  int // of the entries written, anchors
	Skipped  int // lines whose entry the tape held already
	BadLines int // lines not imported: unreadable, or refused by the tape
}

// Options says how Import names the file it reads and reports what it
// does; the zero value reports nothing.
type Options struct {
	// Name names the file in errors and warnings; "" names it by its path.
	Name string
	// Warn receives each line that is not imported, a *log.LineError,
	// after which the import goes on; nil drops them.
	Warn func(error)
	// Progress is told how many of the file's bytes were read, and its
	// size: once before the first line, then before each line is
	// imported; nil tells nobody.
	Progress func(read, size int64)
}

// Import copies the entries of the Bub tape file at path into the tape
// called tape of ws, keeping their kinds, payloads, meta, dates and
// integer ids (as strings). Each anchor entry starts a new anchor folder.
//
// What was imported is remembered by the tape's own files alone: an
// entry's id and kind and date are the Bub line's, so importing again
// skips the lines the tape holds and imports only what is new; the index
// (which can be thrown away) plays no part. A tape that holds entries and
// none of the file's is refused with ErrOtherTape. A line that cannot be
// imported is reported through Warn and counted in BadLines; a failure to
// read the file or to write the tape ends the import.
func Import(ctx context.Context, ws *tapelog.Workspace, path, tape string, opts Options) (Stats, error) {
	if opts.Name == "" {
		opts.Name = path
	}
	var st Stats
	t, err := ws.Tape(tape)
	if err != nil {
		return st, err
	}
	defer t.Close()
	unlock, err := ws.LockImports(ctx)
	if err != nil {
		return st, err
	}
	defer unlock()
	im, err := newImporter(ctx, t)
	if err != nil {
		return st, err
	}
	im.stats, im.opts = &st, opts
	f, err := os.Open(path)
	if err != nil {
		return st, fmt.Errorf("open %s: %w", opts.Name, err)
	}
	defer f.Close()
	if err := im.checkTape(ctx, f); err != nil {
		return st, err
	}
	fi, err := f.Stat()
	if err != nil {
		return st, fmt.Errorf("stat %s: %w", opts.Name, err)
	}
	r := &countingReader{r: f}
	im.progress(0, fi.Size())
	for l, err := range Lines(ctx, r, opts.Name) {
		im.progress(r.n, fi.Size())
		if err != nil {
			if err := im.bad(err); err != nil {
				return st, err
			}
			continue
		}
		if err := im.add(ctx, l); err != nil {
			return st, err
		}
	}
	return st, im.flush(ctx)
}

// importer appends the lines of one Bub file to one tape, skipping those
// already there.
type importer struct {
	tape    *tapelog.Tape
	seen    map[string]string // id -> kind and date, of the entries on the tape
	exists  bool              // the tape had entries before this import, its own anchors aside
	pending []Line
	stats   *Stats
	opts    Options
}

func newImporter(ctx context.Context, t *tapelog.Tape) (*importer, error) {
	im := &importer{tape: t, seen: map[string]string{}}
	for e, err := range t.All(ctx) {
		var le *tapelog.LineError
		if errors.As(err, &le) {
			continue // a bad line of the tape is no entry of the Bub file
		}
		if err != nil {
			return nil, err
		}
		if e.Kind != tapelog.KindAnchor {
			im.exists = true // a bootstrap anchor alone, made by tape, is no one else's tape
		}
		im.seen[e.ID] = importKey(e)
	}
	return im, nil
}

func importKey(e tapelog.Entry) string { return e.Kind + "\x00" + e.Date }

// checkTape refuses, with ErrOtherTape, a tape that holds entries and none
// of the file's, and leaves f at its start.
func (im *importer) checkTape(ctx context.Context, f io.ReadSeeker) error {
	if !im.exists {
		return nil
	}
	if !im.fromFile(ctx, f) {
		return ErrOtherTape
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read %s: %w", im.opts.Name, err)
	}
	return nil
}

// fromFile reports whether a tape that holds entries holds some of the
// Bub file's: a line of it with the same id, kind and date. A tape that
// holds entries and none of the file's is another tape, which an import
// must not mix into. (Checking only the file's first line refused files
// whose first line the tape had refused.)
func (im *importer) fromFile(ctx context.Context, r io.Reader) bool {
	for l, err := range Lines(ctx, r, im.opts.Name) {
		if err != nil {
			continue
		}
		if key, ok := im.seen[l.Entry.ID]; ok && key == importKey(l.Entry) {
			return true
		}
	}
	return false
}

// add imports a line, or skips it if the tape has it already.
func (im *importer) add(ctx context.Context, l Line) error {
	key, ok := im.seen[l.Entry.ID]
	switch {
	case ok && key == importKey(l.Entry):
		im.stats.Skipped++
		return nil
	case ok:
		return im.bad(&tapelog.LineError{Path: im.opts.Name, Line: l.Line, Offset: l.Offset,
			Reason: fmt.Sprintf("id %s is already on tape %s as another entry (kind or date differ); did Bub reset this tape?", l.Entry.ID, im.tape.Name())})
	}
	im.seen[l.Entry.ID] = importKey(l.Entry)
	if l.Entry.Kind != tapelog.KindAnchor {
		im.pending = append(im.pending, l)
		if len(im.pending) >= importBatch {
			return im.flush(ctx)
		}
		return nil
	}
	if err := im.flush(ctx); err != nil {
		return err
	}
	if _, err := im.tape.HandoffEntry(ctx, l.Entry); err != nil {
		return im.refused(l, err)
	}
	im.stats.Imported++
	im.stats.Anchors++
	return nil
}

// flush appends the pending entries. An entry the tape refuses is reported
// and left out, and the others are appended.
func (im *importer) flush(ctx context.Context) error {
	entries := make([]tapelog.Entry, len(im.pending))
	for i, l := range im.pending {
		entries[i] = l.Entry
	}
	n, err := im.tape.AppendRecordedEach(ctx, entries, func(i int, err error) error { return im.refused(im.pending[i], err) })
	im.stats.Imported += n
	im.pending = im.pending[:0]
	return err
}

// refused reports an entry that the tape refuses (a bad anchor name, a line
// over max_entry_bytes), and forgets it so that a later line with its id is
// no conflict. Errors that are not about the entry end the import.
func (im *importer) refused(l Line, err error) error {
	if !tapelog.Refused(err) {
		return err
	}
	delete(im.seen, l.Entry.ID)
	return im.bad(&tapelog.LineError{Path: im.opts.Name, Line: l.Line, Offset: l.Offset, Reason: err.Error()})
}

// bad reports a line that is not imported. An error that is not about a
// line (a cancelled import) ends the import, and so does a line that could
// not be read, an I/O error, once reported.
func (im *importer) bad(err error) error {
	var le *tapelog.LineError
	if !errors.As(err, &le) {
		return err
	}
	if im.opts.Warn != nil {
		im.opts.Warn(err)
	}
	if le.Err != nil {
		return fmt.Errorf("read %s: %w", im.opts.Name, le.Err)
	}
	im.stats.BadLines++
	return nil
}

func (im *importer) progress(read, size int64) {
	if im.opts.Progress != nil {
		im.opts.Progress(read, size)
	}
}

// countingReader counts the bytes read through it, for Progress.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
