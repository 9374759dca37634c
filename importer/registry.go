package importer

import (
	"os"

	"github.com/tape-dev/tape/importer/claude"
	"github.com/tape-dev/tape/importer/cline"
	"github.com/tape-dev/tape/importer/codex"
	"github.com/tape-dev/tape/importer/copilot"
	"github.com/tape-dev/tape/importer/droid"
	"github.com/tape-dev/tape/importer/gemini"
	"github.com/tape-dev/tape/importer/kimi"
	"github.com/tape-dev/tape/importer/openclaw"
	"github.com/tape-dev/tape/importer/pi"
	"github.com/tape-dev/tape/importer/qwen"
	"github.com/tape-dev/tape/importer/source"
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
		cline.Source{},
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
