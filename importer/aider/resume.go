package aider

import "github.com/tape-dev/tape/importer/source"

// Resume is what comes nearest to reopening a run of Aider: it keeps no
// session ids, and aider --restore-chat-history reads the whole history
// file back (every run it holds, summarized) into a new chat, in the
// repository's folder.
func (Source) Resume(s source.Resumable) ([]string, bool) {
	if s.File == "" {
		return nil, false
	}
	return []string{"aider", "--restore-chat-history", "--chat-history-file", s.File}, true
}
