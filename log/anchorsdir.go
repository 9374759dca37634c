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
	defer f.Close()
	// A copy of the descriptor as a plain file: a listing of a file opened
	// through a root stats every name, and a plain one uses the types the
	// listing gives.
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open anchors of tape %s: %w", t.name, err)
	}
	dir := os.NewFile(uintptr(fd), t.ws.Abs(t.anchorsPath()))
	return &AnchorsDir{t: t, dir: dir, fd: fd, path: t.anchorsPath()}, nil
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
	rel := folder
	if name != "" {
		rel = folder + "/" + name
	}
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, rel, &st, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return FileInfo{}, &fs.PathError{Op: "stat", Path: path.Join(d.path, rel), Err: err}
		}
		break
	}
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

// Close closes the folder.
func (d *AnchorsDir) Close() error {
	if err := d.dir.Close(); err != nil {
		return fmt.Errorf("close %s: %w", d.path, err)
	}
	return nil
}
