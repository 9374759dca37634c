// Package fileutil owns the few file-system operations whose details decide
// whether data survives a crash or a concurrent writer: the atomic rewrite of
// a small file (temp file, fsync, rename, fsync the folder), fsync of a
// folder, and advisory flock(2) locks.
//
// Every function takes an *os.Root so that no caller can reach outside the
// workspace, whatever names it is handed.
package fileutil
