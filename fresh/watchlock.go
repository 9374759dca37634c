package fresh

import (
	"github.com/tape-dev/tape/internal/fileutil"
	tapelog "github.com/tape-dev/tape/log"
)

// watchLockFile is the lock a running watcher holds, in the workspace
// folder; its content names the watcher, "pid <n>: tape watch", marked
// if a read started it (takeover.go).
const watchLockFile = "watch.lock"

// Watching reports whether a `tape watch` runs on the workspace, and its
// pid when the lock file names it (0 otherwise): what tape info shows.
func Watching(ws *tapelog.Workspace) (running bool, pid int) {
	if !watcherRunning(ws) {
		return false, 0
	}
	data, err := ws.ReadPrivate(watchLockFile, 128)
	if err != nil {
		return true, 0
	}
	return true, fileutil.HolderPID(string(data))
}

// watcherRunning reports whether a watcher holds watch.lock. It takes a
// shared lock for a moment; a watcher starting then waits it out (see
// Watcher.lock).
func watcherRunning(ws *tapelog.Workspace) bool {
	f, err := ws.OpenPrivate(watchLockFile)
	if err != nil {
		return false
	}
	defer f.Close()
	free, err := fileutil.TryLockShared(f)
	return err == nil && !free
}
