package qwen

import "github.com/tape-dev/tape/importer/source"

// Resume reopens a session in Qwen Code: qwen --resume <session id>, in
// its project's folder.
func (Source) Resume(s source.Resumable) ([]string, bool) {
	if s.ID == "" {
		return nil, false
	}
	return []string{"qwen", "--resume", s.ID}, true
}
