package importer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tape-dev/tape/importer/aider"
	"github.com/tape-dev/tape/importer/amp"
	"github.com/tape-dev/tape/importer/claude"
	"github.com/tape-dev/tape/importer/cline"
	"github.com/tape-dev/tape/importer/codex"
	"github.com/tape-dev/tape/importer/copilot"
	"github.com/tape-dev/tape/importer/crush"
	"github.com/tape-dev/tape/importer/cursor"
	"github.com/tape-dev/tape/importer/droid"
	"github.com/tape-dev/tape/importer/gemini"
	"github.com/tape-dev/tape/importer/goose"
	"github.com/tape-dev/tape/importer/kimi"
	"github.com/tape-dev/tape/importer/openclaw"
	"github.com/tape-dev/tape/importer/opencode"
	"github.com/tape-dev/tape/importer/pi"
	"github.com/tape-dev/tape/importer/qwen"
	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// Sources are the agents tape imports, in the order commands list them:
// the one registry that `tape import <source>`, `tape watch --follow` and
// the tests read. A new source is one more line here
// (docs/ADDING_A_SOURCE.md).
func Sources() []source.Source {
	return []source.Source{
		claude.Source{},
		codex.Source{},
		gemini.Source{},
		qwen.Source{},
		copilot.Source{},
		pi.Source{},
		kimi.Source{},
		droid.Source{},
		openclaw.Source{},
		opencode.Source{},
		amp.Source{},
		aider.Source{},
		goose.Source{},
		crush.Source{},
		cline.Source{},
		cursor.Source{},
		opencode.Kilo(), // the Kilo CLI: OpenCode's database, under its own name
	}
}

// SourceByName returns the source called name.
func SourceByName(name string) (source.Source, bool) {
	for _, s := range Sources() {
		if s.Name() == name {
			return s, true
		}
	}
	return nil, false
}

// SourceNames are the names of the sources, in the order of Sources.
func SourceNames() []string {
	var names []string
	for _, s := range Sources() {
		names = append(names, s.Name())
	}
	return names
}

// DefaultDirs are src's default folders on this machine (whether or not
// they exist): its DefaultDirs, from this process's environment and home
// folder.
func DefaultDirs(src source.Source) []string {
	home, _ := os.UserHomeDir() // without one, only the environment can name them
	return src.DefaultDirs(os.Getenv, home)
}

// DirsIn are the folders src's sessions are looked for in when none is
// given, for a workspace of config cfg: those its config.json names for
// a source.Rooted (aider_roots: they replace its default, a walk of the
// home folder); else its DefaultDirs, then the roots config.json names
// for it (Config.Roots, crush_roots; "~/" is the home folder), each once.
func DirsIn(src source.Source, cfg tapelog.Config) []string {
	home, _ := os.UserHomeDir()
	if r, ok := src.(source.Rooted); ok {
		if dirs := r.Roots(cfg, home); len(dirs) > 0 {
			return dirs
		}
	}
	dirs := DefaultDirs(src)
	for _, r := range cfg.Roots(src.Name()) {
		if rest, ok := strings.CutPrefix(r, "~/"); ok && home != "" {
			r = filepath.Join(home, rest)
		}
		if r != "" && !slices.Contains(dirs, r) {
			dirs = append(dirs, r)
		}
	}
	return dirs
}

// ResumeCommand is the command that reopens a session of the source
// called name in its agent, and false when the source is unknown or its
// agent has none (source.Resumer).
func ResumeCommand(name string, s source.Resumable) ([]string, bool) {
	src, ok := SourceByName(name)
	if !ok {
		return nil, false
	}
	r, ok := src.(source.Resumer)
	if !ok {
		return nil, false
	}
	return r.Resume(s)
}
