// Package wording holds the small rules of wording that every front end
// (the CLI, the MCP server, the web page) applies alike: a count with its
// noun, text folded onto one line and cut, and text made safe to print
// on a terminal. It is on the ground floor:
// it imports nothing of tape's.
package wording

import (
	"fmt"
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

// Printable replaces the control characters of s (C0, DEL, C1: escape
// sequences that would move a terminal's cursor, retitle its window or
// clear it) with visible escapes: tapes hold tool output, and tool output
// is not to be trusted. So are the bidi overrides and isolates, which
// show text in another order than it is (a file name that reads as
// another, "Trojan Source"), and the line and paragraph separators that
// some terminals break lines at; the marks that right-to-left text needs
// (U+200E, U+200F) and the joiners of emoji are kept. Every front end
// that writes to a terminal (the CLI, tape ui) writes transcript text
// through it.
func Printable(s string) string {
	if !strings.ContainsFunc(s, unprintable) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsControl(r):
			fmt.Fprintf(&b, "\\x%02x", r)
		case unprintable(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unprintable reports whether Printable escapes r.
func unprintable(r rune) bool {
	return unicode.IsControl(r) ||
		r >= 0x202A && r <= 0x202E || // LRE, RLE, PDF, LRO, RLO
		r >= 0x2066 && r <= 0x2069 || // LRI, RLI, FSI, PDI
		r == 0x2028 || r == 0x2029 // line and paragraph separators
}
