// Package log owns the tape on disk: the workspace folder, the anchor
// folders and their JSONL files, which are the only source of truth of tape.
// It appends entries, hands off to new anchors, and reads a tape back in a
// deterministic order. Everything else (the SQLite index, search, views) is
// derived from what this package reads, and can be thrown away.
//
// # Using it
//
//	ws, err := log.Find(".")             // or log.Init(dir), log.Create(dir), log.Open(".tape")
//	t, err := ws.Tape("main")
//	e, err := t.Append(ctx, log.Entry{Kind: log.KindMessage, Payload: msg})
//	a, err := t.Handoff(ctx, "review", state)
//	anchors, err := t.Anchors()
//	for e, err := range t.Entries(ctx, anchors) {
//		var bad *log.LineError
//		if errors.As(err, &bad) { continue } // reported, not fatal
//		...
//	}
//
// # Layout
//
//	.tape/
//	  config.json                        optional; missing keys take defaults
//	  acknowledged                       optional; bad lines a person let be (AckFile)
//	  tapes/<tape>/                      one folder per tape, never a symlink (flock'd by handoff)
//	    anchors/<seq>_<slug>/            one folder per anchor (phase)
//	      anchor.json                    the anchor entry, one JSON object
//	      messages.jsonl                 message, system
//	      tool_calls.jsonl               tool_call, tool_result
//	      events.jsonl                   every other kind
//	    forks/<id>/                      a fork: fork.json, and anchors/ in the
//	                                     same shape, starting at 000_fork
//	  archive/<tape>-<time>/             anchors moved away by Reset(archive)
//
// seq is a decimal number, zero-padded to at least 3 digits by writers and
// ordered by value; slug is the anchor name made file-safe (Slug). Readers
// read every *.jsonl file of an anchor folder, whatever its name, and skip
// names that start with a dot (temporary files and folders).
//
// # Records
//
// A line is one JSON object, UTF-8, ended by '\n':
//
//	{"id": "01J...", "kind": "message", "payload": {...}, "meta": {...}, "date": "2026-11-22T04:36:09.123456Z"}
//
// Only kind is required. id may be a string, a number or absent; date is RFC
// 3339 (a date without a zone is UTC); meta is an object. A line with no
// "kind" but a string "role" is a bare chat message: a message entry whose
// payload is the whole line. Unknown kinds are kept. Blank lines are skipped.
// A last line without '\n' is in progress and not read yet. A line that ends
// with TornMark ("<torn>") was left without its '\n' by a writer that died
// and ended by the next: it is read without the mark, and skipped without
// a report if that is not complete JSON (a torn write). Any other line
// that cannot be read is a *LineError (file, line, offset, reason), and
// reading goes on.
//
// # Order and ids
//
// The order of a tape is a function of its files alone:
//
//  1. anchors by seq, then by folder name;
//  2. in an anchor folder, the anchor entry first, then the entries of its
//     *.jsonl files merged by effective time, then file name, then line;
//  3. the effective time of a line is the latest date seen in its file up to
//     and including that line (a line without a date takes the one before
//     it; lines before any date have the zero time).
//
// Because the effective time never decreases within a file, the merge keeps
// every file's own order, and a line's sort key depends only on the lines
// before it in its file: appending never changes the key, nor the relative
// order, of the entries already there, so an index that sorts by key agrees
// with a full rebuild. A new line may sort before older entries of other
// files (an undated line in a new file has the earliest time).
//
// An entry without an id gets "<folder>/<file>:<line>", and an anchor folder
// without anchor.json gets its folder name as the id of its anchor entry,
// except a folder of seq 0, which has no anchor entry (Anchor.Unanchored).
//
// # Writing
//
// Append writes each entry as one write(2) of one complete line on an
// O_APPEND descriptor, holding an exclusive flock(2) of the file: lines of
// any size from any number of processes never interleave. Shell writers
// take the same lock with flock(1). No write of many pages is atomic: a
// writer killed mid-line leaves a torn tail, which the next append ends
// with TornMark and '\n' before its own line, and a write that falls short
// (a full disk) is truncated away by its writer before it lets go of the
// lock (decision 0069). Handoff builds the new anchor
// folder under a temporary name, fsyncs it, renames it into place and
// fsyncs the anchors folder, holding an flock of the tape folder so that
// concurrent handoffs get distinct seqs; under that lock it removes the
// temporary folders killed handoffs left. config.json and anchor.json are
// only ever replaced atomically. Folders are created 0700 and files 0600.
//
// # Forks
//
// Fork starts a fork, OpenFork returns it as a Tape to append to and hand
// off in, Merge appends its entries to the tape (idempotently: run it again
// after a crash) and removes it, Discard removes it. Reset starts a tape
// over, archiving or deleting its anchor folders. See docs/FORMAT.md.
//
// # Checking
//
// Workspace.CheckFiles reads every tape and reports, without changing
// anything, what readers skip or stumble on: bad lines, torn tails, names
// that do not parse, tape folders that are symlinks, duplicate seqs,
// temporary names a crashed writer left, files that cannot be read. It
// backs `tape doctor`.
//
// # Beside the format
//
// Reading an entry back from where an index found it (its file, offset
// and length), checked to be still the entry indexed, same id and kind,
// else a *LineError that says to reindex (Workspace.EntryReader,
// entryreader.go); when a tape started, its first anchor's date
// (Tape.Started); the core of the one rule of which tapes a command reads
// (Workspace.SelectTape, scope.go), shared by the CLI and the MCP server;
// time bounds written as RFC 3339 or a duration ago (ParseWhen); following
// a growing tape as its files grow and anchors are added (follow.go); and
// the bad lines a person acknowledged, .tape/acknowledged (ack.go;
// docs/decisions/0060).
package log
