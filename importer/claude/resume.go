package claude

import "github.com/tape-dev/tape/importer/source"

// Resume reopens a session in Claude Code: claude --resume <session id>,
// in the folder it ran in. A subagent's transcript shares its session's
// id, so it reopens the session that ran it.
func (Source) Resume(s source.Resumable) ([]string, bool) {
	if s.ID == "" {
		return nil, false
	}
	return []string{"claude", "--resume", s.ID}, true
}
