package searchlang

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SnippetTerms are the words of a query, lowercased, as Snippet marks
// them.
func SnippetTerms(query string) []string {
	var terms []string
	for _, t := range splitTerms(query) {
		for _, w := range strings.FieldsFunc(t.text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
			terms = append(terms, strings.ToLower(w))
		}
	}
	return terms
}

// Snippet cuts about width runes of text around the first term found in
// it, marks every term in the cut with **, and folds it onto one line.
// Terms match without regard to case.
//
// The cut is the one of the text with every run of white space made one
// space and none at either end (strings.Fields, joined), but only the
// runes around the cut are folded: a hit's text can be tens of kilobytes,
// and folding all of it was a sixth of a search's own work. Terms hold no
// white space, so a term matches the text where it matches the folded
// text.
func Snippet(text string, terms []string, width int) string {
	first := firstMatch(text, terms)
	start := skipSpace(text, 0)                     // where the folded text starts
	if first > start && foldedLonger(text, width) { // a short text is shown whole
		start = foldedBack(text, first, start, width/3) // some context before the match
	}
	end := foldedForward(text, start, width)
	var b strings.Builder
	if hasNonSpace(text[:start]) {
		b.WriteString("…")
	}
	cut := text[start:end]
	for i := 0; i < len(cut); {
		if n := matchAt(cut[i:], terms); n > 0 {
			b.WriteString("**" + cut[i:i+n] + "**")
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(cut[i:])
		if unicode.IsSpace(r) {
			b.WriteByte(' ')
			i = skipSpace(cut, i)
			continue
		}
		b.WriteString(cut[i : i+size])
		i += size
	}
	if hasNonSpace(text[end:]) {
		b.WriteString("…")
	}
	return b.String()
}

// SnippetSpan is a piece of a snippet: text as it is, or a match that
// Snippet marked.
type SnippetSpan struct {
	Text  string
	Match bool
}

// SnippetSpans reads a snippet's **marks**, for a front end that shows
// the matches its own way (in color, in <mark>). A mark is ** around
// letters and digits alone, as every query term is; any other ** is the
// text's own (Markdown's bold, say), and is kept as text.
func SnippetSpans(s string) []SnippetSpan {
	var out []SnippetSpan
	for {
		i, n := nextMark(s)
		if i < 0 {
			if s != "" {
				out = append(out, SnippetSpan{Text: s})
			}
			return out
		}
		if i > 0 {
			out = append(out, SnippetSpan{Text: s[:i]})
		}
		out = append(out, SnippetSpan{Text: s[i+2 : i+2+n], Match: true})
		s = s[i+2+n+2:]
	}
}

// nextMark finds the first match marked in s: where its opening ** is,
// and the length of the text between the marks; -1 when there is none.
func nextMark(s string) (at, n int) {
	for from := 0; ; {
		i := strings.Index(s[from:], "**")
		if i < 0 {
			return -1, 0
		}
		i += from
		word := s[i+2:]
		n := strings.IndexFunc(word, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		if n > 0 && strings.HasPrefix(word[n:], "**") {
			return i, n
		}
		from = i + 1
	}
}

// firstMatch returns where the first term found in text starts, or -1.
func firstMatch(text string, terms []string) int {
	for i := 0; i < len(text); {
		if matchAt(text[i:], terms) > 0 {
			return i
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	return -1
}

// skipSpace returns the index of the first rune of s at or after i that
// is not white space, or len(s).
func skipSpace(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

// hasNonSpace reports whether s holds a rune that is not white space.
func hasNonSpace(s string) bool { return skipSpace(s, 0) < len(s) }

// foldedLonger reports whether text, folded, is longer than width runes.
func foldedLonger(text string, width int) bool {
	return hasNonSpace(text[foldedForward(text, skipSpace(text, 0), width):])
}

// foldedForward returns where n runes of the folded text that start at i
// end in text: a run of white space counts as one rune, and one that ends
// the text as none.
func foldedForward(text string, i, n int) int {
	for ; i < len(text) && n > 0; n-- {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsSpace(r) {
			i += size
			continue
		}
		next := skipSpace(text, i)
		if next == len(text) {
			return i // white space that ends the text is not in the folded text
		}
		i = next
	}
	return i
}

// foldedBack returns where n runes of the folded text before i start in
// text, not before floor, where the folded text starts: a run of white
// space counts as one rune.
func foldedBack(text string, i, floor, n int) int {
	for ; i > floor && n > 0; n-- {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !unicode.IsSpace(r) {
			i -= size
			continue
		}
		for i > floor {
			r, size := utf8.DecodeLastRuneInString(text[:i])
			if !unicode.IsSpace(r) {
				break
			}
			i -= size
		}
	}
	return i
}

// matchAt returns the length in bytes of the longest term that s starts
// with, ignoring case, or 0.
func matchAt(s string, terms []string) int {
	best := 0
	for _, t := range terms {
		if n := foldPrefix(s, t); n > best {
			best = n
		}
	}
	return best
}

// foldPrefix returns how many bytes of s match prefix, rune by rune without
// regard to case, or 0 if s does not start with it.
func foldPrefix(s, prefix string) int {
	i := 0
	for _, want := range prefix {
		if i >= len(s) {
			return 0
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != want && !strings.EqualFold(string(r), string(want)) {
			return 0
		}
		i += size
	}
	return i
}
