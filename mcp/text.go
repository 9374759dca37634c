package mcp

import (
	"fmt"
	"strings"
)

// The text forms of results, for the clients that show a model only
// text. The structured forms are package records' types: the
// shapes the CLI's --json output gives them too.

// jsonLines is records as JSON lines: the text form of a list of entries,
// which a model reads as readily as the structured form.
func jsonLines[T any](records []T) (string, error) {
	var b strings.Builder
	for _, r := range records {
		line, err := marshal(r)
		if err != nil {
			return "", err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// plural is "1 entry", "2 entries".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
