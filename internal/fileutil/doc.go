// Package fileutil owns the few file-system operations whose details decide
// whether data survives a crash or a concurrent writer: the atomic rewrite of
// a small file (temp file, fsync, rename, fsync the folder), fsync of a
// folder, advisory flock(2) locks (lock.go), and a lock file that names
// its holder, "pid <n>: <what>", for those who wait for it (HolderLock,
// holder.go: the index's lock and the watcher's).
//
// Every function that takes a name takes an *os.Root with it, so that no
// caller can reach outside the workspace, whatever names it is handed;
// the locks take a file their caller opened so.
package fileutil
