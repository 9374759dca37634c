package fileutil

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
)

// TempPrefix starts the name of every temporary file or folder that tape
// creates. Readers skip names that start with a dot, and `tape doctor` lists
// the ones a crash left behind.
const TempPrefix = ".tmp-"

// TempName returns a fresh temporary name in the folder dir (slash-separated,
// relative to a root), for a file or folder that will be renamed into place.
func TempName(dir string) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	return path.Join(dir, TempPrefix+hex.EncodeToString(b[:]))
}

// WriteFile replaces name inside root with data, atomically: readers see the
// old content or the new, never a mix, and after it returns the new content
// survives a crash. It writes a temporary file in the same folder, fsyncs it,
// renames it over name and fsyncs the folder.
func WriteFile(root *os.Root, name string, data []byte, perm os.FileMode) (err error) {
	dir := path.Dir(name)
	tmp := TempName(dir)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("create temp file for %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			_ = root.Remove(tmp) // best effort: the error already says what failed
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err = root.Rename(tmp, name); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp, name, err)
	}
	return SyncDir(root, dir)
}

// SyncDir fsyncs the folder dir inside root, so that a rename or a new entry
// in it is durable.
func SyncDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return fmt.Errorf("open folder %s: %w", dir, err)
	}
	serr := d.Sync()
	cerr := d.Close()
	if serr != nil {
		return fmt.Errorf("sync folder %s: %w", dir, serr)
	}
	if cerr != nil {
		return fmt.Errorf("close folder %s: %w", dir, cerr)
	}
	return nil
}

// WriteSynced writes data to a new file name inside root, fsyncs and closes
// it. It fails if name exists. It is for files inside a folder that is itself
// renamed into place afterwards, so the file needs no rename of its own.
func WriteSynced(root *os.Root, name string, data []byte, perm os.FileMode) error {
	return WriteNew(root, name, data, perm, true)
}

// WriteNew is WriteSynced, with the fsync only when sync is set.
func WriteNew(root *os.Root, name string, data []byte, perm os.FileMode, sync bool) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	_, werr := f.Write(data)
	var serr error
	if sync {
		serr = f.Sync()
	}
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
