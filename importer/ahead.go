package importer

import (
	"io/fs"
	"os"
	"sync"
)

// aheadWorkers is how many goroutines stat ahead of the pipeline: stats
// block in the kernel, so more than the cores' number overlap.
const aheadWorkers = 8

// statAhead stats every transcript, and the anchors folder of every tape
// their checkpoints name, several at once, before the pipeline prepares
// the transcripts one at a time (prepare, tapesThere): an import again
// with nothing new is little but these stats, one of each a transcript.
// They are taken before any write of the import: a transcript that grows
// during a long import is taken as it was, and the next import reads the
// rest; a tape an earlier transcript of the import wrote has its identity
// replaced when that transcript is committed (run.commit).
func (r *run) statAhead(files []string) {
	r.ahead = make(map[string]fs.FileInfo, len(files))
	r.dirs = map[string]string{}
	if len(files) < 2*aheadWorkers {
		return // not worth the goroutines
	}
	tapesOpen := r.openTapes() // before the goroutines share it
	infos := make([]fs.FileInfo, len(files))
	dirs := make([]map[string]string, aheadWorkers)
	var wg sync.WaitGroup
	for w := range aheadWorkers {
		dirs[w] = map[string]string{}
		wg.Go(func() {
			for i := w; i < len(files); i += aheadWorkers {
				if fi, err := os.Stat(files[i]); err == nil {
					infos[i] = fi
				}
				if cp := r.cp.Files[files[i]]; cp != nil && tapesOpen {
					for _, name := range cp.Tapes {
						dirs[w][name] = r.dirIdentity(name)
					}
				}
			}
		})
	}
	wg.Wait()
	for i, fi := range infos {
		if fi != nil {
			r.ahead[files[i]] = fi
		}
	}
	for _, m := range dirs {
		for name, id := range m {
			r.dirs[name] = id
		}
	}
}

// stat is the transcript's FileInfo, as statAhead found it or now.
func (r *run) stat(path string) (fs.FileInfo, error) {
	if fi, ok := r.ahead[path]; ok {
		delete(r.ahead, path)
		return fi, nil
	}
	return os.Stat(path)
}
