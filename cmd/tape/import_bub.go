package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tape-dev/tape/bub"
	tapelog "github.com/tape-dev/tape/log"
)

// importBatch is how many entries an import appends at once: one lock and
// one write per file instead of one per entry.
const importBatch = 512

// bubImporter appends the lines of one Bub file to one tape, skipping those
// already there. What was imported is remembered by the tape's own files
// alone: an entry's id and kind and date are the Bub line's, so the next
// import recognises it, and the index (which can be thrown away) plays no
// part.
type bubImporter struct {
	tape    *tapelog.Tape
	seen    map[string]string // id -> kind and date, of the entries on the tape
	exists  bool              // the tape had entries before this import, its own anchors aside
	pending []bub.Line
	stats   *importStats
	stderr  io.Writer
}

func newBubImporter(ctx context.Context, t *tapelog.Tape) (*bubImporter, error) {
	im := &bubImporter{tape: t, seen: map[string]string{}}
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

// fromFile reports whether a tape that holds entries holds some of the
// Bub file's: a line of it with the same id, kind and date. A tape that
// holds entries and none of the file's is another tape, which an import
// must not mix into. (Checking only the file's first line refused files
// whose first line the tape had refused.)
func (im *bubImporter) fromFile(ctx context.Context, r io.Reader, name string) bool {
	for l, err := range bub.Lines(ctx, r, name) {
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
func (im *bubImporter) add(ctx context.Context, l bub.Line) error {
	key, ok := im.seen[l.Entry.ID]
	switch {
	case ok && key == importKey(l.Entry):
		im.stats.Skipped++
		return nil
	case ok:
		return im.bad(&tapelog.LineError{Path: im.stats.File, Line: l.Line, Offset: l.Offset,
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
func (im *bubImporter) flush(ctx context.Context) error {
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
func (im *bubImporter) refused(l bub.Line, err error) error {
	if !tapelog.Refused(err) {
		return err
	}
	delete(im.seen, l.Entry.ID)
	return im.bad(&tapelog.LineError{Path: im.stats.File, Line: l.Line, Offset: l.Offset, Reason: err.Error()})
}

// bad reports a line that is not imported.
func (im *bubImporter) bad(err error) error {
	if err := warnLine(im.stderr, err); err != nil && !errors.Is(err, errUnreadable) {
		return err
	}
	var le *tapelog.LineError
	if errors.As(err, &le) && le.Err != nil {
		return fmt.Errorf("read %s: %w", im.stats.File, le.Err) // an I/O error, not a bad line
	}
	im.stats.BadLines++
	return nil
}
