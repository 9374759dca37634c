// Package remote owns the team index: a PostgreSQL database that any
// number of workspaces project themselves into, so that a team searches
// every session, lists them, and totals their usage, from one place. On
// each machine the files stay the only truth, and the server is one more
// disposable projection: a workspace's rows can be dropped and synced
// again from its files.
//
//   - conn.go: which server (the command line, TAPE_PG_URL, config.json's
//     pg_url), its URL never shown with its password, connecting, and
//     telling a server that went away from one that refused.
//   - schema.go: the schema "tape", made and migrated in order, each
//     migration in a transaction with the version it records.
//   - `tape sync`, incremental and crash-safe: sync.go runs it; local.go
//     reads what the local index has read, and its digest; removals.go
//     what the server holds and the removal of what is gone; lines.go
//     the files' lines as rows; batch.go writes them, each transaction
//     with the checkpoints (log.FilePos) of the files its rows came from,
//     and marks the tapes whose tapes and calls rows it leaves behind;
//     refresh.go brings those up to the local index's views.
//   - mirror.go: `tape watch --sync`, a sync after every pass that
//     never holds the watcher up.
//   - forget.go: `tape sync --forget`, a workspace's rows removed from
//     the server (one made again in the same folder has a new id).
//   - dump.go: a workspace's rows as text, to compare two servers.
//   - textsearch.go: full-text search on the server, PostgreSQL's, fed
//     the local index's tokens (CJK bigrams, camelCase parts).
//   - query.go: what --remote reads: search, tapes, usage.
//   - restore.go: `tape restore`, a workspace's tapes written back as
//     files, byte for byte the lines synced.
//
// A sync reads what changed from the local index (projector: how far it
// has read each file, which anchor.json it read), the lines from the
// files, and the rows of the views from the local views, so that the
// server answers as the local index does.
package remote
