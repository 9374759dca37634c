package fileutil

import (
	"errors"

	"golang.org/x/sys/unix"
)

func renameNoReplace(dirfd int, from, to string) error {
	for {
		err := unix.Renameat2(dirfd, from, dirfd, to, unix.RENAME_NOREPLACE)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
			return ErrNoReplaceUnsupported // a file system without the flag
		}
		return err
	}
}
