package pi

import "github.com/tape-dev/tape/importer/source"

// Resume reopens a session in Pi: pi --session <its file> (Pi also takes an
// id there, matched in the current project first; the file is exact).
func (Source) Resume(s source.Resumable) ([]string, bool) {
	switch {
	case s.File != "":
		return []string{"pi", "--session", s.File}, true
	case s.ID != "":
		return []string{"pi", "--session", s.ID}, true
	}
	return nil, false
}
