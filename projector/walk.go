package projector

import (
	"cmp"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"syscall"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

// The producer side of a pass: it walks the files, compares them with the
// checkpoints, reads what is new and sends the changes, in order, to the
// goroutine that writes them (apply.go). Parsing and text extraction thus
// run beside SQLite, on the other core.

// entriesPerOp bounds the entries one op carries, so memory does not grow
// with a file.
const entriesPerOp = 512

// firstBatch is the room a batch of entries starts with (see scan).
const firstBatch = 16

// walker compares the files with the state and sends ops.
type walker struct {
	ws    *tapelog.Workspace
	st    state
	scope *scope // nil: every folder
	out   chan<- op
	stats *Stats
	tx    sqlTx // for the checkpoints of the folders that changed
	// dry: only find out whether anything changed (unchangedSince). The
	// first op it would send, or a folder it would read, ends the walk
	// with errChanged; it walks each tape's newest folders first, where
	// agents append.
	dry bool
	buf tapelog.ScanBuffer // what the files are read with, one at a time
}

func (w *walker) send(ctx context.Context, o op) error {
	if w.dry {
		return errChanged
	}
	select {
	case w.out <- o:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *walker) walk(ctx context.Context) error {
	names, tapes, err := w.listTapes()
	if err != nil {
		return err
	}
	if tapes != nil {
		defer tapes.Close()
	}
	want := names
	if w.scope != nil {
		want = slices.DeleteFunc(slices.Clone(names), func(name string) bool { return !w.scope.wantsTape(&w.st, name) })
	}
	scans := w.scanTapes(ctx, want, tapes)
	defer scans.stop() // before tapes.Close: the scan stats through it
	for i := range want {
		sc, err := scans.get(ctx, i)
		if err != nil {
			return err
		}
		if err := w.walkTape(ctx, sc); err != nil {
			return err
		}
	}
	for name := range w.st.tapes {
		if _, found := slices.BinarySearch(names, name); !found {
			if err := w.send(ctx, op{kind: opDropTape, key: fileKey{tape: name}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// listTapes lists the tapes, sorted, and returns the tapes folder open,
// for the scan to stat through (scanTapes); nil in a workspace without one.
func (w *walker) listTapes() ([]string, *tapelog.TapesDir, error) {
	tapes, err := w.ws.OpenTapes()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	names, err := tapes.Names()
	if err != nil {
		tapes.Close()
		return nil, nil, err
	}
	return names, tapes, nil
}

// exhausted reports whether err says the process ran out of something
// (descriptors, memory) rather than that the tape cannot be read: such a
// pass fails, to be run again, instead of dropping the tape's rows.
func exhausted(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ENOMEM)
}

// listTape finds a tape's anchor folders, and how to stat their files,
// into sc: from the listing the index keeps of its anchors folder, if that
// folder has the same identity (keptListing); else relative to the anchors
// folder, opened and listed (or taken from that listing after all), or by
// path for a tape that has none. It runs in the scan's goroutines
// (scanTapes): it only reads the walker's state.
func (w *walker) listTape(sc *tapeScan, tapes *tapelog.TapesDir) {
	name := sc.t.Name()
	if folders, last, ok := w.keptListing(name, tapes); ok {
		sc.all, sc.listing = folders, last
		sc.stat = func(folder, file string) (tapelog.FileInfo, error) { return tapes.Stat(name, folder, file) }
		return
	}
	dir, err := sc.t.OpenAnchors()
	switch {
	case errors.Is(err, fs.ErrNotExist): // a tape with no anchors folder has no anchor folders
		sc.listed, sc.stat = true, sc.t.QuickStat
		return
	case err != nil: // the walk tells running out of descriptors from a tape it cannot read
		sc.err = err
		return
	}
	sc.dir, sc.stat = dir, dir.Stat
	sc.all, sc.listing, sc.listed, sc.err = w.anchorFolders(name, dir)
}

// keptListing returns the anchor folders of a tape from the listing the
// index keeps of its anchors folder, if that folder, described by one stat
// relative to the tapes folder, has the identity it had then, well after
// its mtime; ok is false otherwise (no listing, another identity, a
// symlink or anything but a folder there), and the caller opens the
// folder. In a catch-up of 10,000 small tapes with nothing to do, this
// stat is all a tape costs besides its folders' (BenchmarkCatchUpManyTapes).
func (w *walker) keptListing(tape string, tapes *tapelog.TapesDir) ([]tapelog.Folder, *tapeListing, bool) {
	last, ok := w.st.tapeListings[tape]
	if !ok || tapes == nil {
		return nil, nil, false
	}
	id, err := tapes.AnchorsIdentity(tape)
	if err != nil || !last.listing.holds(identity(id)) {
		return nil, nil, false
	}
	folders, ok := splitFolders(last.folders)
	return folders, &last, ok
}

// identity is a folder's identity, as a listing compares it, from its
// stat.
func identity(id tapelog.FileInfo) folderListing {
	return folderListing{mtimeNS: id.ModTime.UnixNano(), ctimeNS: id.ChangeNS, ino: id.Ino}
}

// anchorFolders lists the anchor folders of a tape's open anchors folder;
// or, if the folder has the identity it had when last listed, well after
// its mtime, takes them from that listing: a catch-up with nothing to do
// spent a millisecond listing a thousand folders before it could stat the
// first, and another parsing and sorting their names. listed says it
// listed the folder.
func (w *walker) anchorFolders(tape string, dir *tapelog.AnchorsDir) (folders []tapelog.Folder, listing *tapeListing, listed bool, err error) {
	id, err := dir.Identity()
	if err != nil {
		return nil, nil, false, err
	}
	now := identity(id)
	if last, ok := w.st.tapeListings[tape]; ok && last.listing.holds(now) {
		if folders, ok := splitFolders(last.folders); ok {
			return folders, &last, false, nil
		}
	}
	now.listedNS = time.Now().UnixNano()
	folders, links, err := dir.List()
	if err != nil {
		return nil, nil, true, err
	}
	// A listing the next pass could not trust is not kept: a symlink's
	// target changes without the folder, and a folder changed within
	// racyWindow may change again unseen. Kept, it would be written again
	// by every pass until then, each a commit though nothing changed.
	if links || !now.settled() {
		return folders, nil, true, nil
	}
	return folders, &tapeListing{listing: now, folders: joinFolders(folders)}, true, nil
}

// joinFolders joins the names of folders with "/", for a tapeListing.
func joinFolders(folders []tapelog.Folder) string {
	var b strings.Builder
	for i, f := range folders {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(f.Name)
	}
	return b.String()
}

// splitFolders reads the folders a tapeListing names, in its order; ok is
// false if a name is not an anchor folder's.
func splitFolders(names string) (folders []tapelog.Folder, ok bool) {
	if names == "" {
		return nil, true
	}
	folders = make([]tapelog.Folder, 0, strings.Count(names, "/")+1)
	for name := range strings.SplitSeq(names, "/") {
		seq, _, ok := tapelog.ParseFolderName(name)
		if !ok {
			return nil, false
		}
		folders = append(folders, tapelog.Folder{Seq: seq, Name: name})
	}
	return folders, true
}

// walkTape sends the ops of one tape, from what the scan found of it.
func (w *walker) walkTape(ctx context.Context, sc *tapeScan) error {
	if sc.t == nil {
		return sc.err
	}
	defer sc.close()
	name := sc.t.Name()
	if sc.listed {
		w.stats.TapesListed++
	}
	all, folders, listing := sc.all, sc.folders, sc.listing
	tapeKey := fileKey{tape: name}
	switch err := sc.err; {
	case err != nil && (ctx.Err() != nil || exhausted(err)):
		return err
	case err != nil:
		// One tape that cannot be read (a symlink out of the workspace, a
		// folder without permissions) must not stop every command of the
		// workspace: it is recorded, as a file that cannot be read is, and
		// has no rows, as in a rebuild, until it can be read again.
		if err := w.unlisted(ctx, tapeKey, err); err != nil {
			return err
		}
		all, folders, listing = nil, nil, nil
	default:
		if err := w.listed(ctx, tapeKey); err != nil {
			return err
		}
	}
	if err := w.keepTapeListing(ctx, name, listing); err != nil {
		return err
	}
	state := sc.state
	if sc.states == nil && len(folders) > 0 { // a tape of many folders: stat them ahead here
		listings, stop := w.prefetch(ctx, sc.t, folders, sc.stat)
		defer stop() // before sc.close
		state = func(ctx context.Context, i int) (folderState, error) { return listings.get(ctx, i) }
	}
	for i, f := range folders {
		l, err := state(ctx, i)
		if err != nil {
			return err
		}
		if errors.Is(l.err, fs.ErrNotExist) {
			continue // deleted while we looked: the next pass drops its rows
		}
		key := fileKey{tape: name, folder: f.Name}
		if l.err != nil && (ctx.Err() != nil || exhausted(l.err)) {
			return l.err
		}
		if l.err != nil { // one folder that cannot be read, as one tape above
			if err := w.dropUnlisted(ctx, key, l.err); err != nil {
				return err
			}
			continue
		}
		if err := w.listed(ctx, key); err != nil {
			return err
		}
		if err := w.walkFolder(ctx, sc.t, f, l); err != nil {
			return err
		}
	}
	return w.dropGone(ctx, name, all)
}

// dropGone drops the folders of a tape that the index holds and all, its
// anchor folders now, does not list, and forgets those of them it holds
// as unlisted.
func (w *walker) dropGone(ctx context.Context, tape string, all []tapelog.Folder) error {
	known, unlisted := w.st.foldersOf[tape], w.st.unlistedFolders[tape]
	if len(known) == 0 && len(unlisted) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(all))
	for _, f := range all {
		seen[f.Name] = true
	}
	for _, key := range known {
		if !seen[key.folder] {
			if err := w.send(ctx, op{kind: opDropFolder, key: key}); err != nil {
				return err
			}
		}
	}
	for _, key := range unlisted {
		if !seen[key.folder] {
			if err := w.listed(ctx, key); err != nil { // gone
				return err
			}
		}
	}
	return nil
}

// keepTapeListing saves a tape's listing if it is not the one the index
// holds, and forgets the one it holds when there is none to keep.
func (w *walker) keepTapeListing(ctx context.Context, tape string, listing *tapeListing) error {
	last, known := w.st.tapeListings[tape]
	if listing == nil && !known || listing != nil && known && *listing == last {
		return nil
	}
	return w.send(ctx, op{kind: opTapeListed, key: fileKey{tape: tape}, tapeAt: listing})
}

// dropUnlisted drops the rows of a folder that cannot be listed and
// records why.
func (w *walker) dropUnlisted(ctx context.Context, key fileKey, err error) error {
	if _, known := w.st.folders[key]; known {
		if err := w.send(ctx, op{kind: opDropFolder, key: key}); err != nil {
			return err
		}
	}
	return w.unlisted(ctx, key, err)
}

// unlisted records that a tape's anchors folder (key.folder "") or an
// anchor folder cannot be listed, unless the index says so already, for
// the same reason: a pass that finds nothing new writes nothing, or every
// reader would see the index change under it (CatchUpBeside) and a watcher
// would commit on every pass.
func (w *walker) unlisted(ctx context.Context, key fileKey, err error) error {
	reason := err.Error()
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		reason = pe.Err.Error() // the path is the bad line's own
	}
	reason = "cannot list: " + reason
	if old, ok := w.st.unreadable[key]; ok && old == reason {
		return nil
	}
	return w.send(ctx, op{kind: opUnlisted, key: key, bad: badLine{reason: reason}})
}

// listed forgets that a tape or folder could not be listed, if the index
// said so.
func (w *walker) listed(ctx context.Context, key fileKey) error {
	if _, ok := w.st.unreadable[key]; !ok {
		return nil
	}
	return w.send(ctx, op{kind: opListed, key: key})
}

func compareKeys(a, b fileKey) int {
	return cmp.Or(strings.Compare(a.tape, b.tape), strings.Compare(a.folder, b.folder), strings.Compare(a.name, b.name))
}

func (w *walker) walkFolder(ctx context.Context, t *tapelog.Tape, f tapelog.Folder, l folderState) error {
	key := fileKey{tape: t.Name(), folder: f.Name}
	old, known := w.st.folders[key]
	anchorFile, files, listing := l.anchor, l.files, l.listing
	w.stats.Folders++
	if l.listed {
		w.stats.Listed++
	}
	size, mtime, ino := int64(-1), int64(0), uint64(0)
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

// unreadableAnchor is the size recorded for an anchor.json that could not
// be read; its permissions may change without its size, mtime or inode.
const unreadableAnchor = -2

func newAnchorRow(a tapelog.Anchor, size, mtime int64, ino uint64) anchorRow {
	r := anchorRow{seq: a.Seq, name: a.Name, id: a.Entry.ID, payload: string(a.Entry.Payload),
		size: size, mtimeNS: mtime, ino: ino, effTime: anchorEffTime,
		text: newFTSText(SearchText(a.Entry))}
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
// the file's entries come, from firstBatch up to entriesPerOp: made at
// entriesPerOp for every file, two batches of 116 KiB per file were most
// of what a rebuild of many small tapes allocated (BenchmarkRebuildManyTapes).
func (w *walker) scan(ctx context.Context, key fileKey, s *tapelog.FileScanner) error {
	var batch []entryRow
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := w.send(ctx, op{kind: opEntries, key: key, entries: batch})
		batch = nil
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
		if len(batch) >= entriesPerOp {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

func newEntryRow(e tapelog.Entry) entryRow {
	text, facts := textAndFacts(e)
	r := entryRow{id: e.ID, kind: e.Kind, seq: e.Pos.AnchorSeq, line: e.Pos.Line, offset: e.Pos.Offset,
		length: e.Pos.Length, effTime: effTime(e.Pos.Time), text: newFTSText(text), facts: facts}
	if e.Date != "" {
		d := e.Date
		r.date = &d
	}
	return r
}
