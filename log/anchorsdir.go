package log

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"time"

	"golang.org/x/sys/unix"
)

// AnchorsDir is a tape's anchors folder held open, to describe the files
// of its anchor folders with stat(2) calls relative to it. The kernel
// resolves each name of a path: two for "003_plan/messages.jsonl" against
// nine for the absolute path, and a catch-up that finds nothing to do is
// little else than one stat per file (half its time went to these walks).
//
// Like QuickStat it reads metadata only. It describes the folder as it was
// when opened: a reset that replaces the anchors folder meanwhile is seen
// by the next one opened.
type AnchorsDir struct {
	t    *Tape
	dir  *os.File
	fd   int    // dir's descriptor
	path string // relative to the workspace, for errors
}

// OpenAnchors opens the tape's anchors folder, through the workspace's
// root, so a symlink that leads out of the workspace is refused as it is
// everywhere else, and without blocking on a FIFO of that name.
func (t *Tape) OpenAnchors() (*AnchorsDir, error) {
	f, err := t.ws.openDir(t.anchorsPath())
	if err != nil {
		return nil, fmt.Errorf("open anchors of tape %s: %w", t.name, err)
	}
	dir, fd, err := t.ws.plainDir(f, t.anchorsPath())
	if err != nil {
		return nil, fmt.Errorf("open anchors of tape %s: %w", t.name, err)
	}
	return &AnchorsDir{t: t, dir: dir, fd: fd, path: t.anchorsPath()}, nil
}

// plainDir turns f, a folder opened through the root (openDir), into a
// plain file of the same descriptor, and closes f: a listing of a file
// opened through a root stats every name, and a plain one uses the types
// the listing gives. Only names and types may be read of its listing:
// the information of an entry would be read by path, past the root.
func (w *Workspace) plainDir(f *os.File, rel string) (*os.File, int, error) {
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, 0, err
	}
	return os.NewFile(uintptr(fd), w.Abs(rel)), fd, nil
}

// List lists the anchor folders in tape order, as Tape.Folders does, from
// the open folder, and reports whether it holds a symlink: a symlink's
// target changes without the anchors folder, so a listing of one cannot
// be kept (see Identity).
func (d *AnchorsDir) List() (folders []Folder, links bool, err error) {
	if _, err := d.dir.Seek(0, io.SeekStart); err != nil {
		return nil, false, fmt.Errorf("list anchors of tape %s: %w", d.t.name, err)
	}
	dirents, err := d.dir.ReadDir(-1)
	if err != nil {
		return nil, false, fmt.Errorf("list anchors of tape %s: %w", d.t.name, err)
	}
	for _, e := range dirents {
		if e.Type()&fs.ModeSymlink != 0 {
			links = true
			break
		}
	}
	return d.t.folders(dirents), links, nil
}

// Identity describes the open anchors folder itself: its mtime changes
// when a folder is added to it, removed or renamed, its ctime with that
// and with its mode, and its inode when it is replaced. A caller that
// kept a listing made well after the mtime of an identity it sees again
// knows the listing still holds, without making it (see racyWindow).
func (d *AnchorsDir) Identity() (FileInfo, error) {
	return d.Stat(".", "") // fstatat of "." on the open folder: the folder itself
}

// Stat describes the file name of an anchor folder, or the folder itself
// for name "", as QuickStat does.
func (d *AnchorsDir) Stat(folder, name string) (FileInfo, error) {
	var st unix.Stat_t
	if err := statJoined(d.fd, &st, 0, d.path, folder, name); err != nil {
		return FileInfo{}, err
	}
	return statInfo(&st, folder, name)
}

// statInfo is the FileInfo of st, the stat of the file name of an anchor
// folder, or of the folder itself for name "".
func statInfo(st *unix.Stat_t, folder, name string) (FileInfo, error) {
	info := FileInfo{Name: name, Size: st.Size, ModTime: time.Unix(st.Mtim.Unix()), ChangeNS: st.Ctim.Nano(), Dev: uint64(st.Dev), Ino: st.Ino}
	if name == "" {
		info.Name, info.Size = folder, 0
		return info, nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return FileInfo{}, fmt.Errorf("%s: %w", name, ErrNotRegular)
	}
	return info, nil
}

// statJoined is fstatat(2), relative to the folder open as fd, of the
// path that names make joined by "/" (an empty name is left out); again
// when interrupted. base, the path of the folder in the workspace, only
// goes into an error. The path is built on the stack when it is short:
// a catch-up of 10,000 tapes with nothing to do is 60,000 stats, and
// building each path, then copying it for the system call, was half of
// what it allocated and a tenth of its CPU (BenchmarkCatchUpManyTapes in
// package projector).
func statJoined(fd int, st *unix.Stat_t, flags int, base string, names ...string) error {
	var buf [256]byte
	b := joinNames(buf[:0], names)
	if err := fstatatRetry(fd, b, st, flags); err != nil {
		return &fs.PathError{Op: "stat", Path: path.Join(base, string(b[:len(b)-1])), Err: err}
	}
	return nil
}

// joinNames appends names joined by "/" (an empty name left out) and a
// NUL to b: a path for fstatatBytes.
func joinNames(b []byte, names []string) []byte {
	for _, name := range names {
		if name == "" {
			continue
		}
		if len(b) > 0 {
			b = append(b, '/')
		}
		b = append(b, name...)
	}
	return append(b, 0)
}

// fstatatRetry is fstatatBytes again when interrupted; its error is the
// errno itself, which a caller that only asks whether the name exists
// compares without the allocation of a PathError.
func fstatatRetry(fd int, b []byte, st *unix.Stat_t, flags int) error {
	for {
		if err := fstatatBytes(fd, b, st, flags); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// Close closes the folder.
func (d *AnchorsDir) Close() error {
	if err := d.dir.Close(); err != nil {
		return fmt.Errorf("close %s: %w", d.path, err)
	}
	return nil
}

// TapesDir is the tapes folder held open, to list the tapes and to
// describe their anchors folders, the anchor folders in them and their
// files with one stat(2) each relative to it, without opening anything
// per tape: in a workspace of 10,000 small tapes, a catch-up that finds
// nothing to do opened, duplicated and closed each tape's anchors folder
// (eight system calls) to stat five files in it. Like AnchorsDir it reads
// metadata only, never content, which goes through the root.
//
// The kernel resolves the names of a path relative to it: the tape's
// folder, listed as a folder (Names), and its anchors folder, which
// AnchorsIdentity describes without following a symlink, so a caller that
// compares the identity with one it kept knows it describes the same
// folder as before.
type TapesDir struct {
	ws  *Workspace
	dir *os.File
	fd  int
}

// OpenTapes opens the tapes folder, through the workspace's root, as Tapes
// does. It fails with an error wrapping fs.ErrNotExist in a workspace
// without tapes.
func (w *Workspace) OpenTapes() (*TapesDir, error) {
	f, err := w.openDir(tapesDir)
	if err != nil {
		return nil, fmt.Errorf("list tapes: %w", err)
	}
	dir, fd, err := w.plainDir(f, tapesDir)
	if err != nil {
		return nil, fmt.Errorf("list tapes: %w", err)
	}
	return &TapesDir{ws: w, dir: dir, fd: fd}, nil
}

// Names lists the names of the tapes, sorted, as Tapes does.
func (d *TapesDir) Names() ([]string, error) {
	dirents, err := d.list()
	if err != nil {
		return nil, err
	}
	return tapeNames(dirents), nil
}

// list lists the tapes folder, in no order, with the types the listing
// gives: only names and types may be read of it (see plainDir).
func (d *TapesDir) list() ([]fs.DirEntry, error) {
	if _, err := d.dir.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("list tapes: %w", err)
	}
	dirents, err := d.dir.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("list tapes: %w", err)
	}
	return dirents, nil
}

// AnchorsIdentity describes the anchors folder of tape as
// AnchorsDir.Identity does, with one stat(2) of its path that does not
// follow a symlink there: it fails with ErrNotFolder if the name is not
// a folder (a symlink, say), which AnchorsDir, opened through the root,
// would follow or refuse.
func (d *TapesDir) AnchorsIdentity(tape string) (FileInfo, error) {
	var st unix.Stat_t
	if err := statJoined(d.fd, &st, unix.AT_SYMLINK_NOFOLLOW, tapesDir, tape, anchorsDir); err != nil {
		return FileInfo{}, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return FileInfo{}, fmt.Errorf("%s/%s/%s: %w", tapesDir, tape, anchorsDir, ErrNotFolder)
	}
	return statInfo(&st, ".", "")
}

// ErrNotFolder says a name that should be a folder is not one.
var ErrNotFolder = errors.New("log: not a folder")

// Stat describes the file name of an anchor folder of tape, or the folder
// itself for name "", as AnchorsDir.Stat does.
func (d *TapesDir) Stat(tape, folder, name string) (FileInfo, error) {
	var st unix.Stat_t
	if err := statJoined(d.fd, &st, 0, tapesDir, tape, anchorsDir, folder, name); err != nil {
		return FileInfo{}, err
	}
	return statInfo(&st, folder, name)
}

// Close closes the folder.
func (d *TapesDir) Close() error {
	if err := d.dir.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tapesDir, err)
	}
	return nil
}
