package goose

import "github.com/tape-dev/tape/importer/source"

// Resume reopens a session in Goose: goose session --resume --session-id
// <id>.
func (Source) Resume(s source.Resumable) ([]string, bool) {
	if s.ID == "" {
		return nil, false
	}
	return []string{"goose", "session", "--resume", "--session-id", s.ID}, true
}
