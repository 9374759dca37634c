package main

import (
	"fmt"
	"time"

	"github.com/tape-dev/tape/projector"
)

// WatchCmd is `tape watch`.
type WatchCmd struct {
	Debounce  time.Duration `default:"10ms" help:"Wait this long after a change for more before catching up."`
	Reconcile time.Duration `default:"30s" help:"Catch up this often even without events, as a safety net."`
	Quiet     bool          `short:"q" help:"Print nothing but errors."`
}

func (c *WatchCmd) Help() string {
	return `Keeps .tape/index.db live while agents write: it watches every folder under
.tape/tapes with inotify and catches up after each burst of changes. One watcher
runs per workspace; a second one exits with status 3 and names the first.
SIGINT or SIGTERM stops it cleanly. Read commands catch up by themselves, so
the watcher only makes them faster.

Example:
  tape watch &`
}

func (c *WatchCmd) Run(env *Env, g *Globals) error {
	ws, err := g.workspace(env)
	if err != nil {
		return err
	}
	defer ws.Close()
	ix, err := projector.Open(env.Context(), ws)
	if err != nil {
		return err
	}
	defer ix.Close()
	ix.Holder = "tape watch"
	w := &projector.Watcher{P: ix, Debounce: c.Debounce, Reconcile: c.Reconcile,
		OnPass: func(st projector.Stats, err error) {
			switch {
			case err != nil:
				fmt.Fprintf(env.Stderr, "tape: watch: %v\n", err)
			case !c.Quiet && (st.Entries > 0 || st.Removed > 0 || st.BadLines > 0):
				fmt.Fprintf(env.Stderr, "%s indexed %d entries (%d removed, %d bad lines) in %s\n",
					time.Now().Format("15:04:05"), st.Entries, st.Removed, st.BadLines, st.Duration.Round(time.Millisecond))
			}
		}}
	if !c.Quiet {
		fmt.Fprintf(env.Stderr, "watching %s; stop with Ctrl-C\n", ws.Dir())
	}
	return w.Run(env.Context())
}
