package droid

import "github.com/tape-dev/tape/importer/source"

// Resume reopens a session in Factory's Droid: droid --resume <id>.
func (Source) Resume(s source.Resumable) ([]string, bool) {
	if s.ID == "" {
		return nil, false
	}
	return []string{"droid", "--resume", s.ID}, true
}
