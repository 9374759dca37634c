package searchlang

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Identifier splitting bounds: a word longer than maxIdentifier bytes, or
// of more than maxIdentifierParts parts, is data (a key, a hash, base64),
// not a name a person types, and is not split.
const (
	maxIdentifier      = 64
	maxIdentifierParts = 8
)

// IdentifierParts returns the parts of the camelCase and PascalCase names
// in text, separated by spaces, each name's once: "TestFlush calls
// newHandler and HTTPServer, then TestFlush" gives "Test Flush new Handler
// HTTP Server". Agents' sessions are full of code, and a person searching
// for "flush" means TestFlush too; each name once, because a tool's output
// names the same function many times, and its parts only have to find the
// entry (the text column counts it).
//
// A name is a run of ASCII letters and digits: identifiers in code are
// ASCII, and any other byte (punctuation, space, Chinese) ends one, which
// lets a rebuild scan every byte of every entry without decoding it (it
// cost 5.6% of BenchmarkRebuildManyTapes's CPU with unicode's tables and
// decoding). The unicode61 tokenizer already splits snake_case and dotted
// names on their punctuation. A name splits where a lowercase letter meets
// an uppercase one, and before a capital that starts a word after a run of
// capitals or digits (HTTPServer, base64Encode); "utf8" and "sha256" stay
// whole. It splits only into parts of two letters or more (so getX and
// iPhone stay whole), so that a hash or base64 ("aGVsbG8") does not fill
// the index with fragments.
func IdentifierParts(text string) string {
	var b strings.Builder
	var seen map[string]bool // the names split already
	for i := 0; i < len(text); {
		if nameBytes[text[i]] == notName {
			i++
			continue
		}
		start, cased := i, false // cased: a capital after the name's first letter
		for i++; i < len(text); i++ {
			c := nameBytes[text[i]]
			if c == notName {
				break
			}
			cased = cased || c == upperName
		}
		if name := text[start:i]; cased && len(name) <= maxIdentifier && !seen[name] {
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[name] = true
			writeIdentifierParts(&b, name)
		}
	}
	return b.String()
}

// The bytes of a name, by class: a table, since IdentifierParts looks at
// every byte of every entry a rebuild indexes (with Tokenize's skip of
// text without a bigram rune, BenchmarkSearchText went from 210 to 466
// MB/s, commit 4bc5324).
const (
	notName   = iota
	lowerName // a lowercase letter or a digit
	upperName
)

var nameBytes = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case isLowerOrDigit(byte(c)):
			t[c] = lowerName
		case isUpper(byte(c)):
			t[c] = upperName
		}
	}
	return t
}()

func isUpper(c byte) bool        { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool        { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool        { return '0' <= c && c <= '9' }
func isLowerOrDigit(c byte) bool { return isLower(c) || isDigit(c) }

// writeIdentifierParts writes the parts of name, ASCII letters and digits
// of at most maxIdentifier bytes, to b, if it has several.
func writeIdentifierParts(b *strings.Builder, name string) {
	var buf [maxIdentifierParts + 2]int
	cuts := append(buf[:0], 0) // where each part starts
	for j := 1; j < len(name); j++ {
		if splitsBefore(name, j) {
			if len(cuts) == maxIdentifierParts {
				return
			}
			cuts = append(cuts, j)
		}
	}
	if len(cuts) < 2 {
		return
	}
	cuts = append(cuts, len(name))
	for k := 1; k < len(cuts); k++ {
		if cuts[k]-cuts[k-1] < 2 {
			return
		}
	}
	for k := 1; k < len(cuts); k++ {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(name[cuts[k-1]:cuts[k]])
	}
}

// splitsBefore reports whether name splits before name[j]: an uppercase
// letter after a lowercase one (the F of TestFlush), or a capital
// followed by a lowercase letter after a capital or a digit (the S of
// HTTPServer, the E of base64Encode).
func splitsBefore(name string, j int) bool {
	if !isUpper(name[j]) {
		return false
	}
	prev := name[j-1]
	if isLower(prev) {
		return true
	}
	return (isUpper(prev) || isDigit(prev)) && j+1 < len(name) && isLower(name[j+1])
}

// isBigramRune reports whether r belongs to a script written without spaces
// between words (Han, Hiragana, Katakana), which the unicode61 tokenizer
// cannot split.
func isBigramRune(r rune) bool {
	switch {
	case r < 0x2e80: // below the CJK Radicals, the first Han
		return false
	case r >= 0x4e00 && r <= 0x9fff: // CJK Unified Ideographs, most Chinese text
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー'
}

// Tokenize prepares text for the FTS5 unicode61 tokenizer: every run of
// Han, Hiragana or Katakana is replaced by its overlapping two-character
// words, and the last character of a run also stands alone, so
// "发生了错误" becomes "发生 生了 了错 错误 误". Any one- or two-character
// query then matches a whole token (a one-character query as a prefix), and
// a longer one a phrase of bigrams. Other text passes through unchanged,
// for unicode61 to split on spaces and punctuation.
func Tokenize(text string) string {
	if !hasBigramRune(text) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) * 2)
	var run []rune
	flush := func() {
		if len(run) == 0 {
			return
		}
		b.WriteByte(' ')
		for i := 0; i+1 < len(run); i++ {
			b.WriteRune(run[i])
			b.WriteRune(run[i+1])
			b.WriteByte(' ')
		}
		b.WriteRune(run[len(run)-1])
		b.WriteByte(' ')
		run = run[:0]
	}
	for _, r := range text {
		if isBigramRune(r) {
			run = append(run, r)
			continue
		}
		flush()
		b.WriteRune(r)
	}
	flush()
	return b.String()
}

func hasBigramRune(s string) bool {
	for i := 0; i < len(s); i++ {
		// Every rune from U+2E80 up starts with a byte of 0xE2 or more, and
		// no byte of ASCII or of a shorter rune is one: the rest of the
		// text, most of it, is skipped a byte at a time without decoding.
		if s[i] < 0xe2 {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(s[i:]); isBigramRune(r) {
			return true
		}
	}
	return false
}
