//go:build !(linux && (amd64 || arm64 || riscv64))

package log

import "golang.org/x/sys/unix"

// fstatatBytes is fstatat(2) of path, NUL-terminated, relative to the
// folder open as fd.
func fstatatBytes(fd int, path []byte, st *unix.Stat_t, flags int) error {
	return unix.Fstatat(fd, string(path[:len(path)-1]), st, flags)
}
