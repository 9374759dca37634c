package log

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tape-dev/tape/internal/fileutil"
)

// Names inside a workspace.
const (
	// DirName is the workspace folder that Find looks for.
	DirName    = ".tape"
	configFile = "config.json"
	tapesDir   = "tapes"
	anchorsDir = "anchors"

	dirPerm  = 0o700 // tapes hold tool output, and tool output holds secrets
	filePerm = 0o600
)

// ErrNoWorkspace is returned by Find when no .tape folder is found.
var ErrNoWorkspace = errors.New("log: not in a tape workspace")

// Workspace is an open .tape folder. All file access goes through an
// os.Root, so no name handed to it, and no symlink inside it, can make it
// read or write outside the folder.
type Workspace struct {
	dir    string   // absolute path of the .tape folder
	root   *os.Root // the .tape folder
	config Config
	ids    *idSource
	// onSync, when set (by tests), is told of every fsync, by path.
	onSync func(rel string)
	// deferSyncs is set while a writer that makes many tapes at once has
	// asked for one sync at its end instead (DeferSyncs); skipped says a
	// sync was skipped since the last SyncDeferred.
	deferSyncs, skipped atomic.Bool
	// sweptTapeTemps says a Builder has removed the temporary tape
	// folders that killed Builders left (sweepTapeTemps).
	sweptTapeTemps atomic.Bool
}

// DeferSyncs makes the new folders and the handoffs of this Workspace
// skip their fsyncs until done is called, which makes everything written
// durable at once with one syncfs(2) of the file system that holds the
// workspace. It is for a writer that makes many tapes at once and can
// make them again after a crash (an import, whose ids are functions of
// its sources): creating a tape costs five fsyncs, a first import of
// 1,700 sessions made 9,000 of them (BenchmarkImportClaude). Appends keep
// their own durability (sync in config.json). After a crash before done,
// an anchor.json may be empty: doctor reports it, and the folder reads as
// an anchor named by its slug.
//
// Only one writer of a Workspace may defer its syncs: they are the
// Workspace's, not the goroutine's.
func (w *Workspace) DeferSyncs() (done func() error) {
	w.deferSyncs.Store(true)
	return func() error {
		err := w.SyncDeferred()
		w.deferSyncs.Store(false)
		return err
	}
}

// SyncDeferred makes what was written with deferred syncs durable now, if
// a sync was skipped since it last ran: a writer that records its progress
// elsewhere (an import's checkpoints) calls it first.
func (w *Workspace) SyncDeferred() error {
	if !w.skipped.Swap(false) {
		return nil
	}
	d, err := w.root.Open(".")
	if err != nil {
		return fmt.Errorf("sync %s: %w", w.dir, err)
	}
	defer d.Close()
	if err := unix.Syncfs(int(d.Fd())); err != nil {
		return fmt.Errorf("sync %s: %w", w.dir, err)
	}
	return nil
}

// deferring reports whether syncs are deferred, and notes that one was.
func (w *Workspace) deferring() bool {
	if w.deferSyncs.Load() {
		w.skipped.Store(true)
		return true
	}
	return false
}

// syncDir fsyncs the workspace folder rel, unless syncs are deferred.
func (w *Workspace) syncDir(rel string) error {
	if w.deferring() {
		return nil
	}
	if err := fileutil.SyncDir(w.root, rel); err != nil {
		return err
	}
	w.synced(rel)
	return nil
}

func (w *Workspace) synced(rel string) {
	if w.onSync != nil {
		w.onSync(rel)
	}
}

// Init creates a workspace in the folder dir (dir/.tape, with config.json and
// the default tape), or opens the one that is there. It reports whether it
// created anything.
func Init(dir string) (ws *Workspace, created bool, err error) {
	ws, created, err = Create(dir)
	if err != nil {
		return nil, false, err
	}
	t, err := ws.Tape(ws.config.DefaultTape)
	if err != nil {
		ws.Close()
		return nil, false, err
	}
	made, err := t.ensure(context.Background())
	if err != nil {
		ws.Close()
		return nil, false, err
	}
	return ws, created || made, nil
}

// Create creates a workspace in the folder dir (dir/.tape, with
// config.json) without any tape, or opens the one that is there: what an
// import makes, each session a tape of its own. It reports whether it
// created anything.
func Create(dir string) (ws *Workspace, created bool, err error) {
	tapeDir := filepath.Join(dir, DirName)
	if err := os.Mkdir(tapeDir, dirPerm); err == nil {
		created = true
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, false, fmt.Errorf("create workspace: %w", err)
	}
	ws, err = Open(tapeDir)
	if err != nil {
		return nil, false, err
	}
	if _, err := ws.root.Stat(configFile); errors.Is(err, fs.ErrNotExist) {
		if err := ws.SaveConfig(ws.config); err != nil {
			ws.Close()
			return nil, false, err
		}
		created = true
	}
	return ws, created, nil
}

// Open opens the workspace whose .tape folder is tapeDir. config.json is
// optional: a folder made by hand with mkdir is a workspace.
func Open(tapeDir string) (*Workspace, error) {
	abs, err := filepath.Abs(tapeDir)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", tapeDir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open workspace: %s is not a folder", abs)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	ws := &Workspace{dir: abs, root: root, ids: newIDSource()}
	if ws.config, err = ws.loadConfig(); err != nil {
		root.Close()
		return nil, err
	}
	return ws, nil
}

// Find walks up from the folder start to the nearest folder that holds a
// .tape folder, as git looks for .git, and opens that workspace.
func Find(start string) (*Workspace, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return nil, fmt.Errorf("find workspace: %w", err)
	}
	for {
		candidate := filepath.Join(dir, DirName)
		if fi, err := os.Stat(candidate); err == nil && fi.IsDir() {
			return Open(candidate)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, fmt.Errorf("%w (searched from %s up to /)", ErrNoWorkspace, start)
		}
		dir = parent
	}
}

// Dir is the absolute path of the .tape folder.
func (w *Workspace) Dir() string { return w.dir }

// Config is the workspace's configuration, defaults filled in.
func (w *Workspace) Config() Config { return w.config }

// Close releases the workspace's folder handle.
func (w *Workspace) Close() error { return w.root.Close() }

// Tape returns the tape called name. The tape need not exist yet: the first
// Append or Handoff creates it. Close the tape when done appending: it keeps
// its current anchor folder open between appends.
func (w *Workspace) Tape(name string) (*Tape, error) {
	if err := ValidateTapeName(name); err != nil {
		return nil, err
	}
	return &Tape{ws: w, name: name, dir: tapesDir + "/" + name, Sync: w.config.Sync}, nil
}

// Tapes lists the names of the workspace's tapes, sorted.
func (w *Workspace) Tapes() ([]string, error) {
	d, err := w.OpenTapes()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Names()
}

// tapeNames is the names of the tapes in a listing of the tapes folder,
// sorted: its folders with a tape's name. A symlink is not a tape.
func tapeNames(dirents []fs.DirEntry) []string {
	var names []string
	for _, d := range dirents {
		if d.IsDir() && ValidateTapeName(d.Name()) == nil {
			names = append(names, d.Name())
		}
	}
	slices.Sort(names)
	return names
}

// Abs returns the path of a workspace file (slash-separated, relative to the
// .tape folder) as an absolute path.
func (w *Workspace) Abs(rel string) string {
	return filepath.Join(w.dir, filepath.FromSlash(rel))
}

// OpenPrivate opens the workspace file rel for reading and writing,
// creating it with mode 0600 if needed: for the files tape keeps beside the
// tapes (the index, its lock).
func (w *Workspace) OpenPrivate(rel string) (*os.File, error) {
	f, err := w.root.OpenFile(rel, os.O_RDWR|os.O_CREATE, filePerm)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", rel, err)
	}
	return f, nil
}

// AppendPrivate opens the workspace file rel to append to, creating it
// (and its folder) private to the owner: for a journal tape keeps beside
// the tapes, written a line at a time.
func (w *Workspace) AppendPrivate(rel string) (*os.File, error) {
	if err := w.mkdirAll(path.Dir(rel)); err != nil {
		return nil, err
	}
	f, err := w.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_APPEND, filePerm)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", rel, err)
	}
	return f, nil
}

// OpenRead opens the workspace file rel for reading only: for a file
// tape keeps beside the tapes that is decoded as it is read.
func (w *Workspace) OpenRead(rel string) (*os.File, error) {
	f, err := w.root.Open(rel)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", rel, err)
	}
	return f, nil
}

// MkdirPrivate creates the workspace folder rel (slash-separated) and its
// parents, private to the owner: for folders tape keeps beside the tapes.
func (w *Workspace) MkdirPrivate(rel string) error { return w.mkdirAll(rel) }

// CreatePrivate creates the workspace file rel with mode 0600 and opens it
// for writing; it fails if the file exists.
func (w *Workspace) CreatePrivate(rel string) (*os.File, error) {
	f, err := w.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, filePerm)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", rel, err)
	}
	return f, nil
}

// WriteExisting writes data at the end of the workspace file rel, which
// must exist: it is never created.
func (w *Workspace) WriteExisting(rel string, data []byte) error {
	f, err := w.root.OpenFile(rel, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", rel, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return f.Close()
}

// Remove removes the workspace file rel: only for the files tape keeps
// beside the tapes, never for a tape's own files.
func (w *Workspace) Remove(rel string) error {
	if err := w.root.Remove(rel); err != nil {
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	return nil
}

// openDir opens the workspace folder rel, through the root, to list it.
// It does not block: a FIFO at that name would hold an open until
// someone writes to it, and with it every command that lists the
// workspace (a catch-up, doctor). Not a folder, it fails with ENOTDIR.
func (w *Workspace) openDir(rel string) (*os.File, error) {
	return w.root.OpenFile(rel, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
}

// readDir lists the workspace folder rel sorted by name, as fs.ReadDir
// does, opened with openDir.
func (w *Workspace) readDir(rel string) ([]fs.DirEntry, error) {
	f, err := w.openDir(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dirents, err := f.ReadDir(-1)
	slices.SortFunc(dirents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return dirents, err
}

// ReadPrivate reads the workspace file rel, of at most max bytes.
func (w *Workspace) ReadPrivate(rel string, max int64) ([]byte, error) {
	f, err := w.OpenRead(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	return data, nil
}

// mkdirAll creates the folder rel and its parents with private
// permissions, and fsyncs the parent of each folder it creates, so that a
// new tape survives a crash like its first entry does.
func (w *Workspace) mkdirAll(rel string) error {
	parent := "."
	for _, part := range strings.Split(rel, "/") {
		dir := path.Join(parent, part)
		err := w.root.Mkdir(dir, dirPerm)
		switch {
		case err == nil:
			if err := w.syncDir(parent); err != nil {
				return err
			}
		case !errors.Is(err, fs.ErrExist):
			return fmt.Errorf("create folder %s: %w", dir, err)
		}
		parent = dir
	}
	return nil
}

func (w *Workspace) writeAtomic(rel string, data []byte) error {
	return fileutil.WriteFile(w.root, rel, data, filePerm)
}

// WritePrivate replaces the workspace file rel with data, atomically and
// private to the owner: for files tape keeps beside the tapes (an
// import's checkpoints), never for a tape's own files.
func (w *Workspace) WritePrivate(rel string, data []byte) error {
	if err := w.mkdirAll(path.Dir(rel)); err != nil {
		return err
	}
	return w.writeAtomic(rel, data)
}

// Project is the folder that holds the .tape folder: the project the agent
// works in.
func (w *Workspace) Project() string { return filepath.Dir(w.dir) }

func hasDotPrefix(name string) bool { return strings.HasPrefix(name, ".") }
