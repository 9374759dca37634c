package projector

import "github.com/tape-dev/tape/internal/fts5"

// SchemaVersion is the version of the index's tables, the views' among
// them (views.go), and of the forms of the values in them (a folder's
// files_sig, for one). An index.db of another version is rebuilt from the
// files, in place.
const SchemaVersion = 30

// schema creates the index. Nothing in it is a fact: every row is derived
// from the files, and the whole database can be deleted.
//
// Entries are located, not copied: a row holds the entry's place (file,
// line, byte offset and length) and what queries filter and sort on, and a
// payload is read from its file when it is printed. entries_fts is
// contentless for the same reason; it holds only the inverted index.
// Anchor entries are the exception: their payload is small and lives in
// anchors.
const schema = `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

-- What a pass compares the files with (every folder's identities and
-- signature, what could not be read), in one row, so that a reader can
-- tell whether anything changed without loading it row by row (see
-- staterecord.go). Absent when no full pass has written it since the last
-- change.
CREATE TABLE state_record (
	id   INTEGER PRIMARY KEY CHECK (id = 1),
	data BLOB NOT NULL
);

-- Each tape's anchors folder as last listed: its identity then, and the
-- names of its anchor folders, in tape order, joined by '/' (see
-- tapeListing in walk.go).
CREATE TABLE tape_listings (
	tape         TEXT PRIMARY KEY,
	dir_mtime_ns INTEGER NOT NULL,
	dir_ctime_ns INTEGER NOT NULL,
	dir_ino      INTEGER NOT NULL,
	listed_ns    INTEGER NOT NULL,
	folders      TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE anchors (
	tape     TEXT NOT NULL,
	folder   TEXT NOT NULL,
	seq      INTEGER NOT NULL,
	name     TEXT NOT NULL,
	id       TEXT NOT NULL, -- '' for a folder without an anchor entry (log.Anchor.Unanchored)
	payload  TEXT NOT NULL,
	meta     TEXT,
	date     TEXT,
	-- anchor.json as last read: size -1 when the folder has none
	size     INTEGER NOT NULL,
	mtime_ns INTEGER NOT NULL,
	ino      INTEGER NOT NULL,
	-- the folder as last listed, to skip listing it when it did not change
	dir_mtime_ns INTEGER NOT NULL DEFAULT 0,
	dir_ctime_ns INTEGER NOT NULL DEFAULT 0, -- a chmod changes only this
	dir_ino      INTEGER NOT NULL DEFAULT 0,
	listed_ns    INTEGER NOT NULL DEFAULT 0,
	-- its files as the last pass left them (see signature in walk.go)
	files_sig    TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (tape, folder)
) WITHOUT ROWID;
-- The folders a scoped pass walks whatever its events say (state.volatile):
-- with symlinks (listed_ns 0), or an anchor.json it could not read (-2).
CREATE INDEX anchors_volatile ON anchors (tape) WHERE listed_ns = 0 OR size = -2;

-- One checkpoint per *.jsonl file: how far it has been read, and how to
-- tell that it changed.
CREATE TABLE files (
	id          INTEGER PRIMARY KEY,
	tape        TEXT NOT NULL,
	folder      TEXT NOT NULL,
	name        TEXT NOT NULL,
	dev         INTEGER NOT NULL,
	ino         INTEGER NOT NULL,
	size        INTEGER NOT NULL,
	mtime_ns    INTEGER NOT NULL,
	offset      INTEGER NOT NULL, -- end of the last complete line read
	line        INTEGER NOT NULL, -- lines before offset
	eff_time    INTEGER NOT NULL, -- the file's effective time at offset
	fingerprint INTEGER NOT NULL,
	UNIQUE (tape, folder, name)
);

CREATE TABLE entries (
	rowid      INTEGER PRIMARY KEY,
	tape       TEXT NOT NULL,
	id         TEXT NOT NULL,
	kind       TEXT NOT NULL,
	anchor_seq INTEGER NOT NULL,
	folder     TEXT NOT NULL,
	file       TEXT NOT NULL,
	file_id    INTEGER NOT NULL, -- 0 for an anchor entry
	line       INTEGER NOT NULL,
	offset     INTEGER NOT NULL,
	length     INTEGER NOT NULL,
	date       TEXT,
	eff_time   INTEGER NOT NULL, -- the sort key within a folder; anchor entries sort first
	time_ns    INTEGER,          -- the time --since and --until compare; NULL for no date
	facts      TEXT              -- what the views need of it (views.Facts, JSON); NULL for none
);
` + entryIndexes + `
CREATE TABLE bad_lines (
	tape   TEXT NOT NULL,
	folder TEXT NOT NULL,
	file   TEXT NOT NULL,
	line   INTEGER NOT NULL,
	offset INTEGER NOT NULL,
	reason TEXT NOT NULL,
	PRIMARY KEY (tape, folder, file, line)
) WITHOUT ROWID;

-- The tapes, derived from the anchors: every tape has at least one.
CREATE VIEW tapes AS
	SELECT tape AS name, count(*) AS anchors, max(seq) AS last_seq FROM anchors GROUP BY tape;

` + fts5.Schema // the search index: defined with the builds beside, which must be the same

// entryIndexes are the indexes of entries that a pass from an empty index
// never reads: it finds entries by rowid, and the tool-call view by
// entries_tools; only the removals of a catch-up (a file, a folder, a tape
// dropped) use entries_file and entries_order, and the commands' reads.
// Such a pass drops them and creates them again before it commits
// (passOnce), since sorting 354,395 rows once cost less
// than keeping three b-trees in order while the rows came in tape by
// tape: a rebuild of them took 57.8 and 61.7 s instead of 63.0 and
// 70.9 s, CPU 94 and 101 s instead of 104 and 110 s (two runs each,
// taking turns, 2026-11-28). The statements are the same both times, so
// the schema is too (TestRebuildKeepsTheSchema).
const entryIndexes = `CREATE INDEX entries_order ON entries (tape, anchor_seq, folder, eff_time, file, line);
CREATE INDEX entries_file ON entries (file_id);
CREATE INDEX entries_time ON entries (time_ns); -- a common search across tapes, newest first (search.go)`

// entryIndexNames are the names of entryIndexes, for dropping them.
var entryIndexNames = []string{"entries_order", "entries_file", "entries_time"}

// tables lists what schema creates, for dropping an index of another
// version and emptying it for a rebuild (with the views' tables,
// Projector.viewTables).
var tables = []string{"state_record", "tape_listings", "entries_fts", "bad_lines", "entries", "files", "anchors", "meta"}

// sqlViews lists the SQL views schema creates.
var sqlViews = []string{"tapes"}

// Schema returns the statements that create the index, the views' tables
// too, for tools that load the same rows elsewhere (tape-bench's native
// SQLite baseline).
func Schema() string { return schema + viewSchema((&Projector{}).viewTables()) }
