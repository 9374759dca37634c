// Package fts5 reads and writes the two records of FTS5's %_data table that
// describe an index as a whole, the structure record and the averages
// record, so that a rebuild can join indexes built in parts (package
// projector, ftsbuild.go) into one. The rest of an index, its segments, is copied as it is.
//
// What the join buys: two builders on two cores instead of one, a rebuild
// of 1M entries in 44.10 s instead of 53.65 s: one run of each binary
// (one builder at ef4f441, and the join) in one loop, 2026-11-22, with
// `bin/tape-bench rebuild -dir /tmp/c1m -tape BIN` on the corpus of
// `bin/tape-bench gen -entries 1000000 -out /tmp/c1m` (the table is in
// git: `git show 809b766:BENCHMARKS.md`; docs/decisions/0023). The
// rebuild's rate today, against native SQLite, is in BENCHMARKS.md's
// "Current figures".
//
// What it depends on: the formats of those records and of the rowids of
// %_data, from ext/fts5/fts5_index.c of SQLite 3.54.1 as modernc.org/sqlite
// v1.61.1 bundles it (go.mod). They are SQLite's internals, not its
// interface. When SQLite changes them, a Projector's check before its
// first join (projector's checkFTSJoin, ftsprobe.go: a tiny index joined against the
// same built in place, and these records decoded and encoded back) fails,
// and the pass runs again writing the search index in place, slower but
// depending on nothing here (errCopyBuild, passOn); Stats.SearchInPlace
// says why. So does a change the check misses but the decoder refuses.
//
// An index is a list of levels, each a list of segments, oldest first. A
// segment is a b-tree of pages in %_data, under rowids that carry its id
// (fts5DataRowid). Two indexes whose rows (documents) are disjoint join
// into one by giving the second's segments ids the first does not use and
// listing them at the same levels: a query reads every segment anyway, and
// no row is in two segments, so no segment needs to shadow another.
//
// It is the one place that knows those formats: nothing else in tape
// reads or writes FTS5's records. BenchmarkRebuild (package projector,
// `go test ./projector -run '^$' -bench Rebuild`) measures what the join
// buys.
package fts5
