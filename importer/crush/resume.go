package crush

import "github.com/tape-dev/tape/importer/source"

// Resume reopens a session in Crush: crush --session <id>, in its
// project's folder (Crush keeps sessions per project).
func (Source) Resume(s source.Resumable) ([]string, bool) {
	if s.ID == "" {
		return nil, false
	}
	return []string{"crush", "--session", s.ID}, true
}
