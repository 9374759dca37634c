//go:build linux && (amd64 || arm64 || riscv64)

package log

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstatatBytes is fstatat(2) of path, NUL-terminated, relative to the
// folder open as fd, without the copy of the path unix.Fstatat makes
// (see statJoined).
func fstatatBytes(fd int, path []byte, st *unix.Stat_t, flags int) error {
	_, _, e := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(fd), uintptr(unsafe.Pointer(&path[0])), uintptr(unsafe.Pointer(st)), uintptr(flags), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
