package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
)

// SourcesCmd is `tape sources`: the agents tape imports, and what it finds
// of each on this machine.
type SourcesCmd struct {
	JSON bool `help:"One JSON object per source: source, agent, found, dirs, present, transcripts, imported, followed."`
}

func (c *SourcesCmd) Help() string {
	return `For each agent tape imports: whether its folders are on this machine and
where tape looks (set the variable the agent reads to look elsewhere), how
many transcripts are there, how many this workspace's imports have read, and
whether 'tape watch' follows it (config.json's "follow", or --follow).
'tape import' with no source imports every source found.

Examples:
  tape sources
  tape sources --json | jq -r 'select(.found) | .source'`
}

// sourceRecord is a line of `tape sources --json`; its names are a
// contract.
type sourceRecord struct {
	importer.Survey
	Followed bool `json:"followed"`
}

func (c *SourcesCmd) Run(env *Env, g *Globals) error {
	ws, err := g.workspace(env)
	if err != nil && !errors.Is(err, tapelog.ErrNoWorkspace) {
		return err
	}
	var follow []string
	if ws != nil {
		defer ws.Close()
		follow = ws.Config().Follow
	}
	var recs []sourceRecord
	for _, src := range importer.Sources() {
		s, err := importer.SurveyOf(ws, src, func(error) {}) // a folder it cannot read: tape import says which
		if err != nil {
			return fmt.Errorf("look for %s sessions: %w", src.Name(), err)
		}
		recs = append(recs, sourceRecord{s, follows(follow, src.Name())})
	}
	if c.JSON {
		out := newJSONLines(env.Stdout)
		for _, r := range recs {
			if err := out.write(r); err != nil {
				return err
			}
		}
		return nil
	}
	tab := table{header: true, columns: []column{{title: "SOURCE"}, {title: "AGENT"}, {title: "TRANSCRIPTS", right: true},
		{title: "IMPORTED", right: true}, {title: "FOLLOWED"}, {title: "WHERE", give: 1, min: 20}}}
	for _, r := range recs {
		where, n := "not found"+strings.Replace(lookedIn(firstOf(r.Dirs, shownDirs)), " at ", ": ", 1), "-"
		if len(r.Dirs) > shownDirs {
			where += fmt.Sprintf(" and %d more (tape sources --json)", len(r.Dirs)-shownDirs)
		}
		if r.Found {
			where, n = strings.Join(r.Present, ", "), strconv.Itoa(r.Transcripts)
		}
		followed := "no"
		if r.Followed {
			followed = "yes"
		}
		tab.add(text(r.Source), text(r.Agent), text(n), text(strconv.Itoa(r.Imported)), text(followed), text(wording.Printable(where)))
	}
	return tab.write(env.Stdout, terminalColumns(env.Stdout), env.color)
}

// shownDirs is how many of the folders a source looked in the table
// names: Cline's forks in every VS Code's folders are thirty.
const shownDirs = 3

// firstOf is dirs, cut to its first n.
func firstOf(dirs []string, n int) []string { return dirs[:min(len(dirs), n)] }

// follows reports whether the follow words (config.json's "follow", as
// tape watch reads them: spaces trimmed) name source, or all.
func follows(words []string, source string) bool {
	for _, w := range words {
		if w = strings.TrimSpace(w); w == source || w == followAll {
			return true
		}
	}
	return false
}
