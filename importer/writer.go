package importer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// batchSize is how many entries of one tape are appended at once: one
// lock and one write per file instead of one per entry.
const batchSize = 512

// writer appends a transcript's entries to their tapes.
type writer struct {
	r     *run
	path  string
	st    *FileStats
	tapes map[string]string        // session key -> tape name
	open  map[string]*tapelog.Tape // by name: a tape keeps its folder open between appends
	// trusted are the tapes the checkpoint the import resumed from
	// vouches for: what it writes to them is not on them yet. Any other
	// tape's ids are read, and the entries it holds skipped.
	trusted map[string]bool
	ids     map[string]map[string]bool
	whole   map[string]bool            // tapes whose ids are all in ids: read from the tape, or new
	pending map[string][]tapelog.Entry // by tape, in order
	order   []string                   // tapes with pending entries, in the order they got them
	written map[string]bool            // tapes appended to
	// builds are the tapes that did not exist when the transcript named
	// them, made whole when it is written (log.Builder), in the order
	// they were named.
	builds map[string]*tapelog.Builder
	built  []string
}

// buildLimit is the bytes of lines a Builder holds before its tape is
// placed, and written through the Tape after: a session that big is not
// one whose tape's making costs much beside its writes.
const buildLimit = 16 << 20

// add writes what a converter made: anchors at once, other entries in
// batches.
func (w *writer) add(ctx context.Context, outs []source.Output) error {
	for _, o := range outs {
		name, err := w.tapeFor(o.Session)
		if errors.Is(err, tapelog.ErrBadName) {
			w.bad(o.Entry, err)
			continue
		}
		if err != nil {
			return err
		}
		ids, err := w.idsOf(ctx, name)
		if err != nil {
			return err
		}
		if o.Replay && !w.whole[name] {
			// A record the agent wrote again: what an earlier import
			// made of it is on the tape, which the checkpoint's trust
			// spared reading until now.
			if err := w.readIDs(ctx, name, ids); err != nil {
				return err
			}
		}
		if ids[o.Entry.ID] {
			w.st.Skipped++ // on the tape already, or made twice by this transcript
			continue
		}
		ids[o.Entry.ID] = true
		if o.Anchor {
			if err := w.flushTape(ctx, name); err != nil {
				return err
			}
			if err := w.handoff(ctx, name, o.Entry); err != nil {
				return err
			}
			continue
		}
		if len(w.pending[name]) == 0 {
			w.order = append(w.order, name)
		}
		w.pending[name] = append(w.pending[name], o.Entry)
		if len(w.pending[name]) >= batchSize {
			if err := w.flushTape(ctx, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// tape is the tape called name, kept open while the transcript is
// written.
func (w *writer) tape(name string) (*tapelog.Tape, error) {
	if t, ok := w.open[name]; ok {
		return t, nil
	}
	t, err := w.r.im.ws.Tape(name)
	if err != nil {
		return nil, err
	}
	if w.open == nil {
		w.open = map[string]*tapelog.Tape{}
	}
	w.open[name] = t
	return t, nil
}

// close releases the folders the tapes keep open: a first import writes
// thousands of tapes, one after the other.
func (w *writer) close() {
	for _, t := range w.open {
		t.Close()
	}
	clear(w.open)
}

// tapeFor is the tape a session's entries go to: the one its checkpoint
// names, or its short name, unless another session's tape has that name.
func (w *writer) tapeFor(s source.Session) (string, error) {
	key := s.Key()
	if name, ok := w.tapes[key]; ok {
		return name, nil
	}
	name := w.r.im.src.TapeName(s, false)
	t, err := w.tape(name)
	if err != nil {
		return "", err
	}
	anchors, err := t.Anchors()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read tape %s: %w", name, err)
	}
	if len(anchors) > 0 && !owns(s, anchors[0]) {
		name = w.r.im.src.TapeName(s, true)
		if t, err = w.tape(name); err != nil {
			return "", err
		}
		if anchors, err = t.Anchors(); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("read tape %s: %w", name, err)
		}
	}
	if len(anchors) == 0 && w.builds[name] == nil {
		if w.builds == nil {
			w.builds = map[string]*tapelog.Builder{}
		}
		w.builds[name] = t.NewBuilder()
		w.built = append(w.built, name)
	}
	w.tapes[key] = name
	return name, nil
}

// idsOf is the set of ids on a tape that this import of the transcript
// must not write again: every id on the tape, read once, unless the
// import resumed from a checkpoint that names the tape; those it wrote
// itself, when it did (a transcript that repeats a uuid makes one entry
// of it either way). A tape the checkpoint does not name may hold what an
// import killed since wrote: a checkpoint made before the transcript had
// made any entry names no tape, and an import that then wrote its tape
// and died before its checkpoint left one that is trusted and had it all
// written again (found by the chaos test of issue 29).
func (w *writer) idsOf(ctx context.Context, name string) (map[string]bool, error) {
	if ids, ok := w.ids[name]; ok {
		return ids, nil
	}
	if w.ids == nil {
		w.ids = map[string]map[string]bool{}
	}
	if ids, ok := w.r.lastIDs[name]; ok {
		w.ids[name] = ids
		w.markWhole(name)
		return ids, nil
	}
	if w.trusted[name] {
		w.ids[name] = map[string]bool{}
		return w.ids[name], nil
	}
	// Nothing of this transcript is pending for the tape yet: add asks
	// for its ids before it adds an entry.
	ids := map[string]bool{}
	if err := w.readIDs(ctx, name, ids); err != nil {
		return nil, err
	}
	w.ids[name] = ids
	return ids, nil
}

// readIDs adds the ids of the entries on a tape to ids, and marks the set
// whole: what this import appended is on the tape, or pending and in ids
// already.
func (w *writer) readIDs(ctx context.Context, name string, ids map[string]bool) error {
	t, err := w.tape(name)
	if err != nil {
		return err
	}
	for e, err := range t.All(ctx) {
		var le *tapelog.LineError
		if errors.As(err, &le) {
			continue // a bad line of the tape is no entry of the transcript
		}
		if errors.Is(err, fs.ErrNotExist) {
			break // a new tape
		}
		if err != nil {
			return fmt.Errorf("read tape %s: %w", name, err)
		}
		ids[e.ID] = true
	}
	w.markWhole(name)
	return nil
}

func (w *writer) markWhole(name string) {
	if w.whole == nil {
		w.whole = map[string]bool{}
	}
	w.whole[name] = true
}

// handOn gives the run the whole id sets of the tapes this writer wrote,
// for the next file's writer, once everything it added is on its tapes.
func (w *writer) handOn() {
	last := map[string]map[string]bool{}
	for name := range w.whole {
		last[name] = w.ids[name]
	}
	w.r.lastIDs = last
}

// handoff writes an anchor: the first of a new tape, or a new phase.
func (w *writer) handoff(ctx context.Context, name string, e tapelog.Entry) error {
	t, err := w.tape(name)
	if err != nil {
		return err
	}
	w.written[name] = true
	if b := w.builds[name]; b != nil {
		err = b.HandoffRecorded(e)
	} else {
		_, err = t.HandoffRecorded(ctx, e)
	}
	if err != nil {
		return w.refused(e, err)
	}
	delete(w.r.marks, name) // changed: measured again when asked
	w.st.Imported++
	w.st.Anchors++
	return w.placeBig(ctx, name)
}

// place writes the tape a Builder holds, which is then written to
// through the Tape.
func (w *writer) place(ctx context.Context, name string) error {
	b := w.builds[name]
	if b == nil {
		return nil
	}
	delete(w.builds, name)
	if err := b.Place(ctx); err != nil {
		return fmt.Errorf("write tape %s: %w", name, err)
	}
	return nil
}

// placeBig places a tape whose Builder holds more than buildLimit.
func (w *writer) placeBig(ctx context.Context, name string) error {
	if b := w.builds[name]; b != nil && b.Size() > buildLimit {
		return w.place(ctx, name)
	}
	return nil
}

// flush appends every pending entry, and places the tapes built.
func (w *writer) flush(ctx context.Context) error {
	for _, name := range w.order {
		if err := w.flushTape(ctx, name); err != nil {
			return err
		}
	}
	w.order = w.order[:0]
	for _, name := range w.built {
		if err := w.place(ctx, name); err != nil {
			return err
		}
	}
	w.built = w.built[:0]
	return nil
}

// flushTape appends a tape's pending entries. An entry the tape refuses
// (over max_entry_bytes) is reported, and the others are appended.
func (w *writer) flushTape(ctx context.Context, name string) error {
	t, err := w.tape(name)
	if err != nil {
		return err
	}
	batch := w.pending[name]
	if len(batch) == 0 {
		return nil
	}
	w.written[name] = true
	delete(w.r.marks, name)
	refused := func(i int, err error) error { return w.refused(batch[i], err) }
	var n int
	if b := w.builds[name]; b != nil {
		n, err = b.AppendRecordedEach(batch, refused)
	} else {
		n, err = t.AppendRecordedEach(ctx, batch, refused)
	}
	w.st.Imported += n
	w.pending[name] = batch[:0]
	if err != nil {
		return fmt.Errorf("append to tape %s: %w", name, err)
	}
	return w.placeBig(ctx, name)
}

// refused reports an entry the tape refuses, as a bad line of the
// transcript; errors that are not about the entry end the import.
func (w *writer) refused(e tapelog.Entry, err error) error {
	if !tapelog.Refused(err) {
		return err
	}
	w.bad(e, err)
	return nil
}

// bad reports the transcript line an entry came from, which is not
// imported.
func (w *writer) bad(e tapelog.Entry, err error) {
	w.st.BadLines++
	w.r.im.warn(&BadLine{File: w.path, Line: source.LineOf(e), Reason: err.Error()})
}
