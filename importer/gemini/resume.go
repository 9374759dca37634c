package gemini

import "github.com/tape-dev/tape/importer/source"

// Resume reopens a session in the Gemini CLI: gemini --resume <session id>,
// in its project's folder (sessions are kept per project).
func (Source) Resume(s source.Resumable) ([]string, bool) {
	if s.ID == "" {
		return nil, false
	}
	return []string{"gemini", "--resume", s.ID}, true
}
