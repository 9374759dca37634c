package cursor

import (
	"strings"

	"github.com/tape-dev/tape/importer/source"
)

// Resume reopens a chat of the Cursor CLI: cursor-agent --resume=<chat
// id>, in its workspace's folder. The editor's chats (state.vscdb) have no
// such command: they are opened in the editor.
func (Source) Resume(s source.Resumable) ([]string, bool) {
	cli := strings.Contains(s.File, "agent-transcripts") || strings.Contains(s.File, "/.cursor/chats/")
	if s.ID == "" || !cli {
		return nil, false
	}
	return []string{"cursor-agent", "--resume=" + s.ID}, true
}
