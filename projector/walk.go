package projector

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
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

// entriesPerOp and opBytes bound the entries one op carries, in number
// and in the bytes of their lines, so memory does not grow with a file.
// The ops wait in a queue of opsQueued for the goroutine that writes
// them, which waits for the search index's builders: bounded in entries
// alone, that queue held up to 32k entries, tens of MB of tool output,
// whenever the builders fell behind, and a rebuild of 354,395 imported
// entries peaked at 243-266 MB of RSS; bounded in bytes too, with the
// builders' queues (fts5.Build), at 165-167 MB in the same time (two runs
// each, taking turns, docs/decisions/0082).
const (
	entriesPerOp = 512
	opBytes      = 256 << 10
	opsQueued    = 64
)

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
	want = w.newTapesByStart(want)
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
