package codex

import "github.com/tape-dev/tape/importer/source"

// Resume reopens a session in Codex: codex resume <session id>.
func (Source) Resume(s source.Resumable) ([]string, bool) {
	if s.ID == "" {
		return nil, false
	}
	return []string{"codex", "resume", s.ID}, true
}
