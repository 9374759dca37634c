// Package fts5 owns tape's search index built beside: FTS5 built in parts
// in scratch databases, joined into index.db by rewriting two of FTS5's
// own records, and the check that the SQLite linked in writes those
// records as the join expects. It is the one place that knows SQLite's
// internal formats: nothing else in tape reads or writes FTS5's records.
//
// # Use
//
// A pass that starts from an empty index (package projector's passOnce)
// does, holding the index lock:
//
//	fts5.RemoveBuilds(dir)                // what a killed pass left
//	b, err := fts5.NewBuild(dir, fts5.DefaultParts(), fts5.DefaultBlock)
//	defer b.Close()                       // stops the builders, removes the files
//	b.Attach(ctx, conn)                   // before the pass's transaction begins
//	b.Add(ctx, rowid, text, parts)        // for each entry, in rowid order
//	b.Remove(ctx, rowids)                 // for entries removed in the pass
//	built, err := b.Finish(ctx)
//	if b.Joins() { err = fts5.CheckJoin(ctx, nil) } // once per process
//	if built { err = b.CopyInto(ctx, tx) }           // then commit
//
// If NewBuild, CheckJoin or CopyInto fails, the caller writes the search
// index in place instead, the plain way, which depends on nothing here.
// Schema is entries_fts's definition, the same in index.db and in every
// build. BuildsLeft names the scratch files a killed pass left, for
// doctor and for readers that must not trust a state record beside them.
//
// # Files
//
// A build of n parts is made in the workspace's .tape folder, in
// index-build.db (part 0) and index-build-k.db (part k), created private
// (mode 0600: they hold the tapes' words) and removed by Close; the
// journal is off, for nothing in them needs to survive a crash. build.go
// fills them, one goroutine a part; join.go copies them into index.db;
// record.go reads and writes the structure and averages records;
// check.go is the check; scratch.go names, creates and removes the files.
//
// # What the join buys
//
// Two builders on two cores instead of one: a rebuild of 1M entries in
// 44.10 s instead of 53.65 s, one run of each binary (one builder at
// ef4f441, and the join) in one loop, 2026-11-22, with `bin/tape-bench
// rebuild -dir /tmp/c1m -tape BIN` on the corpus of `bin/tape-bench gen
// -entries 1000000 -out /tmp/c1m` (the table is in git: `git show
// 809b766:BENCHMARKS.md`; docs/decisions/0023). The rebuild's rate today,
// against native SQLite, is in BENCHMARKS.md's "Current figures". Its
// benchmarks: BenchmarkRebuild (package projector, `go test ./projector
// -run '^$' -bench Rebuild`, beside against in place) measures what the
// build and the join buy; BenchmarkFTSJoinCheck (`go test ./internal/fts5
// -run '^$' -bench FTSJoinCheck`) what the check costs.
//
// # What it depends on
//
// The formats of those records and of the rowids of %_data, from
// ext/fts5/fts5_index.c of SQLite 3.54.1 as modernc.org/sqlite v1.61.1
// bundles it (go.mod). They are SQLite's internals, not its interface.
// When SQLite changes them, CheckJoin (a tiny index joined against the
// same built in place, and these records decoded and encoded back) fails,
// and the pass runs again writing the search index in place, slower but
// depending on nothing here (package projector: errCopyBuild, passOn;
// Stats.SearchInPlace says why; docs/decisions/0055). So does a change the
// check misses but the decoder refuses.
//
// An index is a list of levels, each a list of segments, oldest first. A
// segment is a b-tree of pages in %_data, under rowids that carry its id
// (fts5DataRowid). Two indexes whose rows (documents) are disjoint join
// into one by giving the second's segments ids the first does not use and
// listing them at the same levels: a query reads every segment anyway, and
// no row is in two segments, so no segment needs to shadow another.
package fts5
