package projector

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

// What the walker knows of each tape and anchor folder before it walks
// it: found ahead of the walk by a few goroutines, and, for a folder that
// did not change since it was last listed, without listing it.

// folderState is what prefetch found in one folder.
type folderState struct {
	anchor  *tapelog.FileInfo
	files   []tapelog.FileInfo
	listing folderListing
	listed  bool
	sigSame bool // files have the signature the index holds for the folder
	err     error
}

// prefetchers is how many goroutines stat tapes and folders ahead of the
// walk. A catch-up with nothing to do is nothing but stat(2) calls; they
// block in the kernel, so several at once use both cores.
const prefetchers = 4

// prefetchChunk is how many folders a prefetcher takes at a time. The walk
// waits for a chunk, not for each folder: at one folder each, a catch-up
// of 1,001 folders with nothing to do parked and woke its goroutines
// thousands of times.
const prefetchChunk = 16

// tapeChunk is how many tapes a prefetcher takes at a time, for the same
// reason; scanAhead bounds the chunks taken and not yet walked, and so
// the anchors folders the scan holds open for the walk (those of tapes of
// more than prefetchChunk folders).
const (
	tapeChunk = 16
	scanAhead = 2 * prefetchers
)

// tapeScan is what the scan found of one tape ahead of the walk.
type tapeScan struct {
	t       *tapelog.Tape
	all     []tapelog.Folder // its anchor folders, in tape order
	folders []tapelog.Folder // those the walk visits, in the order it visits them
	listing *tapeListing     // its anchors folder's listing to keep (see anchorFolders)
	listed  bool             // its anchors folder was listed in full
	err     error            // its anchors folder could not be listed
	stat    statFunc
	dir     *tapelog.AnchorsDir // held open until the walk of the tape is done; nil if none
	// The states of folders, found by the scan for a tape of at most
	// prefetchChunk folders; nil for a larger one, whose folders the walk
	// stats ahead itself (prefetch).
	states []folderState
}

// state is the state of the walk's folder i.
func (sc *tapeScan) state(_ context.Context, i int) (folderState, error) { return sc.states[i], nil }

// close closes what the scan of the tape opened; again, it does nothing.
func (sc *tapeScan) close() {
	if sc.dir != nil {
		sc.dir.Close()
		sc.dir = nil
	}
	if sc.t != nil {
		sc.t.Close()
	}
}

// scanTape lists a tape's anchor folders and, if they are few, stats
// them, for the walk. It runs in the scan's goroutines (scanTapes): it
// only reads the walker's state.
func (w *walker) scanTape(name string, tapes *tapelog.TapesDir, sig *[]byte) tapeScan {
	t, err := w.ws.Tape(name)
	if err != nil { // names come from listing the tapes folder: it was one
		return tapeScan{err: err}
	}
	sc := tapeScan{t: t}
	w.listTape(&sc, tapes)
	if sc.err != nil {
		return sc
	}
	sc.folders = sc.all
	if w.scope != nil {
		sc.folders = slices.DeleteFunc(slices.Clone(sc.folders), func(f tapelog.Folder) bool {
			return !w.scope.wantsFolder(&w.st, fileKey{tape: name, folder: f.Name})
		})
	}
	if w.dry {
		sc.folders = slices.Clone(sc.folders)
		slices.Reverse(sc.folders)
	}
	if len(sc.folders) > prefetchChunk {
		return sc
	}
	sc.states = make([]folderState, len(sc.folders))
	for i, f := range sc.folders {
		w.statFolder(&sc.states[i], t, f, sc.stat, sig)
	}
	if sc.dir != nil { // nothing stats through it any more
		sc.dir.Close()
		sc.dir = nil
	}
	return sc
}

// tapeScans is the scan of the tapes ahead of the walk: a few goroutines
// each take a chunk of tapes at a time from a counter, and the walk takes
// their results in order (get), so the ops it sends keep a fixed order.
//
// One scan for all the tapes, and not the prefetch of each tape's folders
// alone, because most tapes have one folder: a catch-up of 10,000 of them
// started four goroutines and a context per tape, listed each on its own
// and stat'ed one tape at a time (BenchmarkCatchUpManyTapes); and a rebuild
// waited for each tape's listing before it could read its files
// (BenchmarkRebuildManyTapes).
type tapeScans struct {
	results []chan []tapeScan
	slots   chan struct{} // one per chunk taken and not yet walked
	chunk   []tapeScan    // the chunk the walk is in
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// scanTapes starts the scan of names, stat'ing through tapes (nil: none
// kept listing is trusted, see keptListing).
func (w *walker) scanTapes(ctx context.Context, names []string, tapes *tapelog.TapesDir) *tapeScans {
	n := (len(names) + tapeChunk - 1) / tapeChunk
	s := &tapeScans{results: make([]chan []tapeScan, n), slots: make(chan struct{}, scanAhead)}
	ctx, s.cancel = context.WithCancel(ctx)
	for i := range s.results {
		s.results[i] = make(chan []tapeScan, 1)
	}
	var next atomic.Int64 // the next chunk to take: no goroutine hands them out
	for range min(prefetchers, n) {
		s.wg.Go(func() {
			var sig []byte
			for {
				select {
				case s.slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				c := int(next.Add(1) - 1)
				if c >= n {
					return
				}
				chunk := names[c*tapeChunk : min(len(names), (c+1)*tapeChunk)]
				scans := make([]tapeScan, 0, len(chunk))
				for _, name := range chunk {
					if ctx.Err() != nil {
						closeScans(scans)
						return
					}
					scans = append(scans, w.scanTape(name, tapes, &sig))
				}
				s.results[c] <- scans
			}
		})
	}
	return s
}

// get waits for the scan of tape i, in order.
func (s *tapeScans) get(ctx context.Context, i int) (*tapeScan, error) {
	if i%tapeChunk == 0 {
		if i > 0 {
			<-s.slots // the chunk before is walked: another may be taken
		}
		select {
		case s.chunk = <-s.results[i/tapeChunk]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &s.chunk[i%tapeChunk], nil
}

// stop ends the scan, waits for its goroutines, and closes what it opened
// for tapes the walk did not reach.
func (s *tapeScans) stop() {
	s.cancel()
	s.wg.Wait()
	closeScans(s.chunk) // close does nothing again: those walked are closed
	for _, r := range s.results {
		select {
		case scans := <-r: // scanned, never walked
			closeScans(scans)
		default:
		}
	}
}

func closeScans(scans []tapeScan) {
	for i := range scans {
		scans[i].close()
	}
}

// folderStates is what prefetch found in the folders of one tape, a chunk
// at a time, in order.
type folderStates struct {
	results []chan []folderState
	chunk   []folderState
}

// get waits for the state of folder i, in order.
func (fs *folderStates) get(ctx context.Context, i int) (folderState, error) {
	if i%prefetchChunk == 0 {
		select {
		case fs.chunk = <-fs.results[i/prefetchChunk]:
		case <-ctx.Done():
			return folderState{}, ctx.Err()
		}
	}
	return fs.chunk[i%prefetchChunk], nil
}

// prefetch stats the folders of a tape of many folders in the background,
// a few goroutines each taking a chunk of them at a time, so the walk
// consumes them in order and the ops it sends stay in a fixed order. stop
// ends the goroutines and waits for them.
func (w *walker) prefetch(ctx context.Context, t *tapelog.Tape, folders []tapelog.Folder, stat statFunc) (states *folderStates, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	states = &folderStates{results: make([]chan []folderState, (len(folders)+prefetchChunk-1)/prefetchChunk)}
	results := states.results
	for i := range results {
		results[i] = make(chan []folderState, 1)
	}
	var next atomic.Int64 // the next chunk to take: no goroutine hands them out
	for range prefetchers {
		wg.Go(func() {
			var sig []byte
			for c := int(next.Add(1) - 1); c < len(results) && ctx.Err() == nil; c = int(next.Add(1) - 1) {
				chunk := folders[c*prefetchChunk : min(len(folders), (c+1)*prefetchChunk)]
				out := make([]folderState, len(chunk))
				for i, f := range chunk {
					if ctx.Err() != nil {
						return
					}
					w.statFolder(&out[i], t, f, stat, &sig)
				}
				results[c] <- out
			}
		})
	}
	return states, func() { cancel(); wg.Wait() }
}

// statFolder finds what the walk needs of folder f into s: its files and
// whether they have the signature the index holds. sig is room to build
// it in.
func (w *walker) statFolder(s *folderState, t *tapelog.Tape, f tapelog.Folder, stat statFunc, sig *[]byte) {
	key := fileKey{tape: t.Name(), folder: f.Name}
	old, known := w.st.folders[key]
	unreadable := w.st.unreadableFiles[key] // nil for most
	s.anchor, s.files, s.listing, s.listed, s.err = w.folderFiles(t, f, old, known, unreadable, stat)
	if s.err == nil && known && old.hasSig() {
		*sig = appendSignature((*sig)[:0], s.files, unreadable)
		s.sigSame = old.sameSig(*sig)
	}
}

// folderFiles describes a folder's anchor.json and tape files. When the
// folder has the identity it had when it was last listed, and that listing
// was made well after its mtime (see racyWindow in package log for why),
// its set of files is the same as then, and only the files known from the
// index are stat'ed, relative to the open anchors folder: a catch-up with
// nothing to do costs a few stats per folder. Otherwise the folder is listed in full.
// It runs in prefetch's goroutines: it only reads the walker's state.
func (w *walker) folderFiles(t *tapelog.Tape, f tapelog.Folder, old folderMark, known bool, unreadable map[string]bool, stat statFunc) (*tapelog.FileInfo, []tapelog.FileInfo, folderListing, bool, error) {
	dir, err := stat(f.Name, "")
	if err != nil {
		return nil, nil, folderListing{}, false, err
	}
	now := folderListing{mtimeNS: dir.ModTime.UnixNano(), ctimeNS: dir.ChangeNS, ino: dir.Ino}
	if known && old.listing.holds(now) {
		if anchor, files, ok := statKnown(t, f, old, unreadable, stat); ok {
			return anchor, files, old.listing, false, nil
		}
	}
	now.listedNS = time.Now().UnixNano()
	anchor, files, links, err := t.FolderFiles(f.Name)
	if links {
		now.listedNS = 0 // a symlink's target changes without the folder: list it every time
	}
	return anchor, files, now, true, err
}

// racyWindow: a folder listed less than this after its last change may
// have changed again within the same timestamp tick.
const racyWindow = 2 * time.Second

// statFunc describes a file of an anchor folder, or the folder for name ""
// (tapelog.AnchorsDir.Stat, or Tape.QuickStat when the tape has no anchors
// folder to open).
type statFunc func(folder, name string) (tapelog.FileInfo, error)

// statKnown stats the files the index knows in a folder that did not
// change (old, with the names of those it holds as unreadable). ok is
// false if one is gone, which the folder's identity said could not be:
// then the folder is listed after all.
func statKnown(t *tapelog.Tape, f tapelog.Folder, old folderMark, unreadable map[string]bool, stat statFunc) (*tapelog.FileInfo, []tapelog.FileInfo, bool) {
	var anchor *tapelog.FileInfo
	if old.size != noAnchorFile {
		fi, err := stat(f.Name, tapelog.AnchorFile)
		if err != nil {
			return nil, nil, false
		}
		anchor = &fi
	}
	names, ok := old.fileNames()
	if !ok {
		return nil, nil, false
	}
	files := make([]tapelog.FileInfo, 0, len(names))
	for _, name := range names {
		var fi tapelog.FileInfo
		var err error
		if unreadable[name] {
			fi, err = t.Stat(f.Name, name) // through the root, which says why it cannot be read
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				fi = tapelog.FileInfo{Name: name, Err: &tapelog.LineError{Reason: "cannot open: " + tapelog.IOReason(err), Err: err}}
				err = nil
			}
		} else {
			fi, err = stat(f.Name, name)
		}
		if err != nil {
			return nil, nil, false
		}
		files = append(files, fi)
	}
	return anchor, files, true
}
