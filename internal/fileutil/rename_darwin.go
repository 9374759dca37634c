package fileutil

import (
	"errors"

	"golang.org/x/sys/unix"
)

func renameNoReplace(dirfd int, from, to string) error {
	err := unix.RenameatxNp(dirfd, from, dirfd, to, unix.RENAME_EXCL)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) {
		return ErrNoReplaceUnsupported
	}
	return err
}
