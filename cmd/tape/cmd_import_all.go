package main

import (
	"fmt"
	"strings"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/wording"
)

// ImportAllCmd is `tape import` with no source (or `tape import all`):
// every source whose folders are found under the home folder.
type ImportAllCmd struct {
	JSON bool `help:"One JSON object per transcript: source, then what 'tape import SOURCE --json' prints."`
	All  bool `help:"Also list the transcripts that had nothing new."`
	Full bool `help:"Read every transcript from its start, whatever the checkpoints say, skipping what the tapes hold."`
}

func (c *ImportAllCmd) Help() string {
	return `Imports the sessions of every agent whose folders are on this machine, each
as 'tape import SOURCE' with no PATH would (tape sources lists them, found or
not, and where it looks): one summary line per source, and the exit status 2
if a line of any could not be imported.

Examples:
  tape import
  tape import --json | jq -r 'select(.imported > 0) | .tape'`
}

func (c *ImportAllCmd) Run(env *Env, g *Globals) error {
	if g.Session != "" || g.tapeFlag {
		return usagef("--tape and --session do not apply to 'tape import': each session gets a tape of its own")
	}
	type job struct {
		src  source.Source
		dirs []string
	}
	var jobs []job
	var looked []string
	cfg := g.configHere(env)
	for _, src := range importer.Sources() {
		dirs, err := importer.FoundIn(src, cfg)
		if err != nil {
			return err
		}
		looked = append(looked, importer.DirsIn(src, cfg)...)
		if len(dirs) > 0 {
			jobs = append(jobs, job{src, dirs})
		}
	}
	if len(jobs) == 0 {
		return fmt.Errorf("no agent's sessions found in %s; give a source and the folder its transcripts are in (tape import claude PATH)",
			wording.Printable(strings.Join(looked, ", ")))
	}
	ws, err := g.importWorkspace(env)
	if err != nil {
		return err
	}
	defer ws.Close()
	one := importSessions{JSON: c.JSON, All: c.All, Full: c.Full}
	bad := 0
	for _, j := range jobs {
		stats, err := one.importFrom(env, ws, j.src, j.dirs, j.src.Name())
		if err != nil {
			return fmt.Errorf("import %s: %w", j.src.Name(), err)
		}
		bad += badLines(stats)
	}
	return badLinesError(bad)
}
