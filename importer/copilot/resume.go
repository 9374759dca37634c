package copilot

import "github.com/tape-dev/tape/importer/source"

// Resume reopens a session in the Copilot CLI: copilot --resume=<id>.
func (Source) Resume(s source.Resumable) ([]string, bool) {
	if s.ID == "" {
		return nil, false
	}
	return []string{"copilot", "--resume=" + s.ID}, true
}
