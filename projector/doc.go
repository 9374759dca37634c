// Package projector owns the index: .tape/index.db, a SQLite database
// derived from the tape files and nothing else. It catches up
// incrementally (per-file checkpoints, only new complete lines are read),
// rebuilds from nothing on demand, and answers the read commands' queries:
// entries in tape order, anchors, full-text search (FTS5) and bad lines.
// It also measures itself against the files without writing: the lag
// (bytes past its checkpoints) for `tape info`, and drift (rows that
// disagree with the bytes it has read) for `tape doctor`.
//
// The index is disposable. Delete index.db at any moment and the next
// command rebuilds it with the same answers; an index of an older schema,
// or one SQLite cannot read, is rebuilt the same way.
//
// # Concurrency
//
// One process writes the index at a time: a pass (catch-up or rebuild)
// holds an flock of .tape/index.lock, whose content names the holder for
// the error messages of those who wait. Readers need no lock: SQLite's WAL
// gives each query a snapshot, and a pass commits its rows and their
// checkpoints in one transaction, so nobody sees half a pass. A full rebuild
// deletes and re-inserts rows inside one transaction of the same database;
// it never unlinks or renames a database file that another process may
// have open (that would split the database from its WAL and corrupt it).
package projector
