package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/read/records"
	"github.com/tape-dev/tape/redact"
	"github.com/tape-dev/tape/remote"
)

// SyncCmd is `tape sync`.
type SyncCmd struct {
	URL   string `arg:"" optional:"" placeholder:"postgres://USER@HOST/DB" help:"The server (default: TAPE_PG_URL, else pg_url in .tape/config.json)."`
	JSON  bool   `help:"Print one JSON object: workspace, workspace_id, server, entries, bad_lines, bytes, files, removed, tapes, seconds (--list: one per workspace: workspace, workspace_id, host, path, synced_at, tapes, here; --forget: workspace, workspace_id, server, tapes)."`
	Full  bool   `help:"Remove this workspace's rows from the server and send everything again (after rows were changed there by hand)."`
	Moved bool   `help:"This workspace moved here from the host or folder it last synced from (else a sync from elsewhere is refused as a copy's)."`
	List  bool   `help:"List the workspaces on the server instead of syncing: name, id, the host and folder each last synced from, when, and its tapes."`
	// Forget is --forget ID: a workspace made again in the same folder
	// has a new id, and the old one's sessions stay on the server,
	// counted twice by --remote, until they are removed.
	Forget string `placeholder:"ID" help:"Remove a workspace's rows from the server instead of syncing, by its id (--list shows it): one made again in the same folder, or deleted."`
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

--list lists the workspaces on the server, and --forget ID removes one's
rows from it: a workspace made again in the same folder has a new id, and
the old one's sessions stay on the server, counted beside the new one's by
--remote, until it is forgotten (a sync says so when it sees one).

Examples:
  tape sync postgres://tape@db.internal/team
  TAPE_PG_URL=postgres://tape@db.internal/team tape sync --json
  tape sync --list
  tape sync --forget 01KBXH4B8P3S2X5GZ4Q6M8N0RT`
}

func (c *SyncCmd) Run(env *Env, g *Globals) error {
	if c.List || c.Forget != "" {
		return c.runServer(env, g)
	}
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
	opts := remote.SyncOptions{BatchRows: c.BatchRows, Full: c.Full, Moved: c.Moved, OnLockWait: waiting}
	if opts.Redactor, err = syncRedactor(ws); err != nil {
		return err
	}
	st, err := remote.Sync(env.Context(), ix, conn, opts)
	for _, why := range st.Unsynced {
		fmt.Fprintf(env.Stderr, "tape: warning: not synced: %s\n", wording.Printable(why))
	}
	if errors.Is(err, remote.ErrAnotherCopy) {
		return hintError{kind: err, msg: strings.TrimPrefix(err.Error(), "remote: "),
			hint: fmt.Sprintf("a copy (cp -r keeps the id) needs an id of its own: delete \"workspace\" from %s; if the workspace moved here, run 'tape sync --moved'",
				ws.Abs("config.json"))}
	}
	if err != nil {
		stopped := fmt.Sprintf("sync to %s stopped after %s were sent", remote.Redact(u), wording.Plural(st.Entries, "entry", "entries"))
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
	for _, o := range st.SamePlace {
		fmt.Fprintf(env.Stderr, "tape: warning: the server also holds workspace %s (%s, %s), last synced from this folder: if it is this workspace before it was made again, --remote counts its sessions twice\n",
			wording.Printable(o.Name), o.ID, wording.Plural(o.Tapes, "tape", "tapes"))
		fmt.Fprintf(env.Stderr, "hint: 'tape sync --forget %s' removes it from the server\n", o.ID)
	}
	rec := records.Sync{Workspace: id.Name, WorkspaceID: id.ID, Server: remote.Redact(u), Entries: st.Entries, BadLines: st.BadLines,
		Bytes: st.Bytes, Files: st.Files, Removed: st.Removed, Tapes: st.Tapes, Seconds: time.Since(start).Seconds(), Redacted: st.Redacted}
	if c.JSON {
		return newJSONLines(env.Stdout).write(rec)
	}
	if st.Entries+st.BadLines+st.Removed+st.Tapes == 0 {
		_, err = fmt.Fprintf(env.Stdout, "%s is up to date on %s\n", id.Name, rec.Server)
	} else {
		_, err = fmt.Fprintf(env.Stdout, "synced %s to %s: %s (%s) of %s, %s removed, %s brought up to date, in %s\n",
			id.Name, rec.Server, wording.Plural(st.Entries, "entry", "entries"), wording.Plural(st.BadLines, "bad line", "bad lines"),
			wording.Plural(st.Files, "file", "files"), wording.Plural(st.Removed, "file or folder", "files or folders"), wording.Plural(st.Tapes, "tape", "tapes"),
			time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if st.Redacted > 0 {
		fmt.Fprintf(env.Stderr, "tape: %s sent as [REDACTED:<kind>] ('tape secrets --all-tapes' lists where; \"redact_sync\": false in config.json sends them)\n",
			wording.Plural(st.Redacted, "secret", "secrets"))
	}
	return nil
}

// runServer is `tape sync --list` and `tape sync --forget ID`: what the
// server holds, and removing a workspace from it.
func (c *SyncCmd) runServer(env *Env, g *Globals) error {
	switch {
	case c.List && c.Forget != "":
		return usagef("--list or --forget, not both")
	case c.Full || c.Moved:
		return usagef("--full and --moved are for a sync, not --list or --forget")
	}
	conn, u, err := connectServer(env, g, c.URL)
	if err != nil {
		return err
	}
	defer closeServer(conn)
	if c.Forget != "" {
		ws, err := remote.Forget(env.Context(), conn, c.Forget)
		if err != nil {
			return serverFailed(err, u, "")
		}
		rec := records.Forget{Workspace: ws.Name, WorkspaceID: ws.ID, Server: remote.Redact(u), Tapes: ws.Tapes}
		if c.JSON {
			return newJSONLines(env.Stdout).write(rec)
		}
		_, err = fmt.Fprintf(env.Stdout, "removed workspace %s (%s) from %s: %s, last synced from %s:%s\n", wording.Printable(ws.Name), ws.ID, rec.Server,
			wording.Plural(ws.Tapes, "tape", "tapes"), wording.Printable(ws.Host), wording.Printable(ws.Path))
		return err
	}
	all, err := remote.Workspaces(env.Context(), conn, nil)
	if err != nil {
		return serverFailed(err, u, "")
	}
	here := ""
	if ws, err := g.workspace(env); err == nil {
		if id := ws.Config().Workspace; id != nil {
			here = id.ID
		}
		ws.Close()
	}
	return printServerWorkspaces(env, c.JSON, all, here)
}

// printServerWorkspaces prints the workspaces on a server, marking the
// one whose id is here's.
func printServerWorkspaces(env *Env, asJSON bool, all []remote.Workspace, here string) error {
	if asJSON {
		out := newJSONLines(env.Stdout)
		for _, ws := range all {
			rec := records.ServerWorkspace{Workspace: ws.Name, WorkspaceID: ws.ID, Host: ws.Host, Path: ws.Path, SyncedAt: records.Time(ws.SyncedAt),
				Tapes: ws.Tapes, Here: ws.ID == here}
			if err := out.write(rec); err != nil {
				return err
			}
		}
		return nil
	}
	t := table{columns: []column{{}, {}, {give: 1, min: 16}, {}, {right: true}}}
	for _, ws := range all {
		name, synced := ws.Name, "never"
		if ws.ID == here {
			name += " (here)"
		}
		if !ws.SyncedAt.IsZero() {
			synced = ws.SyncedAt.Local().Format("2006-01-02 15:04")
		}
		t.add(text(name), text(ws.ID), text(ws.Host+":"+ws.Path), text(synced), counted(ws.Tapes, "tape", "tapes"))
	}
	return t.write(env.Stdout, terminalColumns(env.Stdout), env.color)
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
	_, err = fmt.Fprintf(env.Stdout, "restored %s of %s into %s: %s, %s\n", wording.Plural(st.Tapes, "tape", "tapes"), st.Workspace.Name,
		wording.Printable(dst.Dir()), wording.Plural(st.Folders, "anchor folder", "anchor folders"), wording.Plural(st.Lines, "line", "lines"))
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// syncRedactor is what replaces secrets in what a sync sends: one, unless
// config.json says "redact_sync": false.
func syncRedactor(ws *tapelog.Workspace) (*redact.Redactor, error) {
	return newRedactor(ws.Config().RedactsSync())
}
