package opencode

import "github.com/tape-dev/tape/importer/source"

// Resume reopens a session in OpenCode, or the Kilo CLI (its fork):
// opencode --session <id> (kilo --session <id>), in the project's folder.
func (s Source) Resume(r source.Resumable) ([]string, bool) {
	if r.ID == "" {
		return nil, false
	}
	return []string{s.agent().app, "--session", r.ID}, true
}
