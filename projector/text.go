package projector

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// SearchText is the text of an entry that search finds: the words people
// look for, not the JSON around them.
//
//   - message: the content (a string, or the text of its parts), and the
//     names and arguments of its tool calls;
//   - system: the content; tool_call: each call's name and arguments;
//   - tool_result: every string in the results;
//   - anchor: the name, and the keys and strings of the state;
//   - event: the name, and the keys and strings of the data;
//   - error: the kind and the message;
//   - any other kind: every key and string of the payload.
func SearchText(e tapelog.Entry) string {
	p, err := rawjson.DecodeObject(e.Payload)
	if err != nil {
		return ""
	}
	return searchText(e.Kind, p, len(e.Payload)) // without the views' facts, which a snippet does not need
}

// EntryFacts is what the views need of an entry (see package views), as
// the projector stores it.
func EntryFacts(e tapelog.Entry) views.Facts {
	_, facts := textAndFacts(e)
	return facts
}

// textAndFacts is an entry's search text and the facts the views need of
// it, from one decode of its payload: decoding each part again cost as
// much as the rest of a rebuild's parsing.
func textAndFacts(e tapelog.Entry) (string, views.Facts) {
	p, err := rawjson.DecodeObject(e.Payload)
	if err != nil {
		return "", views.Facts{}
	}
	return searchText(e.Kind, p, len(e.Payload)), views.Extract(e.Kind, p, e.Meta)
}

// searchText collects the text of a decoded payload of size bytes, which
// it rarely exceeds (strings lose their quotes and escapes, and gain a
// newline): the builder grown once was written once, where doubling it
// copied a long tool output three times.
func searchText(kind string, p map[string]any, size int) string {
	var b strings.Builder
	b.Grow(size)
	add := func(v any, keys bool) { views.WriteStrings(&b, v, keys) }
	switch kind {
	case tapelog.KindMessage, tapelog.KindSystem:
		add(p["content"], false)
		add(p["tool_calls"], false)
	case tapelog.KindToolCall:
		add(p["calls"], false)
	case tapelog.KindToolResult:
		add(p["results"], false)
	case tapelog.KindAnchor, tapelog.KindEvent:
		add(p["name"], false)
		add(p["state"], true)
		add(p["data"], true)
	case tapelog.KindError:
		add(p["kind"], false)
		add(p["message"], false)
	default:
		add(p, true)
	}
	return b.String()
}

// ftsText is what entries_fts holds of an entry: its search text,
// tokenized, and the parts of the identifiers in it (IdentifierParts), in
// a column of their own that ranks below the text (see Search).
type ftsText struct {
	text  string
	parts string
}

// newFTSText prepares an entry's search text for entries_fts.
func newFTSText(text string) ftsText {
	return ftsText{text: Tokenize(text), parts: IdentifierParts(text)}
}

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
	var seen map[string]bool  // the names split already
	start, cased := -1, false // where the current name starts (-1 between names); it has a capital after its first letter
	for i := 0; i <= len(text); i++ {
		c := byte(' ') // the end of text ends a name
		if i < len(text) {
			c = text[i]
		}
		switch {
		case isLowerOrDigit(c):
			if start < 0 {
				start, cased = i, false
			}
		case isUpper(c):
			if start < 0 {
				start, cased = i, false
			} else {
				cased = true
			}
		case start >= 0:
			if name := text[start:i]; cased && len(name) <= maxIdentifier && !seen[name] {
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[name] = true
				writeIdentifierParts(&b, name)
			}
			start = -1
		}
	}
	return b.String()
}

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
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if isBigramRune(r) {
			return true
		}
		i += n
	}
	return false
}
