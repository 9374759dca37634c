package importer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// DefaultSettle is how long a transcript must have been quiet before the
// lines a converter holds back are imported: long enough that the model
// has finished writing a turn's calls, short enough that a follower shows
// a running tool's call within about a second.
const DefaultSettle = time.Second

// Importer imports the transcripts of one source into a workspace's tapes.
type Importer struct {
	ws  *tapelog.Workspace
	src source.Source
	// Settle is how long a transcript must have been quiet before what a
	// converter holds back is imported (DefaultSettle when zero).
	Settle time.Duration
	// Now is the clock the settle rule reads (time.Now when nil).
	Now func() time.Time
	// Warn receives each line that could not be imported (a *BadLine),
	// each line imported with a value not read as written (a *Warning),
	// and each transcript or folder that could not be read; nil drops
	// them.
	Warn func(error)
	// Progress is told, after each transcript, how many of how many are
	// done; nil tells nobody.
	Progress func(done, total int)
	// DeferSyncs makes the import sync the file system once at its end
	// (and before each save of its checkpoints) instead of five times for
	// each tape it creates (log.Workspace.DeferSyncs): for a first import
	// of many sessions. Only one writer of the Workspace may ask for it.
	DeferSyncs bool
	// Full reads every transcript from its start, whatever its checkpoint
	// says, and skips the entries its tapes hold: it repairs a tape that
	// lost entries while its transcript did not change.
	Full bool
}

// New returns an importer of src's transcripts into ws.
func New(ws *tapelog.Workspace, src source.Source) *Importer {
	return &Importer{ws: ws, src: src}
}

// FileStats is what an import did with one transcript file. Its JSON
// field names are a contract (tape import --json).
type FileStats struct {
	File      string   `json:"file"`
	Tape      string   `json:"tape"`  // the tape of the file's first session; "" when it has none yet
	Tapes     []string `json:"tapes"` // every tape it wrote to or would have
	Lines     int      `json:"lines"` // lines read this time
	Imported  int      `json:"imported"`
	Anchors   int      `json:"anchors"`   // of the imported entries, anchors
	Skipped   int      `json:"skipped"`   // entries a tape held already
	BadLines  int      `json:"bad_lines"` // lines that could not be imported
	Held      int      `json:"held"`      // lines held back: the record they belong to is still being written
	Unchanged bool     `json:"unchanged"` // the file had nothing new
}

// Import imports the transcripts at paths: files, and folders searched for
// the source's transcripts. It holds the workspace's import lock
// throughout, so imports and followers take turns. A transcript that
// cannot be read is reported through Warn and skipped; a failure to write
// the workspace ends the import. What was imported before an error or a
// cancellation stays imported, and the next import goes on from there.
func (im *Importer) Import(ctx context.Context, paths []string) ([]FileStats, error) {
	for _, p := range paths { // a path that is not there fails now, not after another import
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("open %s: %w", p, unwrapPath(err))
		}
	}
	unlock, err := im.ws.LockImports(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	roots := make([]string, 0, len(paths))
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		roots = append(roots, abs)
	}
	if st, ok := im.src.(source.Store); ok {
		if roots, err = im.mirrorRoots(ctx, st, roots); err != nil {
			return nil, err
		}
	}
	// The walk of the transcripts' folders and their stats, and the
	// reading of the checkpoints and the stats of the tapes they name,
	// each half of an import again with nothing new, at once.
	var files []string
	var infos []*statted
	found := make(chan error, 1)
	go func() {
		var err error
		if files, err = im.find(roots); err == nil {
			infos = statFiles(files)
		}
		found <- err
	}()
	r, err := im.newRun()
	if err == nil {
		r.statDirs(roots)
	}
	if ferr := <-found; ferr != nil {
		if r != nil {
			r.close()
		}
		return nil, ferr
	}
	if err != nil {
		return nil, err
	}
	defer r.close()
	synced := func() error { return nil }
	if im.DeferSyncs {
		// One sync at the end, not five for each new tape; the
		// checkpoints are saved after a sync, so they never claim more
		// than a crash leaves.
		synced = im.ws.DeferSyncs()
	}
	r.ahead = infos
	r.forgetGone(roots, files)
	all, err := r.pipeline(ctx, files)
	return all, joinErrors(err, synced(), r.save()) // in this order
}

// pipeline imports files in order. This goroutine prepares each file
// (where its reading starts) and writes what it made, in order, and alone
// touches the run's state and the tapes; reading and converting run on
// other goroutines, as many at once as there are cores, a few files ahead
// of the writing.
//
// BenchmarkImportClaude: converting is most of an import's CPU, and a file
// converted on the other core while this one writes the file before made
// a first import 1.2 times as fast on two cores.
func (r *run) pipeline(ctx context.Context, files []string) ([]FileStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := max(1, runtime.GOMAXPROCS(0))
	type slot struct {
		fr   *fileRun
		st   FileStats
		done chan struct{}
	}
	closed := make(chan struct{}) // the done of a slot with nothing to read
	close(closed)
	var queue []*slot
	var all []FileStats
	next := 0
	defer func() { // no reader outlives the import
		cancel()
		for _, s := range queue {
			<-s.done
		}
	}()
	for len(all) < len(files) {
		for len(queue) <= workers && next < len(files) {
			s := &slot{done: closed}
			var err error
			if s.fr, s.st, err = r.prepare(next, files[next]); err != nil {
				return all, err
			}
			next++
			queue = append(queue, s)
			if s.fr == nil {
				continue
			}
			s.done = make(chan struct{})
			go func() {
				defer close(s.done)
				s.fr.read(ctx)
			}()
		}
		s := queue[0]
		queue = queue[1:]
		<-s.done
		st := s.st
		if s.fr != nil {
			var err error
			if st, err = r.write(ctx, s.fr); err != nil {
				return all, err
			}
		}
		if err := ctx.Err(); err != nil {
			return all, err
		}
		all = append(all, st)
		if r.im.Progress != nil {
			r.im.Progress(len(all), len(files))
		}
		if err := r.saveEvery(5 * time.Second); err != nil {
			return all, err
		}
	}
	return all, nil
}

// find lists the transcripts at roots (absolute paths), each once, in the
// order given and sorted within a folder.
func (im *Importer) find(roots []string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, root := range roots {
		fi, err := os.Stat(root)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", root, unwrapPath(err))
		}
		if !fi.IsDir() {
			add(root)
			continue
		}
		for _, f := range im.walk(root) {
			add(f)
		}
	}
	return files, nil
}

// walk lists the source's transcripts under dir, sorted. Folders that
// cannot be read are reported, in order, and skipped; dir is followed if
// it is a symbolic link (the folder a user names), links in it are not.
//
// The folders right in dir (an agent's project folders, say) are walked
// side by side: a walk of 1,897 folders one at a time was a third of an
// import again with nothing new of 10,150 transcripts.
func (im *Importer) walk(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		im.warn(fmt.Errorf("%s: %w; skipped", dir, unwrapPath(err)))
		return nil
	}
	var found, subdirs []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			if !pruned(im.src, dir, path) {
				subdirs = append(subdirs, path)
			}
		case e.Type().IsRegular() && im.src.IsTranscript(path):
			found = append(found, path)
		}
	}
	trees := make([]walked, len(subdirs))
	eachAhead(len(subdirs), func(i int) { trees[i] = im.walkTree(dir, subdirs[i]) })
	for _, t := range trees {
		found = append(found, t.found...)
		for _, err := range t.warnings {
			im.warn(err) // here, in order: Warn need not be safe for concurrent use
		}
	}
	sortTranscripts(im.src, found)
	return found
}

// sortTranscripts sorts paths by name; a FileRanker's, within a folder,
// by rank first.
func sortTranscripts(src source.Source, paths []string) {
	r, ok := src.(source.FileRanker)
	if !ok {
		slices.Sort(paths)
		return
	}
	slices.SortFunc(paths, func(a, b string) int {
		if c := strings.Compare(filepath.Dir(a), filepath.Dir(b)); c != 0 {
			return c
		}
		if c := cmp.Compare(r.FileRank(a), r.FileRank(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

// walked is what walkTree found under a folder.
type walked struct {
	found    []string
	warnings []error
}

// walkTree lists the transcripts under dir, a folder of the walk of root,
// and the folders it could not read.
func (im *Importer) walkTree(root, dir string) walked {
	var w walked
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error { //nolint:errcheck // the callback returns no error
		if d != nil && d.IsDir() && path != dir && pruned(im.src, root, path) {
			return filepath.SkipDir
		}
		if err != nil {
			w.warnings = append(w.warnings, fmt.Errorf("%s: %w; skipped", path, unwrapPath(err)))
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && im.src.IsTranscript(path) {
			w.found = append(w.found, path)
		}
		return nil
	})
	return w
}

// pruned reports whether the walk of root for src's transcripts leaves
// out the folder at path (source.Pruner).
func pruned(src source.Source, root, path string) bool {
	p, ok := src.(source.Pruner)
	if !ok || path == root {
		return false
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false
	}
	return p.Prune(root, path, strings.Count(rel, string(filepath.Separator))+1)
}

func (im *Importer) warn(err error) {
	if im.Warn != nil {
		im.Warn(err)
	}
}

func (im *Importer) now() time.Time {
	if im.Now != nil {
		return im.Now()
	}
	return time.Now()
}

func (im *Importer) settle() time.Duration {
	if im.Settle > 0 {
		return im.Settle
	}
	return DefaultSettle
}

// unwrapPath drops a *fs.PathError's path, which the caller's message
// names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
