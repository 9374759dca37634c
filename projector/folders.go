package projector

import (
	"context"
	"errors"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

// What the walker knows of each anchor folder before it walks it: found
// ahead of the walk by a few goroutines, and, for a folder that did not
// change since it was last listed, without listing it.

// folderState is what prefetch found in one folder.
type folderState struct {
	anchor  *tapelog.FileInfo
	files   []tapelog.FileInfo
	listing folderListing
	listed  bool
	sigSame bool // files have the signature the index holds for the folder
	err     error
}

// prefetchers is how many goroutines stat folders ahead of the walk. A
// catch-up with nothing to do is nothing but stat(2) calls; they block in
// the kernel, so several at once use both cores.
const prefetchers = 4

// prefetchChunk is how many folders a prefetcher takes at a time. The walk
// waits for a chunk, not for each folder: at one folder each, a catch-up
// of 1,001 folders with nothing to do parked and woke its goroutines
// thousands of times.
const prefetchChunk = 16

// prefetch stats the folders in the background, a few goroutines each
// taking a chunk of them at a time, and returns one channel per chunk for
// its results, so the walk consumes them in order and the ops it sends
// stay in a fixed order. stop ends the goroutines and waits for them.
func (w *walker) prefetch(ctx context.Context, t *tapelog.Tape, folders []tapelog.Folder, stat statFunc) (results []chan []folderState, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	results = make([]chan []folderState, (len(folders)+prefetchChunk-1)/prefetchChunk)
	for i := range results {
		results[i] = make(chan []folderState, 1)
	}
	var next atomic.Int64 // the next chunk to take: no goroutine hands them out
	for range prefetchers {
		wg.Go(func() {
			var sig []byte
			for c := int(next.Add(1) - 1); c < len(results) && ctx.Err() == nil; c = int(next.Add(1) - 1) {
				chunk := folders[c*prefetchChunk : min(len(folders), (c+1)*prefetchChunk)]
				states := make([]folderState, len(chunk))
				for i, f := range chunk {
					if ctx.Err() != nil {
						return
					}
					key := fileKey{tape: t.Name(), folder: f.Name}
					old, known := w.st.folders[key]
					unreadable := w.st.unreadableFiles[key] // nil for most
					s := &states[i]
					s.anchor, s.files, s.listing, s.listed, s.err = w.folderFiles(t, f, old, known, unreadable, stat)
					if s.err == nil && known && old.hasSig() {
						sig = appendSignature(sig[:0], s.files, unreadable)
						s.sigSame = old.sameSig(sig)
					}
				}
				results[c] <- states
			}
		})
	}
	return results, func() { cancel(); wg.Wait() }
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
	if old.size != -1 { // -1: the folder had no anchor.json
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
				fi = tapelog.FileInfo{Name: name, Err: &tapelog.LineError{Reason: "cannot open: " + err.Error(), Err: err}}
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
