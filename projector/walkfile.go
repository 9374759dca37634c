package projector

import (
	"context"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// The walker's reading of one anchor folder (walk.go lists the tapes and
// their folders): its anchor.json and its files compared with their
// checkpoints, what is new in each read and sent as ops.

// walkFolder sends the changes of one anchor folder: its anchor row, the
// files gone from it, and what each file holds past its checkpoint.
func (w *walker) walkFolder(ctx context.Context, t *tapelog.Tape, f tapelog.Folder, l folderState) error {
	key := fileKey{tape: t.Name(), folder: f.Name}
	old, known := w.st.folders[key]
	anchorFile, files, listing := l.anchor, l.files, l.listing
	w.stats.Folders++
	if l.listed {
		w.stats.Listed++
	}
	size, mtime, ino := int64(noAnchorFile), int64(0), uint64(0)
	if anchorFile != nil {
		size, mtime, ino = anchorFile.Size, anchorFile.ModTime.UnixNano(), anchorFile.Ino
	}
	if !known || old.seq != f.Seq || old.size != size || old.mtimeNS != mtime || old.ino != ino {
		if w.dry {
			return errChanged
		}
		a := t.ReadAnchor(f)
		row := newAnchorRow(a, size, mtime, ino)
		row.replace, row.listing = known, listing // the listing with the row: one statement less per folder of a rebuild
		if err := w.send(ctx, op{kind: opAnchor, key: key, anchor: row}); err != nil {
			return err
		}
		old.listing, old.sig, old.summed = listing, "", false // the new row has no signature yet
	}
	if listing != old.listing {
		if err := w.send(ctx, op{kind: opFolderListed, key: key, listing: listing}); err != nil {
			return err
		}
	}
	if known && old.hasSig() && l.sigSame {
		return nil // no file changed
	}
	if w.dry {
		if known && !old.hasSig() && len(files) == 0 {
			return nil // no file, as before
		}
		return errChanged // its checkpoints would be read, its files maybe
	}
	if known {
		if err := loadCheckpoints(ctx, w.tx, w.st, key); err != nil {
			return err
		}
	}
	seen := make(map[string]bool, len(files))
	failed := make(map[string]bool)
	a := tapelog.Anchor{Seq: f.Seq, Folder: f.Name}
	ctimes := sigCtimes(w.st.folders[key].sig)
	for _, fi := range files {
		seen[fi.Name] = true
		c, ok := ctimes[fi.Name]
		ctime := ctimeUnknown
		if ok {
			ctime = ctimeSame
			if c != fi.ChangeNS {
				ctime = ctimeChanged
			}
		}
		unreadable, err := w.walkFile(ctx, t, a, fi, ctime)
		if err != nil {
			return err
		}
		failed[fi.Name] = unreadable
	}
	// Drop the files that are gone: those the signature listed, and, in
	// case it missed one, those with a checkpoint.
	gone := map[fileKey]bool{}
	names, _ := w.st.folders[key].fileNames() // none if it cannot be read: the checkpoints then say
	for _, name := range names {
		gone[fileKey{tape: key.tape, folder: key.folder, name: name}] = !seen[name]
	}
	for fk := range w.st.files {
		if fk.tape == key.tape && fk.folder == key.folder && !seen[fk.name] {
			gone[fk] = true
		}
	}
	for _, fk := range slices.SortedFunc(maps.Keys(gone), func(a, b fileKey) int { return strings.Compare(a.name, b.name) }) {
		if gone[fk] {
			if err := w.send(ctx, op{kind: opDropFile, key: fk}); err != nil {
				return err
			}
		}
	}
	if sig := signature(files, failed); sig != old.sig {
		return w.send(ctx, op{kind: opFolderSig, key: key, sig: sig})
	}
	return nil
}

// The sizes recorded for an anchor.json that is not a size: a folder
// without one, and one that could not be read, whose permissions may change
// without its size, mtime or inode.
const (
	noAnchorFile     = -1
	unreadableAnchor = -2
)

func newAnchorRow(a tapelog.Anchor, size, mtime int64, ino uint64) anchorRow {
	r := anchorRow{seq: a.Seq, name: a.Name, id: a.Entry.ID, payload: string(a.Entry.Payload),
		size: size, mtimeNS: mtime, ino: ino, effTime: anchorEffTime, unanchored: a.Unanchored}
	if !a.Unanchored {
		r.text = newFTSText(views.SearchText(a.Entry))
	}
	if a.Entry.Meta != nil {
		m := string(a.Entry.Meta)
		r.meta = &m
	}
	if a.Entry.Date != "" {
		d := a.Entry.Date
		r.date = &d
	}
	if a.Err != nil {
		r.badReason, r.badLine = a.Err.Reason, a.Err.Line
		r.size = unreadableAnchor // never equal to a stat: read it again every pass
	}
	return r
}

// ctimeSaid is what a folder's signature says of a file's ctime, which
// changes with its bytes and its mode and which no one can set.
type ctimeSaid int

const (
	ctimeUnknown ctimeSaid = iota // the signature does not record it
	ctimeSame                     // as recorded: neither bytes nor mode changed
	ctimeChanged                  // not as recorded
)

// walkFile reads what is new in one file, or all of it if it changed under
// its checkpoint. ctime is what its folder's signature says of its ctime.
// It reports whether the file could not be read.
func (w *walker) walkFile(ctx context.Context, t *tapelog.Tape, a tapelog.Anchor, fi tapelog.FileInfo, ctime ctimeSaid) (bool, error) {
	key := fileKey{tape: t.Name(), folder: a.Folder, name: fi.Name}
	if fi.Err != nil {
		return true, w.unreadable(ctx, key, badLine{reason: fi.Err.Reason})
	}
	_, wasUnreadable := w.st.unreadable[key]
	cp, known := w.st.files[key]
	if wasUnreadable {
		known = false // its rows and checkpoint went when it became unreadable: read it all
	}
	now := checkpoint{id: cp.id, dev: fi.Dev, ino: fi.Ino, size: fi.Size, mtimeNS: fi.ModTime.UnixNano()}
	sameFile := known && cp.dev == now.dev && cp.ino == now.ino
	if sameFile && cp.size == now.size && cp.mtimeNS == now.mtimeNS {
		switch ctime {
		case ctimeSame:
			return false, nil
		case ctimeUnknown:
			// Unchanged as far as anyone can tell; its mode may have
			// changed, and a rebuild could not open it.
			return w.stillReadable(ctx, t, a, key)
		}
		// An edit in place that kept the size and the mtime (touch -r, a
		// restore, a sync tool): only the ctime says so. Or a chmod,
		// which costs a read of the file. Issue 29 found such an edit
		// never indexed.
	}
	w.stats.FilesRead++
	from := tapelog.FilePos{}
	// Go on from the checkpoint if the file can only have grown: the same
	// file, longer. Not one of the same size, whatever its mtime: an edit
	// in place, which the fingerprint would miss in the middle of the
	// file.
	if sameFile && fi.Size > cp.size && fi.Size >= cp.pos.Offset {
		from = cp.pos
	}
	s, err := t.ScanFileWith(&w.buf, a, fi.Name, from)
	if errors.Is(err, tapelog.ErrFileChanged) {
		from = tapelog.FilePos{}
		s, err = t.ScanFileWith(&w.buf, a, fi.Name, from)
	}
	if err != nil {
		var le *tapelog.LineError
		if errors.As(err, &le) {
			return true, w.unreadable(ctx, key, badLine{line: le.Line, offset: le.Offset, reason: le.Reason})
		}
		return false, err
	}
	defer s.Close()
	if wasUnreadable { // readable again: forget the old complaint
		if err := w.send(ctx, op{kind: opResetFile, key: key}); err != nil {
			return false, err
		}
	}
	if known && from.Offset == 0 && cp.pos.Offset > 0 {
		if err := w.send(ctx, op{kind: opResetFile, key: key}); err != nil {
			return false, err
		}
	}
	if err := w.scan(ctx, key, s); err != nil {
		return false, err
	}
	pos, err := s.Pos()
	if err != nil {
		return false, err
	}
	w.stats.Bytes += pos.Offset - from.Offset
	now.pos = pos
	return false, w.send(ctx, op{kind: opCheckpoint, key: key, cp: now})
}

// stillReadable opens a file whose size and mtime did not change, to see
// whether a rebuild could, and reports whether it could not.
func (w *walker) stillReadable(ctx context.Context, t *tapelog.Tape, a tapelog.Anchor, key fileKey) (bool, error) {
	s, err := t.ScanFileWith(&w.buf, a, key.name, tapelog.FilePos{})
	if le := (*tapelog.LineError)(nil); errors.As(err, &le) {
		return true, w.unreadable(ctx, key, badLine{line: le.Line, offset: le.Offset, reason: le.Reason})
	}
	if err != nil {
		return false, err
	}
	s.Close()
	return false, nil
}

// unreadable records a file that cannot be opened as it stands in a
// rebuild: no rows, no checkpoint, one bad line. Once it can be read again
// it is read from the start.
func (w *walker) unreadable(ctx context.Context, key fileKey, bad badLine) error {
	if _, known := w.st.files[key]; known {
		if err := w.send(ctx, op{kind: opDropFile, key: key}); err != nil {
			return err
		}
	}
	if reason, ok := w.st.unreadable[key]; ok && bad.line == 0 && bad.offset == 0 && reason == bad.reason {
		return nil // recorded already: a pass with nothing new writes nothing
	}
	return w.send(ctx, op{kind: opBadLine, key: key, bad: bad})
}

// scan sends a file's entries and bad lines, in batches. A batch grows as
// the file's entries come, from firstBatch up to entriesPerOp entries or
// opBytes of their lines, whichever comes first: made at
// entriesPerOp for every file, two batches of 116 KiB per file were most
// of what a rebuild of many small tapes allocated (BenchmarkRebuildManyTapes).
func (w *walker) scan(ctx context.Context, key fileKey, s *tapelog.FileScanner) error {
	var batch []entryRow
	var lineBytes int // of the batch's lines
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := w.send(ctx, op{kind: opEntries, key: key, entries: batch})
		batch, lineBytes = nil, 0
		return err
	}
	for {
		e, err := s.Next()
		if errors.Is(err, io.EOF) {
			return flush()
		}
		var le *tapelog.LineError
		if errors.As(err, &le) {
			if err := flush(); err != nil {
				return err
			}
			if err := w.send(ctx, op{kind: opBadLine, key: key, bad: badLine{line: le.Line, offset: le.Offset, reason: le.Reason}}); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if batch == nil {
			batch = make([]entryRow, 0, firstBatch)
		}
		batch = append(batch, newEntryRow(e))
		lineBytes += e.Pos.Length
		if len(batch) >= entriesPerOp || lineBytes >= opBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

func newEntryRow(e tapelog.Entry) entryRow {
	text, facts := views.TextAndFacts(e)
	r := entryRow{id: e.ID, kind: e.Kind, seq: e.Pos.AnchorSeq, line: e.Pos.Line, offset: e.Pos.Offset,
		length: e.Pos.Length, effTime: effTime(e.Pos.Time), text: newFTSText(text), facts: facts}
	if e.Date != "" {
		d := e.Date
		r.date = &d
	}
	return r
}
