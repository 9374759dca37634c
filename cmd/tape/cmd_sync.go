package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/records"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/remote"
)

// SyncCmd is `tape sync`.
type SyncCmd struct {
	URL   string `arg:"" optional:"" placeholder:"postgres://USER@HOST/DB" help:"The server (default: TAPE_PG_URL, else pg_url in .tape/config.json)."`
	JSON  bool   `help:"Print one JSON object: workspace, workspace_id, server, entries, bad_lines, bytes, files, removed, tapes, seconds."`
	Full  bool   `help:"Remove this workspace's rows from the server and send everything again (after rows were changed there by hand)."`
	Moved bool   `help:"This workspace moved here from the host or folder it last synced from (else a sync from elsewhere is refused as a copy's)."`
	// BatchRows bounds a transaction (remote.SyncOptions): the tests make
	// it small, so that a sync killed at random is killed mid-way.
	BatchRows int `name:"batch-rows" hidden:""`
}

func (c *SyncCmd) Help() string {
	return `Projects this workspace into a team's index on PostgreSQL, where every
workspace that syncs to it can be searched (tape search --remote), listed
(tape tapes --remote) and totalled (tape usage --remote). Only what is new
is sent: each file's checkpoint is kept on the server with the rows it
covers, so a sync stopped at any point (Ctrl-C, a kill, a server that goes
away) goes on where it stopped when run again, and a reset tape, a merged
fork or a deleted file is reflected as the local index has it. The files
stay the truth: the server can be emptied and synced again.

The workspace is known to the server by the id and name in
.tape/config.json ("workspace": {"id", "name"}), made by the first sync;
change the name there. The URL is never printed with its password; the
password comes from the URL, PGPASSWORD or ~/.pgpass, TLS settings from
the URL (sslmode=verify-full&sslrootcert=...). docs/TEAM.md says how to
set up the server and a role with only the rights sync needs.
'tape watch --sync URL' syncs after every change. A sync that finds the
local index as the last sync left it ends at once; --full sends everything
again, for a server whose rows were changed by hand.

Examples:
  tape sync postgres://tape@db.internal/team
  TAPE_PG_URL=postgres://tape@db.internal/team tape sync --json`
}

func (c *SyncCmd) Run(env *Env, g *Globals) error {
	u, err := serverURL(env, g, c.URL)
	if err != nil {
		return err
	}
	ix, closeAll, err := g.openWorkspaceIndex(env)
	if err != nil {
		return err
	}
	defer closeAll()
	ws := ix.Workspace()
	conn, err := remote.Connect(env.Context(), u)
	if err != nil {
		return serverFailed(err, u, "")
	}
	defer closeServer(conn)
	start := time.Now()
	waiting := func(wait time.Duration) {
		fmt.Fprintf(env.Stderr, "tape: waiting up to %s for the server's lock of this workspace: a tape sync holds it, or one killed a moment ago whose session the server has not ended yet\n", wait)
	}
	st, err := remote.Sync(env.Context(), ix, conn, remote.SyncOptions{BatchRows: c.BatchRows, Full: c.Full, Moved: c.Moved, OnLockWait: waiting})
	for _, why := range st.Unsynced {
		fmt.Fprintf(env.Stderr, "tape: warning: not synced: %s\n", printable(why))
	}
	if errors.Is(err, remote.ErrAnotherCopy) {
		return hintError{kind: err, msg: strings.TrimPrefix(err.Error(), "remote: "),
			hint: fmt.Sprintf("a copy (cp -r keeps the id) needs an id of its own: delete \"workspace\" from %s; if the workspace moved here, run 'tape sync --moved'",
				ws.Abs("config.json"))}
	}
	if err != nil {
		stopped := fmt.Sprintf("sync to %s stopped after %s were sent", remote.Redact(u), plural(st.Entries, "entry", "entries"))
		if !remote.FromServer(err) { // the local index or a file: exit 3, as any command that reads them
			return fmt.Errorf("%s: %w", stopped, err)
		}
		why := err
		if remote.Gone(err) {
			why = fmt.Errorf("the connection to the server was lost (%w)", err)
		}
		return serverFailed(fmt.Errorf("%s: %w", stopped, why), u, "what was sent is kept; run 'tape sync' again to go on from there")
	}
	id, err := ws.Identity() // the sync saved it: nothing to write
	if err != nil {
		return err
	}
	rec := records.Sync{Workspace: id.Name, WorkspaceID: id.ID, Server: remote.Redact(u), Entries: st.Entries, BadLines: st.BadLines,
		Bytes: st.Bytes, Files: st.Files, Removed: st.Removed, Tapes: st.Tapes, Seconds: time.Since(start).Seconds()}
	if c.JSON {
		return newJSONLines(env.Stdout).write(rec)
	}
	if st.Entries+st.BadLines+st.Removed+st.Tapes == 0 {
		_, err = fmt.Fprintf(env.Stdout, "%s is up to date on %s\n", id.Name, rec.Server)
	} else {
		_, err = fmt.Fprintf(env.Stdout, "synced %s to %s: %s (%s) of %s, %s removed, %s brought up to date, in %s\n",
			id.Name, rec.Server, plural(st.Entries, "entry", "entries"), plural(st.BadLines, "bad line", "bad lines"),
			plural(st.Files, "file", "files"), plural(st.Removed, "file or folder", "files or folders"), plural(st.Tapes, "tape", "tapes"),
			time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// RestoreCmd is `tape restore`.
type RestoreCmd struct {
	Remote    string `placeholder:"URL" help:"The server to restore from, postgres://USER@HOST/DB (default: TAPE_PG_URL, else pg_url in .tape/config.json)."`
	Workspace string `required:"" placeholder:"NAME" help:"The workspace to restore, by name or id (tape tapes --remote lists them)."`
	Dir       string `arg:"" placeholder:"DIR" help:"The folder to write the workspace into: DIR/.tape/ is made if needed."`
	JSON      bool   `help:"Print one JSON object: workspace, workspace_id, dir, tapes, folders, files, lines, bytes."`
}

func (c *RestoreCmd) Help() string {
	return `Writes a workspace's tapes back from the team's server as files, byte for
byte the lines that were synced, into DIR/.tape/tapes/ (made if needed): a
machine that lost its workspace gets it back, or a person reads another's
sessions with every local command. --tape T restores one tape. A tape that
DIR already holds is not overwritten: nothing is written then. Lines that
were not synced (blank ones) come back empty, so that every line keeps its
number.

Examples:
  tape restore --remote postgres://tape@db.internal/team --workspace proj@laptop ./proj-copy
  TAPE_PG_URL=postgres://tape@db.internal/team tape restore --workspace 01KBX... --tape main /tmp/main`
}

func (c *RestoreCmd) Run(env *Env, g *Globals) error {
	dir := c.Dir
	if env.Dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(env.Dir, dir)
	}
	var tapes []string
	if g.tapeFlag {
		tapes = []string{g.Tape}
	}
	conn, u, err := connectServer(env, g, c.Remote)
	if err != nil {
		return err
	}
	defer closeServer(conn)
	var dst *tapelog.Workspace
	defer func() {
		if dst != nil {
			dst.Close()
		}
	}()
	open := func() (*tapelog.Workspace, error) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("restore: %w", err)
		}
		var err error
		dst, _, err = tapelog.Create(dir)
		return dst, err
	}
	st, err := remote.Restore(env.Context(), conn, c.Workspace, tapes, open)
	if err != nil {
		if errors.Is(err, remote.ErrNoWorkspace) || remote.FromServer(err) {
			return serverFailed(err, u, "nothing is half written: a folder appears whole or not at all; run it again into a new folder")
		}
		return err
	}
	rec := records.Restore{Workspace: st.Workspace.Name, WorkspaceID: st.Workspace.ID, Dir: dst.Dir(), Tapes: st.Tapes, Folders: st.Folders,
		Files: st.Files, Lines: st.Lines, Bytes: st.Bytes}
	if c.JSON {
		return newJSONLines(env.Stdout).write(rec)
	}
	_, err = fmt.Fprintf(env.Stdout, "restored %s of %s into %s: %s, %s\n", plural(st.Tapes, "tape", "tapes"), st.Workspace.Name,
		printable(dst.Dir()), plural(st.Folders, "anchor folder", "anchor folders"), plural(st.Lines, "line", "lines"))
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
