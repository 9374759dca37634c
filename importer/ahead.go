package importer

import (
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
)

// aheadWorkers is how many goroutines stat ahead of the pipeline: stats
// block in the kernel, so more than the cores' number overlap.
const aheadWorkers = 8

// An import again with nothing new is little but stats, two for each
// transcript: the transcript's own, and its tape's anchors folder's
// (prepare, tapesThere). They are taken several at once, before the
// pipeline prepares the transcripts one at a time, and on both sides of
// Import's two goroutines: the transcripts' after the walk that finds
// them (statFiles), the tapes', which the checkpoints name, after the
// checkpoints are read (statDirs). They are taken before any write of the
// import: a transcript that grows during a long import is taken as it
// was, and the next import reads the rest; a tape an earlier transcript
// of the import wrote has its identity replaced when that transcript is
// committed (run.commit).

// statFiles stats every transcript, several at once: the FileInfo of
// files[i], or nil where the stat failed (prepare stats it again, and
// says why) or there were too few files to be worth the goroutines.
func statFiles(files []string) []fs.FileInfo {
	infos := make([]fs.FileInfo, len(files))
	if len(files) < 2*aheadWorkers {
		return infos
	}
	eachAhead(len(files), func(i int) {
		if fi, err := os.Stat(files[i]); err == nil {
			infos[i] = fi
		}
	})
	return infos
}

// statDirs stats, several at once, the anchors folder of every tape
// that the checkpoints of transcripts under roots (absolute paths) name
// (dirIdentity).
func (r *run) statDirs(roots []string) {
	r.dirs = map[string]string{}
	named := map[string]bool{}
	for path, cp := range r.cp.Files {
		if under(path, roots) {
			for _, name := range cp.Tapes {
				named[name] = true
			}
		}
	}
	tapes := slices.Collect(maps.Keys(named))
	if len(tapes) < 2*aheadWorkers || !r.openTapes() { // openTapes before the goroutines share it
		return
	}
	ids := make([]string, len(tapes))
	eachAhead(len(tapes), func(i int) { ids[i] = r.dirIdentity(tapes[i]) })
	for i, name := range tapes {
		r.dirs[name] = ids[i]
	}
}

// under reports whether path is one of roots or inside one.
func under(path string, roots []string) bool {
	for _, root := range roots {
		if path == root || strings.HasPrefix(path, root) && (strings.HasSuffix(root, "/") || path[len(root)] == '/') {
			return true
		}
	}
	return false
}

// eachAhead calls fn(i) for i in [0, n) on up to aheadWorkers goroutines,
// and waits for them: for stats and folder reads, which block in the
// kernel.
func eachAhead(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for w := range min(aheadWorkers, n) {
		wg.Go(func() {
			for i := w; i < n; i += aheadWorkers {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// stat is the FileInfo of files[i], the transcript at path, as statFiles
// found it or now.
func (r *run) stat(i int, path string) (fs.FileInfo, error) {
	if i < len(r.ahead) && r.ahead[i] != nil {
		fi := r.ahead[i]
		r.ahead[i] = nil
		return fi, nil
	}
	return os.Stat(path)
}
