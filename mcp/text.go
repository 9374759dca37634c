package mcp

import (
	"github.com/tape-dev/tape/read/records"
)

// The text forms of results, for the clients that show a model only
// text. The structured forms are package records' types: the
// shapes the CLI's --json output gives them too.

// jsonLines is entries as JSON lines, as `tape log --json` prints them:
// the text form of a list of entries, which a model reads as readily as
// the structured form (records.Entry.AppendJSON, the CLI's encoder).
func jsonLines(entries []records.Entry) string {
	var buf []byte
	for _, e := range entries {
		buf = e.AppendJSON(buf)
	}
	return string(buf)
}
