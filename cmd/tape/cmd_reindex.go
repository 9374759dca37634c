package main

import (
	"fmt"
	"time"

	"github.com/tape-dev/tape/fresh"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// ReindexCmd is `tape reindex`.
type ReindexCmd struct {
	Full bool `help:"Rebuild the index from nothing instead of catching up."`
	JSON bool `help:"Print what was done as a JSON object."`
}

func (c *ReindexCmd) Help() string {
	return `Brings .tape/index.db up to date with the files; --full rebuilds it from
nothing, in one transaction, so readers keep the old index until the new one is
complete. The index is derived from the files alone: deleting it loses nothing.

When a tape watch runs, it does the catching up, as for every read: reindex
asks it, and says so ("watcher": true with --json). --full always runs its own
pass.

Examples:
  tape reindex
  tape reindex --full --json`
}

func (c *ReindexCmd) Run(env *Env, g *Globals) error {
	ws, err := g.workspace(env)
	if err != nil {
		return err
	}
	defer ws.Close()
	ix, err := openToIndex(env, ws)
	if err != nil {
		return err
	}
	defer ix.Close()
	ix.Holder = "tape reindex"
	ix.OnWait = func(holder string) {
		fmt.Fprintf(env.Stderr, "tape: the index is %s; waiting for it (up to %s)\n", holder, projector.LockWait)
	}
	if !c.Full {
		start := time.Now()
		synced, err := fresh.SyncWatcher(env.Context(), ix, fresh.SyncTimeout)
		if err != nil {
			return err
		}
		if synced {
			return c.printSynced(env, time.Since(start))
		}
	}
	pass := ix.CatchUp
	if c.Full {
		pass = ix.Rebuild
	}
	var done func()
	ix.OnProgress, done = indexProgress(env, "indexing")
	st, err := pass(env.Context())
	done()
	if err != nil {
		return err
	}
	if c.JSON {
		return newJSONLines(env.Stdout).write(map[string]any{
			"full": c.Full, "watcher": false, "entries": st.Entries, "removed": st.Removed, "bad_lines": st.BadLines,
			"files_read": st.FilesRead, "bytes": st.Bytes, "seconds": st.Duration.Seconds(),
		})
	}
	verb := "caught up"
	if c.Full {
		verb = "rebuilt"
	}
	_, err = fmt.Fprintf(env.Stdout, "index %s: %s added, %d removed, %s, %s read (%.1f MB) in %s\n",
		verb, wording.Plural(st.Entries, "entry", "entries"), st.Removed, wording.Plural(st.BadLines, "bad line", "bad lines"),
		wording.Plural(st.FilesRead, "file", "files"), float64(st.Bytes)/1e6, st.Duration.Round(1e6))
	return err
}

// printSynced says that the running watcher caught the index up.
// Counts are the watcher's to report (tape watch prints them).
func (c *ReindexCmd) printSynced(env *Env, took time.Duration) error {
	if c.JSON {
		return newJSONLines(env.Stdout).write(map[string]any{
			"full": false, "watcher": true, "entries": 0, "removed": 0, "bad_lines": 0, "files_read": 0, "bytes": 0, "seconds": took.Seconds(),
		})
	}
	_, err := fmt.Fprintf(env.Stdout, "index caught up by the running tape watch in %s\n", took.Round(time.Microsecond))
	return err
}

// openToIndex opens the index for reindex, which runs its own pass: unlike
// Globals.index it never fills a new index first. It did, and a `reindex
// --full` of a workspace without an index built it twice.
func openToIndex(env *Env, ws *tapelog.Workspace) (*projector.Projector, error) {
	return projector.Open(env.Context(), ws)
}
