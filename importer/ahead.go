package importer

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
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

// statFiles stats every transcript, several at once: what prepare needs
// of files[i]'s stat, or nil where the stat failed (prepare stats it
// again, and says why) or there were too few files to be worth the
// goroutines. Each is stat'ed by its name in its folder, held open:
// 10,002 OpenCode sessions' absolute paths of eight names each spent a
// third of these stats' time looking the same folders up.
func statFiles(files []string) []*statted {
	infos := make([]*statted, len(files))
	if len(files) < 2*aheadWorkers {
		return infos
	}
	parents := openParents(files)
	defer parents.close()
	eachAhead(len(files), func(i int) {
		var st unix.Stat_t
		dir, name := parents.of(i)
		if dir == nil || unix.Fstatat(int(dir.Fd()), name, &st, 0) != nil {
			return
		}
		infos[i] = stattedOf(&st)
	})
	return infos
}

// parents are the folders of a list of files, each opened once (nil where
// it could not be), by the index of the file.
type parents struct {
	open  map[string]*os.File
	dirs  []*os.File
	names []string
}

func openParents(files []string) *parents {
	p := &parents{open: map[string]*os.File{}, dirs: make([]*os.File, len(files)), names: make([]string, len(files))}
	for i, path := range files {
		dir, name := filepath.Split(path)
		f, ok := p.open[dir]
		if !ok {
			f, _ = os.Open(dir) // nil: the file's stat fails, and prepare says why
			p.open[dir] = f
		}
		p.dirs[i], p.names[i] = f, name
	}
	return p
}

func (p *parents) of(i int) (*os.File, string) { return p.dirs[i], p.names[i] }

func (p *parents) close() {
	for _, f := range p.open {
		if f != nil {
			f.Close()
		}
	}
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

// stat is what prepare needs of files[i]'s stat, the transcript at path,
// as statFiles found it or now.
func (r *run) stat(i int, path string) (*statted, error) {
	if i < len(r.ahead) && r.ahead[i] != nil {
		st := r.ahead[i]
		r.ahead[i] = nil
		return st, nil
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return stattedOf(&st), nil
}
