package kimi

import "github.com/tape-dev/tape/importer/source"

// Resume reopens a session in the Kimi CLI: kimi --work-dir <cwd> --session
// <id>. Kimi keeps sessions per work folder, and makes a new one for an
// id it does not know there: the folder is given, not only gone to.
func (Source) Resume(s source.Resumable) ([]string, bool) {
	if s.ID == "" {
		return nil, false
	}
	if s.CWD == "" {
		return []string{"kimi", "--session", s.ID}, true
	}
	return []string{"kimi", "--work-dir", s.CWD, "--session", s.ID}, true
}
