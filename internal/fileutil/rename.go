package fileutil

import (
	"errors"
	"os"
)

// ErrNoReplaceUnsupported says RenameNoReplace cannot be done here: the
// system, or the file system, has no rename that refuses to replace.
var ErrNoReplaceUnsupported = errors.New("fileutil: no rename that refuses to replace")

// RenameNoReplace renames from to to, both relative to the folder dir,
// failing with an error matching fs.ErrExist if to exists (as a file, a
// folder, empty or not, or a symlink), atomically: rename(2) would
// replace an empty folder, which another writer may have just made and
// be about to write in.
func RenameNoReplace(dir *os.File, from, to string) error {
	rc, err := dir.SyscallConn()
	if err != nil {
		return err
	}
	var rerr error
	if err := rc.Control(func(fd uintptr) { rerr = renameNoReplace(int(fd), from, to) }); err != nil {
		return err
	}
	if rerr != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: rerr}
	}
	return nil
}
