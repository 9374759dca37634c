// Package fresh owns freshness: the rule that a read of the index sees
// what was on disk when it asked, and the watcher that makes that rule
// cost a millisecond instead of a stat of every file. It works over an
// open *projector.Projector, which owns the index itself (opening it, its
// passes, its reads, its generation, its lock); this package decides
// when a pass runs and who runs it.
//
// A read first makes the index fresh by one rule (decision 0053; Freshen
// and Read, which were projector.Freshen and projector.ReadFresh before
// issue 30 moved them here): it syncs with a running `tape watch` through
// a barrier file (SyncWatcher, decision 0028); if none runs, it has one
// started in the background for the reads to come (Reading.StartWatcher,
// decision 0056) and catches up itself. With no watcher, Read runs its
// query beside the catch-up and keeps the answer if nothing changed the
// index meanwhile (decision 0029). Another process holding the index too
// long, or a full disk, is a warning (Reading.Stale): the read answers
// from the index as it stands. A watcher answers a barrier only for the
// index the reader has open, the generation the barrier names, after
// looking at every folder it has no inotify watch on (decision 0068). A
// long-running server (tape mcp, tape serve) shares one index among its
// requests, each read made fresh by the same rule (Served).
//
// It also measures the index against the files, without writing either:
// the lag (Lag, WorkspaceLag: the bytes past the index's checkpoints,
// which tape info shows and the next read catches up with), and, for
// tape doctor (Doctor), the drift (what the index holds of a file's
// bytes up to its checkpoint that those bytes do not hold, or of a file
// or anchor folder that is gone), a killed build's scratch files, and the
// lag of an index a watcher answered it had caught up (index_lag). Both
// moved here from projector with issue 30: they are about what the index
// has not seen, as freshness is, and the watcher's answer is this
// package's to ask.
//
// # Files
//
//   - fresh.go: the rule, Reading, Freshen and Read.
//   - sync.go: the barrier by which a reader syncs with a watcher, both
//     sides of it, and the stale barriers a watcher clears.
//   - watch.go: the fsnotify watcher: its watches, its loop, its passes
//     scoped to the folders its events named (decision 0027, through
//     projector.Changes), the reconciliation that is its safety net.
//   - takeover.go: an explicit watcher's takeover from one a read started
//     on demand (decision 0068).
//   - watchlock.go: watch.lock, which one watcher per workspace holds and
//     names itself in (a fileutil.HolderLock, as the index's lock is);
//     Watching, for tape info.
//   - served.go: the index a long-running server shares (Served).
//   - lag.go: the lag of a tape's files, or a workspace's (TapeBytes).
//   - doctor.go: tape doctor's check of the index against the files
//     (Diagnosis), after asking a watcher to catch up; the drift and
//     index_lag problems.
//
// # Which way the arrow points
//
// fresh imports projector, never the other way. projector knows nothing
// of watchers, barriers or watch.lock: it exports what a watcher needs of
// the index (a catch-up scoped to a set of changes, whether index.db was
// replaced since it was opened, its generation, the removal of a killed
// build's scratch files), and the queries of its own tables that the lag
// and the drift are measured with (EachFileRead, Checkpoints,
// AnchorFolders, KilledBuilds); the files they are measured against are
// read here, through package log.
package fresh
