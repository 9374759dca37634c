package importer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// Follower mirrors transcripts into tapes as agents write them: it watches
// the folders of each source with inotify and imports a transcript soon
// after it changes, through the same Importer as `tape import`, so a line
// it mirrors is the entry an import would make, with the same id. A
// transcript the agent deletes later stays on its tape.
type Follower struct {
	WS *tapelog.Workspace
	// Dirs are the folders to follow, by source (the sources' default
	// folders, and the roots WS's config.json names for them, when a
	// source has none here). A folder that does not exist
	// yet is looked for again at every Reconcile.
	Dirs map[source.Source][]string
	// Debounce is how long a burst of writes is let run before the
	// transcripts it touched are imported (default 50 ms).
	Debounce time.Duration
	// Reconcile is how often every followed folder is imported whole,
	// whatever the events said (default 30 s): what inotify cannot tell
	// (a folder it could not watch) is found then.
	Reconcile time.Duration
	// Settle is the importers' (DefaultSettle when zero): a turn at the
	// end of a transcript is imported once the file has been quiet that
	// long, and the follower looks again then.
	Settle time.Duration
	// OnImport is told what each import did; Warn gets bad lines and
	// transcripts that could not be read. Either may be nil.
	OnImport func(f source.Source, stats []FileStats, err error)
	Warn     func(error)
}

// followState is what Run keeps: only its goroutine touches it.
type followState struct {
	watcher *fsnotify.Watcher
	watched map[string]bool            // folders with a watch
	owner   map[string]source.Source   // a followed root -> its source
	dirty   map[source.Source][]string // transcripts changed since the last import
	held    map[source.Source][]string // transcripts whose last turn waits to be quiet
	stores  map[string]bool            // a *.db file changed -> whether it is a database source's (storeOf)
}

// Run follows until ctx is done; it returns nil then. It imports every
// followed folder first, so what was written while nobody followed comes
// in too.
func (f *Follower) Run(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("follow transcripts: %w", err)
	}
	defer w.Close()
	st := &followState{watcher: w, watched: map[string]bool{}, owner: map[string]source.Source{},
		dirty: map[source.Source][]string{}, held: map[source.Source][]string{}, stores: map[string]bool{}}
	f.reconcile(ctx, st)
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	// The settle timer runs from when a held turn was first seen, and is
	// not pushed back by events of other transcripts.
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	settleArmed := false
	reconcile := time.NewTicker(orDefault(f.Reconcile, 30*time.Second))
	defer reconcile.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if f.event(st, ev) {
				debounce.Reset(orDefault(f.Debounce, 50*time.Millisecond))
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			f.warn(fmt.Errorf("follow transcripts: %w; looking at every folder again", err))
			f.reconcile(ctx, st)
		case <-debounce.C:
			f.importDirty(ctx, st)
		case <-settle.C:
			settleArmed = false
			for src, files := range st.held {
				st.dirty[src] = append(st.dirty[src], files...)
			}
			clear(st.held)
			f.importDirty(ctx, st)
		case <-reconcile.C:
			f.reconcile(ctx, st)
		}
		if len(st.held) > 0 && !settleArmed {
			settle.Reset(orDefault(f.Settle, DefaultSettle) + 50*time.Millisecond)
			settleArmed = true
		}
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func (f *Follower) warn(err error) {
	if f.Warn != nil {
		f.Warn(err)
	}
}

// roots are the followed folders of a source.
func (f *Follower) roots(src source.Source) []string {
	if dirs := f.Dirs[src]; len(dirs) > 0 {
		return dirs
	}
	var cfg tapelog.Config
	if f.WS != nil {
		cfg = f.WS.Config()
	}
	return DirsIn(src, cfg)
}

// reconcile watches every followed folder that exists and imports it whole.
func (f *Follower) reconcile(ctx context.Context, st *followState) {
	for src := range f.Dirs {
		var present []string
		for _, root := range f.roots(src) {
			if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
				continue
			}
			st.owner[root] = src
			f.watchTree(st, root, root, nil) // the import below reads it whole
			present = append(present, root)
		}
		f.watchStores(st, src, present)
		if len(present) > 0 {
			f.run(ctx, st, src, present)
		}
	}
}

// watchStores watches the folder of each database of a database source
// that lies outside the followed roots (a project's .crush folder, which
// Crush's projects.json in a followed folder names): a write to it, or to
// its WAL, is then seen as it happens, not at the next reconcile.
func (f *Follower) watchStores(st *followState, src source.Source, roots []string) {
	store, ok := src.(source.Store)
	if !ok {
		return
	}
	for _, root := range roots {
		for _, db := range store.Stores(root) {
			dir := filepath.Dir(db)
			if under(dir, roots) || st.watched[dir] {
				continue
			}
			if err := st.watcher.Add(dir); err != nil {
				f.warn(fmt.Errorf("follow %s: %w", dir, err))
				continue
			}
			st.watched[dir], st.owner[dir] = true, src
		}
	}
}

// watchTree adds a watch on dir, a folder of the followed root, and every
// folder under it that a walk of root goes into (source.Pruner), and
// hands each file in them to file, if it is not nil. dir is followed if
// it is a symbolic link to a folder, as Importer.walk follows it; links
// under it are not.
func (f *Follower) watchTree(st *followState, root, dir string, file func(path string)) {
	src := st.owner[root]
	visit := func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && file != nil {
			file(path)
		}
		if err != nil || !d.IsDir() || st.watched[path] {
			return nil // unreadable: the next reconcile tries again
		}
		if pruned(src, root, path) {
			return filepath.SkipDir
		}
		if err := st.watcher.Add(path); err != nil {
			f.warn(fmt.Errorf("follow %s: %w", path, err))
			return filepath.SkipDir
		}
		st.watched[path] = true
		return nil
	}
	fi, err := os.Stat(dir) // not WalkDir's lstat: a linked folder is one
	if err != nil || !fi.IsDir() || visit(dir, fs.FileInfoToDirEntry(fi), nil) != nil {
		return
	}
	entries, _ := os.ReadDir(dir) // unreadable: the next reconcile tries again
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if e.IsDir() {
			_ = filepath.WalkDir(path, visit)
		} else {
			_ = visit(path, e, nil)
		}
	}
}

// event notes a transcript that changed, and watches a new folder (with
// what was made in it before the watch, which a reconcile would find
// later: imported now). It reports whether an import is due.
func (f *Follower) event(st *followState, ev fsnotify.Event) bool {
	root, src := st.rootOf(ev.Name)
	if src == nil {
		return false
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
			f.watchTree(st, root, ev.Name, func(path string) {
				if src.IsTranscript(path) {
					st.dirty[src] = append(st.dirty[src], path)
				}
			})
			return true
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		delete(st.watched, ev.Name)
		return false // what was imported stays
	}
	if !(ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create)) {
		return false
	}
	if db := st.storeOf(src, ev.Name); db != "" {
		st.dirty[src] = append(st.dirty[src], db) // imported through its mirror
		return true
	}
	if !src.IsTranscript(ev.Name) {
		return false
	}
	st.dirty[src] = append(st.dirty[src], ev.Name)
	return true
}

// rootOf is the followed root a path is under, and its source.
func (st *followState) rootOf(path string) (string, source.Source) {
	for root, src := range st.owner {
		if under(path, []string{root}) {
			return root, src
		}
	}
	return "", nil
}

// importDirty imports the transcripts that changed.
func (f *Follower) importDirty(ctx context.Context, st *followState) {
	for src, files := range st.dirty {
		sortTranscripts(src, files)
		var present []string
		for _, p := range slices.Compact(files) {
			if _, err := os.Stat(p); err == nil {
				present = append(present, p) // one deleted since is on its tape already
			}
		}
		if len(present) > 0 {
			f.run(ctx, st, src, present)
		}
	}
	clear(st.dirty)
}

// run imports paths of a source, and notes the transcripts whose last turn
// waits for the file to be quiet.
func (f *Follower) run(ctx context.Context, st *followState, src source.Source, paths []string) {
	im := New(f.WS, src)
	im.Settle, im.Warn = f.Settle, f.Warn
	stats, err := im.Import(ctx, paths)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return
	}
	for _, s := range stats {
		if s.Held > 0 {
			st.held[src] = append(st.held[src], s.File)
		}
	}
	if f.OnImport != nil {
		f.OnImport(src, stats, err)
	}
}

// storeOf is the database that a change to path (the database, or its
// write-ahead log) is a change of, when src keeps its sessions in one;
// else "". Whether a *.db or *.vscdb file (Cursor's state.vscdb) is one
// of src's is asked of its Stores once per file: a database's WAL is
// written many times a second while its agent streams a reply, and Stores
// may walk a folder (Crush's).
func (st *followState) storeOf(src source.Source, path string) string {
	store, ok := src.(source.Store)
	db := strings.TrimSuffix(path, "-wal")
	if !ok || !strings.HasSuffix(db, ".db") && !strings.HasSuffix(db, ".vscdb") { // Cursor's: state.vscdb
		return ""
	}
	is, known := st.stores[db]
	if !known {
		is = slices.Contains(store.Stores(filepath.Dir(db)), db)
		st.stores[db] = is
	}
	if is {
		return db
	}
	return ""
}
