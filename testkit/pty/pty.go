// Package pty opens pseudo-terminals for the tests and tape-bench: a
// command that draws on a terminal (tape ui, a prompt, colors) run as a
// person runs it.
package pty

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Open opens a new pseudo-terminal of w columns and h rows and returns its
// two ends: the master, which the test reads the screen from and types
// into, and the slave, the command's terminal.
func Open(w, h int) (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	fail := func(what string, err error) (*os.File, *os.File, error) {
		master.Close()
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		return fail("unlock the pty", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		return fail("the pty's number", err)
	}
	if slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0); err != nil {
		return fail("open the pty", err)
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(h), Col: uint16(w)}); err != nil {
		slave.Close()
		return fail("size the pty", err)
	}
	return master, slave, nil
}
