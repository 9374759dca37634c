package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tape-dev/tape/fresh"
	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/remote"
)

// WatchCmd is `tape watch`.
type WatchCmd struct {
	Debounce  time.Duration `default:"10ms" help:"Wait this long after a change for more before catching up."`
	Reconcile time.Duration `default:"30s" help:"Catch up this often even without events, as a safety net."`
	Follow    []string      `sep:"," placeholder:"AGENTS" help:"Also mirror these agents' transcripts into tapes as they are written: claude, codex, gemini, qwen, copilot, pi, kimi, droid, openclaw, opencode, amp, aider, goose, crush, cline, cursor, kilo, or all (every agent found; default: follow in config.json)."`
	Quiet     bool          `short:"q" help:"Print nothing but errors."`
	Idle      time.Duration `placeholder:"DURATION" help:"Exit once no read command has synced with the watcher for DURATION (default: never; 30m with --background)."`
	Sync      string        `placeholder:"URL" help:"Also keep the team's index on PostgreSQL in step: tape sync after every change (postgres://USER@HOST/DB; see 'tape sync')."`
	// Background is how a read command starts a watcher on demand
	// (watch_auto.go): quiet, idle after watchIdle, gone without a word
	// if another watcher runs or its binary is replaced.
	Background bool `hidden:""`
}

func (c *WatchCmd) Help() string {
	return `Keeps .tape/index.db live while agents write: it watches every folder under
.tape/tapes with inotify and catches up after each burst of changes. One watcher
runs per workspace; a second one exits with status 3 and names the first,
unless the first was started by a read (below): that one hands over.
SIGINT or SIGTERM stops it cleanly. Read commands catch up by themselves, so
the watcher only makes them faster.

A read command that finds no watcher starts one in the background, which exits
after 30 minutes without a read ("watch": "auto" in .tape/config.json, the
default; "off", or TAPE_WATCH=off, turns that off). Its errors go to
.tape/watch.log. 'tape info' shows whether one runs, and its pid.

With --follow claude,codex (or "follow": ["claude", "codex"] in
.tape/config.json) it also mirrors those agents' transcripts into tapes as
they are written, from the folders 'tape sources' lists, the entries 'tape
import' would make, with the same ids: it imports everything new first,
then each transcript soon after it changes. --follow all follows every
agent whose folders are found when it starts. An assistant turn appears when its next
line comes, or a second after the transcript goes quiet. A transcript the
agent deletes later stays on its tape.

With --sync URL it also syncs the workspace to a team's index on PostgreSQL
after every change, as 'tape sync URL' does. A server that is slow or down
delays only that: the index and the writers go on, and the sync is tried
again, after a second and then less and less often, up to once a minute.

Examples:
  tape watch &
  tape watch --follow claude,codex &
  tape watch --follow all &
  tape watch --sync postgres://tape@db.internal/team &`
}

func (c *WatchCmd) Run(env *Env, g *Globals) error {
	ws, err := g.workspace(env)
	if err != nil {
		return err
	}
	defer ws.Close()
	ix, err := projector.Open(env.Context(), ws)
	if err != nil {
		if env.Context().Err() != nil {
			return nil // stopped while it opened the index, as asked: not a failure (TestChaos seed 2 saw exit 3)
		}
		return err
	}
	defer ix.Close()
	ix.Holder = "tape watch"
	w := c.watcher(env, ix)
	follow, err := c.follower(env, ws)
	if err != nil {
		return err
	}
	mirror, err := c.mirror(env, ix, w)
	if err != nil {
		return err
	}
	started := func() {
		if !c.Quiet && !c.Background {
			fmt.Fprintf(env.Stderr, "watching %s; stop with Ctrl-C\n", ws.Dir())
		}
	}
	err = c.run(env.Context(), w, follow, mirror, started)
	if c.Background && (errors.Is(err, fresh.ErrWatching) || errors.Is(err, fresh.ErrWorkspaceGone)) {
		return nil // another was started first, or there is nothing left to watch
	}
	return err
}

// watcher is the index's watcher as the flags set it up.
func (c *WatchCmd) watcher(env *Env, ix *projector.Projector) *fresh.Watcher {
	quiet := c.Quiet || c.Background
	w := &fresh.Watcher{P: ix, Debounce: c.Debounce, Reconcile: c.Reconcile, Idle: c.Idle,
		OnPass: func(st projector.Stats, err error) {
			switch {
			case err != nil:
				fmt.Fprintf(env.Stderr, "%s tape: watch: %v\n", time.Now().Format(time.DateTime), err)
			case !quiet && (st.Entries > 0 || st.Removed > 0 || st.BadLines > 0):
				fmt.Fprintf(env.Stderr, "%s indexed %s (%d removed, %s) in %s\n", time.Now().Format("15:04:05"),
					wording.Plural(st.Entries, "entry", "entries"), st.Removed, wording.Plural(st.BadLines, "bad line", "bad lines"), st.Duration.Round(time.Millisecond))
			}
		}}
	if c.Background {
		w.Idle = cmp.Or(c.Idle, watchIdle)
		w.Retire = stampBinary().replaced
		w.OnDemand = true
	} else {
		w.OnTakeover = func(holder string) {
			fmt.Fprintf(env.Stderr, "tape: taking over from the watcher a read started (%s)\n", holder)
		}
	}
	return w
}

// run runs the watcher, and the follower beside it if there is one. Both
// the word that it watches (started) and the follower wait until the
// watcher holds the workspace: a second watcher says nothing of watching,
// and imports nothing, before it fails.
func (c *WatchCmd) run(ctx context.Context, w *fresh.Watcher, follow *importer.Follower, mirror *remote.Mirror, started func()) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var done []chan error // set by OnStart, which Run calls on this goroutine
	beside := func(run func(context.Context) error) {
		ch := make(chan error, 1)
		done = append(done, ch)
		go func() { ch <- run(ctx) }()
	}
	w.OnStart = func() {
		started()
		if follow != nil {
			beside(follow.Run)
		}
		if mirror != nil {
			beside(mirror.Run)
		}
	}
	err := w.Run(ctx)
	cancel()
	for _, ch := range done {
		err = errors.Join(err, <-ch)
	}
	return err
}

// mirror is what --sync asks for: a mirror of the index to the server,
// kicked after every pass that changed something; nil for no --sync.
func (c *WatchCmd) mirror(env *Env, ix *projector.Projector, w *fresh.Watcher) (*remote.Mirror, error) {
	if c.Sync == "" {
		return nil, nil
	}
	if !remote.IsURL(c.Sync) {
		return nil, usagef("--sync %s: want postgres://USER@HOST[:PORT]/DB", remote.Redact(c.Sync))
	}
	// No identity is made here: the first sync writes one into
	// config.json once the server took it, as tape sync does.
	m := remote.NewMirror(ix, c.Sync)
	r, err := syncRedactor(ix.Workspace())
	if err != nil {
		return nil, err
	}
	m.Redactor = r
	server := remote.Redact(c.Sync)
	quiet := c.Quiet || c.Background
	warned := map[string]bool{} // each file not synced is named once
	m.OnSync = func(st remote.SyncStats, err error) {
		for _, why := range st.Unsynced {
			if !warned[why] {
				warned[why] = true
				fmt.Fprintf(env.Stderr, "tape: warning: not synced: %s\n", wording.Printable(why))
			}
		}
		switch {
		case err != nil:
			fmt.Fprintf(env.Stderr, "%s tape: sync to %s: %s; trying again\n", time.Now().Format(time.DateTime), server,
				strings.TrimPrefix(err.Error(), "remote: "))
		case !quiet && st.Entries+st.BadLines+st.Removed > 0:
			fmt.Fprintf(env.Stderr, "%s synced %s (%d removed) to %s\n", time.Now().Format("15:04:05"), wording.Plural(st.Entries, "entry", "entries"), st.Removed, server)
		}
	}
	onPass := w.OnPass
	w.OnPass = func(st projector.Stats, err error) {
		if onPass != nil {
			onPass(st, err)
		}
		if err == nil && st.Entries+st.Removed+st.BadLines > 0 {
			m.Kick()
		}
	}
	return m, nil
}

// follower is what --follow (or config.json's follow) asks for; nil for
// nothing.
func (c *WatchCmd) follower(env *Env, ws *tapelog.Workspace) (*importer.Follower, error) {
	names := c.Follow
	if names == nil {
		names = ws.Config().Follow
	}
	if len(names) == 0 {
		return nil, nil
	}
	f := &importer.Follower{WS: ws, Dirs: map[source.Source][]string{},
		Warn: func(err error) {
			fmt.Fprintf(env.Stderr, "tape: warning: %s\n", wording.Printable(withoutPackages(err)))
		},
		OnImport: func(src source.Source, stats []importer.FileStats, err error) {
			if err != nil {
				fmt.Fprintf(env.Stderr, "tape: follow %s: %s\n", src.Name(), wording.Printable(withoutPackages(err)))
				return
			}
			n := 0
			for _, st := range stats {
				n += st.Imported
			}
			if n > 0 && !c.Quiet {
				fmt.Fprintf(env.Stderr, "%s imported %s of %s sessions\n", time.Now().Format("15:04:05"), wording.Plural(n, "entry", "entries"), src.Name())
			}
		}}
	for _, name := range names {
		if strings.TrimSpace(name) == followAll {
			if err := followFound(env, f, ws.Config()); err != nil {
				return nil, err
			}
			continue
		}
		src, ok := importer.SourceByName(strings.TrimSpace(name))
		if !ok {
			return nil, usagef("--follow %s: tape follows %s, or all", name, andList(importer.SourceNames()))
		}
		f.Dirs[src] = nil // its default folders
	}
	return f, nil
}

// followAll is the --follow (and config.json "follow") word for every
// source whose folders are found when the watcher starts.
const followAll = "all"

// followFound adds to f every source whose default folders exist, and
// says which on stderr; none found is an error.
func followFound(env *Env, f *importer.Follower, cfg tapelog.Config) error {
	var names []string
	for _, src := range importer.Sources() {
		dirs, err := importer.FoundIn(src, cfg)
		if err != nil {
			return err
		}
		if len(dirs) > 0 {
			f.Dirs[src] = nil
			names = append(names, src.Name())
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("--follow all: no agent's sessions found on this machine (tape sources says where tape looks)")
	}
	fmt.Fprintf(env.Stderr, "tape: following %s\n", andList(names))
	return nil
}

// andList is names as a sentence says them: "claude and codex", "a, b and
// c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
