package log

import "golang.org/x/sys/unix"

// CountForks is Workspace.CountForks, with one stat(2) relative to the
// tapes folder for a tape that has no forks folder, as most have none:
// a listing of every tape counts the forks of each, and through the root
// that was an open(2) of each name on the path and their close(2) calls,
// five system calls a tape, none of which reads a fork. The stat only
// says there is nothing to count; a forks folder found, or any error but
// its absence, is counted by Workspace.CountForks, through the root.
func (d *TapesDir) CountForks(tape string) int {
	if ValidateTapeName(tape) != nil {
		return 0
	}
	var buf [256]byte
	var st unix.Stat_t
	if fstatatRetry(d.fd, joinNames(buf[:0], []string{tape, forksDir}), &st, unix.AT_SYMLINK_NOFOLLOW) == unix.ENOENT {
		return 0 // the errno itself: statJoined's error, a path joined, was an allocation a tape
	}
	return d.ws.CountForks(tape)
}
