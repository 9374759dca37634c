// Package projector owns the index: .tape/index.db, a SQLite database
// derived from the tape files and nothing else. It catches up
// incrementally (per-file checkpoints, only new complete lines are read),
// rebuilds from nothing on demand, and answers the read commands' queries:
// entries in tape order, anchors, full-text search (FTS5) and bad lines.
// Measuring it against the files, the lag for `tape info` and the drift
// for `tape doctor`, is package fresh's; the index answers the queries of
// its own tables those need.
//
// # Files, by concern
//
//   - The index: opening (the file through internal/sqlitefile), the
//     schema and its version, the lock, a fileutil.HolderLock
//     (projector.go, schema.go), and the views it keeps beside the
//     entries, listed in one place (views.go; package views says what a
//     view is).
//   - The catch-up pass: its entry points and the transaction it runs in
//     (catchup.go), the types its two sides share (pass.go), the walker
//     that reads the files and sends ops (walk.go lists tapes and folders,
//     walkfile.go reads a folder's files; scope.go) from what a
//     few goroutines find of the tapes and folders ahead of it (folders.go),
//     the applier that writes them (apply.go), the state record that lets
//     a pass tell in one read that nothing changed (staterecord.go), and
//     what a pass takes of each entry: search text and view facts from one
//     decode (views.TextAndFacts), tokenized for FTS5 (text.go, by
//     internal/searchlang).
//   - The search index built beside: a pass from an empty index builds
//     FTS5 in parts and joins them into index.db through package
//     internal/fts5, which owns the builders, the join that rewrites
//     FTS5's own records, and the check that this SQLite writes them as
//     the join expects; ftsbuild.go holds the Projector's side (making the
//     build, the check kept once per Projector, removing what a killed
//     pass left), and a pass whose build cannot be joined writes in place.
//   - Search: ranking (search.go) in the language of package
//     internal/searchlang (the query language, tokens, CJK bigrams,
//     snippets); a common word's newest matches across tapes by the
//     recency blocks (newest.go, views/recency), which follow time because
//     a pass reads new tapes in the order they started (walkorder.go, by
//     log's Tape.Started).
//   - What a watcher (package fresh) asks of the index: a catch-up
//     scoped to what its events named, and the removal of a killed
//     build's files (watched.go); the index's generation, which a
//     reader's barrier and the watcher both name, and whether index.db
//     was replaced since open (generation.go, docs/decisions/0068); a full
//     disk, on which a pass fails with ErrDiskFull (diskfull.go).
//     Freshness itself, the barrier, the watcher and the index a server
//     shares are package fresh's.
//   - Reads: entries, anchors (and the one after another, in tape
//     order), where an entry is, bad lines and a tape's chat messages in
//     tape order (read.go); each entry's line is read back, and checked
//     to be the one indexed, by log's EntryReader.
//   - What tape info and tape doctor ask of the index: its size, bad
//     lines and checkpoints (info.go), how far it has read each file and
//     the anchor folders it holds (export.go), and a killed build's
//     scratch files, named only while no pass runs (KilledBuilds,
//     ftsbuild.go).
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
