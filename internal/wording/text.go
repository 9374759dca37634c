// Package wording holds the small rules of wording that every front end
// (the CLI, the MCP server, the web page) applies alike: a count with its
// noun, and text folded onto one line and cut. It is on the ground floor:
// it imports nothing of tape's.
package wording

import (
	"strconv"
	"strings"
	"unicode"
)

// Plural is n and the noun that goes with it: "1 entry", "2 entries",
// "0 entries", as git says "1 file changed".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// OneLine is s on one line: each run of white space (line breaks
// included) one space, none at either end; and, when n > 0 and that is
// longer than n runes, its first n-1 runes and "…". It reads no more of s
// than it keeps, so the summary of a 10 MB message costs what it shows.
func OneLine(s string, n int) string {
	var b strings.Builder
	runes, keep := 0, 0 // keep: the bytes of b's first n-1 runes
	add := func(r rune) bool {
		if n > 0 && runes == n {
			return false // a rune past n: s is longer, folded, than n runes
		}
		b.WriteRune(r)
		if runes++; runes == n-1 {
			keep = b.Len()
		}
		return true
	}
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = runes > 0
			continue
		}
		if space && !add(' ') || !add(r) {
			return b.String()[:keep] + "…"
		}
		space = false
	}
	return b.String()
}
