package remote

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Schema is the PostgreSQL schema that holds tape's tables. Every
// statement names it, so a database shared with other applications
// keeps them apart, and a role can be given rights on it alone
// (docs/TEAM.md).
const Schema = "tape"

// migrations make the schema, in order: migration i takes the schema
// from version i to i+1. Each runs in a transaction with the version
// row that records it. A migration, once released, is never edited: a
// change is a new one at the end.
//
// Every row is keyed by the workspace's id (config.json's workspace.id,
// a ULID) and the tape, so any number of workspaces share the database;
// an entry by its place in its tape's files (folder, file, line), which
// a repeated id cannot collide in, with its id indexed beside. Names
// compare byte by byte (COLLATE "C"), as SQLite compares them, so that a
// place sorts in tape order here as in the local index. Nothing
// here is a fact: every row is derived from some workspace's files, and
// a workspace's rows can be deleted and synced again.
var migrations = []string{
	// 1: the first schema.
	`
CREATE TABLE tape.workspaces (
	id        text COLLATE "C" PRIMARY KEY, -- config.json's workspace.id
	name      text COLLATE "C" NOT NULL,    -- config.json's workspace.name
	host      text NOT NULL,    -- the machine it last synced from
	path      text NOT NULL,    -- its .tape folder there
	synced_at timestamptz,      -- when its last sync ended; NULL while its first runs
	synced_state text           -- what the local index had read, when that sync sent all of it (sync.go's readLocal)
);

-- How far each source file is synced: a checkpoint, written in the
-- transaction of the rows it covers (log.FilePos: the end of the last
-- complete line synced, the lines before it, the file's effective time
-- there, and a fingerprint of the bytes before it).
CREATE TABLE tape.files (
	workspace_id text COLLATE "C" NOT NULL,
	tape         text COLLATE "C" NOT NULL,
	folder       text COLLATE "C" NOT NULL,
	name         text COLLATE "C" NOT NULL,
	"offset"     bigint NOT NULL,
	line         integer NOT NULL,
	eff_time     bigint NOT NULL,  -- as projector.EffTime keeps it
	fingerprint  bigint NOT NULL,
	stamp        text NOT NULL,   -- the file as the local index read it (projector.FileRead)
	PRIMARY KEY (workspace_id, tape, folder, name)
);

-- Anchor folders: the anchor.json synced (its bytes in entries), and its
-- stamp in the local index (size/mtime/inode), to tell when it changed.
CREATE TABLE tape.anchors (
	workspace_id text COLLATE "C" NOT NULL,
	tape         text COLLATE "C" NOT NULL,
	folder       text COLLATE "C" NOT NULL,
	seq          bigint NOT NULL,
	name         text COLLATE "C" NOT NULL,
	state        text,             -- the JSON, as anchor.json holds it (jsonb refuses \u0000)
	stamp        text NOT NULL,
	PRIMARY KEY (workspace_id, tape, folder)
);

-- Entries, with the line they were read from, byte for byte: a tape can
-- be written back from here (tape restore). The anchor entry of a folder
-- is file 'anchor.json', line 1 (0 when the folder has none, and no
-- bytes). Place: (anchor_seq, folder, eff_time, file, line) is tape order,
-- eff_time in nanoseconds as the local index keeps it.
CREATE TABLE tape.entries (
	workspace_id text COLLATE "C" NOT NULL,
	tape         text COLLATE "C" NOT NULL,
	folder       text COLLATE "C" NOT NULL,
	file         text COLLATE "C" NOT NULL,
	line         integer NOT NULL,
	id           text COLLATE "C" NOT NULL,
	kind         text NOT NULL,
	anchor_seq   bigint NOT NULL,
	eff_time     bigint NOT NULL,
	time         timestamptz,      -- what --since compares: the file's effective time, an anchor's date
	raw          bytea,            -- the line, its newline included
	search       tsvector,         -- textsearch.go
	PRIMARY KEY (workspace_id, tape, folder, file, line)
);
CREATE INDEX entries_id ON tape.entries (workspace_id, tape, id);
CREATE INDEX entries_order ON tape.entries (workspace_id, tape, anchor_seq, folder, eff_time, file, line);
-- Newest first: a common word's search walks this backward and stops at
-- its page (query.go's byTime), where a sort read every match.
CREATE INDEX entries_recent ON tape.entries (time NULLS FIRST, workspace_id, tape, anchor_seq, folder, eff_time, file, line);
CREATE INDEX entries_search ON tape.entries USING gin (search);

-- Lines that could not be read as entries, kept as they are.
CREATE TABLE tape.bad_lines (
	workspace_id text COLLATE "C" NOT NULL,
	tape         text COLLATE "C" NOT NULL,
	folder       text COLLATE "C" NOT NULL,
	file         text COLLATE "C" NOT NULL,
	line         integer NOT NULL,
	"offset"     bigint NOT NULL,
	reason       text NOT NULL,
	raw          bytea,            -- NULL for a line over the read limit
	PRIMARY KEY (workspace_id, tape, folder, file, line)
);

-- Run events and their token usage (views/usage), one row per event.
CREATE TABLE tape.runs (
	workspace_id  text COLLATE "C" NOT NULL,
	tape          text COLLATE "C" NOT NULL,
	folder        text COLLATE "C" NOT NULL,
	file          text COLLATE "C" NOT NULL,
	line          integer NOT NULL,
	anchor_seq    bigint NOT NULL,
	eff_time      bigint NOT NULL,
	time          timestamptz,
	status        text NOT NULL,
	model         text NOT NULL,
	has_usage     boolean NOT NULL,
	input_tokens  bigint NOT NULL,
	output_tokens bigint NOT NULL,
	cache_creation_tokens bigint NOT NULL,
	cache_read_tokens     bigint NOT NULL,
	total_tokens  bigint NOT NULL,
	usage_id      text,
	counted       boolean NOT NULL DEFAULT true, -- false for a run whose usage_id another run counts (batch.go's countRuns)
	PRIMARY KEY (workspace_id, tape, folder, file, line)
);
CREATE INDEX runs_usage ON tape.runs (workspace_id, usage_id) WHERE usage_id IS NOT NULL;

-- Tool calls and what became of them (views/calls), as the local index
-- folds them, by the place of their tool_call entry.
CREATE TABLE tape.calls (
	workspace_id text COLLATE "C" NOT NULL,
	tape         text COLLATE "C" NOT NULL,
	anchor_seq   bigint NOT NULL,
	folder       text COLLATE "C" NOT NULL,
	eff_time     bigint NOT NULL,
	file         text COLLATE "C" NOT NULL,
	line         integer NOT NULL,
	idx          integer NOT NULL,
	call_id      text NOT NULL,
	name         text COLLATE "C" NOT NULL,
	status       text NOT NULL,
	called_at    timestamptz,
	answered_at  timestamptz,
	result_folder text COLLATE "C",
	result_file  text COLLATE "C",
	result_line  integer,
	result_idx   integer,
	PRIMARY KEY (workspace_id, tape, anchor_seq, folder, eff_time, file, line, idx)
);

-- The sessions (views/sessions), one row per tape.
CREATE TABLE tape.tapes (
	workspace_id text COLLATE "C" NOT NULL,
	tape         text COLLATE "C" NOT NULL,
	title        text NOT NULL,
	cwd          text NOT NULL,
	branch       text NOT NULL,
	model        text NOT NULL,
	first        timestamptz,
	last         timestamptz,
	entries      integer NOT NULL,
	anchors      integer NOT NULL,
	source       text NOT NULL,
	session_id   text NOT NULL,
	parent       text NOT NULL,
	PRIMARY KEY (workspace_id, tape)
);
CREATE INDEX tapes_last ON tape.tapes (last DESC NULLS LAST);

-- Tapes whose tapes and calls rows are behind their entries: marked in
-- the transaction that changes the entries, from the first place that
-- changed, and cleared in the one that brings the rows up to them, so
-- that a sync killed in between leaves the mark for the next.
CREATE TABLE tape.pending (
	workspace_id text COLLATE "C" NOT NULL,
	tape         text COLLATE "C" NOT NULL,
	anchor_seq   bigint NOT NULL,
	folder       text COLLATE "C" NOT NULL,
	eff_time     bigint NOT NULL,
	file         text COLLATE "C" NOT NULL,
	line         integer NOT NULL,
	PRIMARY KEY (workspace_id, tape)
);
`,
	// 2: runs that gave a token count that is not one (views.Run.BadUsage:
	// negative, a fraction, a string, past views.MaxRunTokens), which a
	// sync now sends as not given. The rows an older tape synced are
	// mended where it shows (a count out of range, 2^63-1 read back as
	// negative among them: it broke every usage read of the team): such a
	// count becomes 0, a total out of range the sum of the others, and the
	// row is marked; then which run of their usage ids counts is decided
	// again (batch.go's countRuns). A count the old reading rounded (1.5 as
	// 1) cannot be told: 'tape sync --full' sends a workspace's rows as
	// this tape reads them.
	`
ALTER TABLE tape.runs ADD COLUMN bad_usage boolean NOT NULL DEFAULT false;
UPDATE tape.runs SET bad_usage = true,
	input_tokens = CASE WHEN input_tokens BETWEEN 0 AND 1099511627776 THEN input_tokens ELSE 0 END,
	output_tokens = CASE WHEN output_tokens BETWEEN 0 AND 1099511627776 THEN output_tokens ELSE 0 END,
	cache_creation_tokens = CASE WHEN cache_creation_tokens BETWEEN 0 AND 1099511627776 THEN cache_creation_tokens ELSE 0 END,
	cache_read_tokens = CASE WHEN cache_read_tokens BETWEEN 0 AND 1099511627776 THEN cache_read_tokens ELSE 0 END
WHERE NOT (input_tokens BETWEEN 0 AND 1099511627776 AND output_tokens BETWEEN 0 AND 1099511627776
	AND cache_creation_tokens BETWEEN 0 AND 1099511627776 AND cache_read_tokens BETWEEN 0 AND 1099511627776
	AND total_tokens BETWEEN 0 AND 4 * 1099511627776);
UPDATE tape.runs SET total_tokens = input_tokens + output_tokens + cache_creation_tokens + cache_read_tokens
WHERE bad_usage AND NOT total_tokens BETWEEN 0 AND 4 * 1099511627776;
UPDATE tape.runs r SET counted = ranked.n = 1
FROM (SELECT workspace_id, tape, folder, file, line, row_number() OVER (PARTITION BY workspace_id, usage_id
		ORDER BY total_tokens DESC, time NULLS FIRST, tape, anchor_seq, folder, eff_time, file, line) AS n
	FROM tape.runs WHERE (workspace_id, usage_id) IN (SELECT workspace_id, usage_id FROM tape.runs WHERE bad_usage AND usage_id IS NOT NULL)) ranked
WHERE r.workspace_id = ranked.workspace_id AND r.tape = ranked.tape AND r.folder = ranked.folder AND r.file = ranked.file AND r.line = ranked.line
	AND r.counted <> (ranked.n = 1);
`,
	// 3: runs whose usage repeats one recorded elsewhere (views.Run.Copy:
	// a subagent's, copied into its parent's Claude Code transcript),
	// which count only when no other run of their usage id does. Rows
	// synced before are no copies: a Claude Code import made none.
	`
ALTER TABLE tape.runs ADD COLUMN copy boolean NOT NULL DEFAULT false;
`,
}

// SchemaVersion is the version of the schema this tape makes and reads.
var SchemaVersion = len(migrations)

// ErrNewerSchema is returned when the database was migrated by a newer
// tape than this one.
var ErrNewerSchema = errors.New("remote: the database's schema is newer than this tape")

// migrate brings the schema up to SchemaVersion, making it if it is not
// there. Migrations run one at a time across clients: the first takes a
// transaction-scoped advisory lock, and the others wait for it and then
// find nothing to do.
func migrate(ctx context.Context, conn *pgx.Conn) error {
	version, err := schemaVersion(ctx, conn)
	if err != nil {
		return err
	}
	if version == SchemaVersion {
		return nil
	}
	if version > SchemaVersion {
		return fmt.Errorf("%w: it is at version %d, this tape knows %d; use a newer tape", ErrNewerSchema, version, SchemaVersion)
	}
	if err := ensureSchema(ctx, conn); err != nil {
		return err
	}
	for {
		done, err := migrateOne(ctx, conn)
		if err != nil || done {
			return err
		}
	}
}

// schemaVersion is the version the database is at: 0 before the first
// migration.
func schemaVersion(ctx context.Context, conn *pgx.Conn) (int, error) {
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('tape.schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("read the schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM tape.schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read the schema version: %w", err)
	}
	return v, nil
}

// ensureSchema makes the schema and its version table. A role that may
// not create schemas uses one made for it (docs/TEAM.md): the schema is
// made only when it is not there.
func ensureSchema(ctx context.Context, conn *pgx.Conn) error {
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, Schema).Scan(&exists); err != nil {
		return fmt.Errorf("look for schema %s: %w", Schema, err)
	}
	if !exists {
		if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS tape`); err != nil {
			return fmt.Errorf("create schema %s: %w (have an administrator create it, as docs/TEAM.md says)", Schema, err)
		}
	}
	_, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS tape.schema_migrations (
		version    integer PRIMARY KEY,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`)
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" { // a racing client made it
			return nil
		}
		return fmt.Errorf("create tape.schema_migrations: %w", err)
	}
	return nil
}

// migrateOne runs the next migration, if there is one, in a transaction
// that holds the migration lock; done is true when there was none.
func migrateOne(ctx context.Context, conn *pgx.Conn) (done bool, err error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it does nothing
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('tape.schema_migrations'))`); err != nil {
		return false, fmt.Errorf("migrate: %w", err)
	}
	var v int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM tape.schema_migrations`).Scan(&v); err != nil {
		return false, fmt.Errorf("migrate: %w", err)
	}
	if v >= SchemaVersion {
		return true, nil
	}
	if _, err := tx.Exec(ctx, migrations[v]); err != nil {
		return false, fmt.Errorf("migrate the schema to version %d: %w", v+1, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO tape.schema_migrations (version) VALUES ($1)`, v+1); err != nil {
		return false, fmt.Errorf("migrate the schema to version %d: %w", v+1, err)
	}
	return false, tx.Commit(ctx)
}
