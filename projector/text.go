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

// IdentifierParts returns the parts of the camelCase and PascalCase words
// of text, separated by spaces, each word's once: "TestFlush calls
// newHandler and HTTPServer, then TestFlush" gives "Test Flush new Handler
// HTTP Server". (Once: a tool's output names the same function many times,
// and its parts only have to find the entry; the text column counts it.) Agents' sessions
// are full of code, and a person searching for "flush" means TestFlush
// too. The unicode61 tokenizer already splits snake_case and dotted names
// on their punctuation; a word splits where a lowercase letter meets an
// uppercase one, and before a capital that starts a word after a run of
// capitals or digits (HTTPServer, base64Encode); "utf8" and "sha256" stay
// whole. A word splits only into parts of two runes or more (so getX and
// iPhone stay whole), so that a hash or base64 ("aGVsbG8") does not fill
// the index with fragments. Han, Hiragana and Katakana end a word: they
// are Tokenize's.
func IdentifierParts(text string) string {
	var b strings.Builder
	var seen map[string]bool // the words split already
	split := func(word string) {
		if len(word) > maxIdentifier || !hasCaseChange(word) || seen[word] {
			return
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[word] = true
		writeIdentifierParts(&b, word)
	}
	start := -1 // where the current word starts, or -1 between words
	for i := 0; i < len(text); {
		inWord, size := wordRuneAt(text, i)
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			split(text[start:i])
			start = -1
		}
		i += size
	}
	if start >= 0 {
		split(text[start:])
	}
	return b.String()
}

// wordRuneAt reports whether the rune at text[i] belongs to a word that
// IdentifierParts may split (a letter or digit that Tokenize does not
// make bigrams of), and its size. ASCII is decided without decoding: a
// rebuild runs this on every byte of every entry, and with unicode's
// tables for each rune it cost a tenth of a rebuild (BenchmarkRebuildManyTapes).
func wordRuneAt(text string, i int) (bool, int) {
	if c := text[i]; c < utf8.RuneSelf {
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9', 1
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	return !isBigramRune(r) && (unicode.IsLetter(r) || unicode.IsDigit(r)), size
}

// writeIdentifierParts writes the parts of word, of at most
// maxIdentifier bytes, to b, if it has several.
func writeIdentifierParts(b *strings.Builder, word string) {
	var buf [maxIdentifier]rune
	rs := buf[:0]
	for _, r := range word {
		rs = append(rs, r)
	}
	cuts := make([]int, 1, maxIdentifierParts+1) // where each part starts, in runes
	for j := 1; j < len(rs); j++ {
		if splitsBefore(rs, j) {
			cuts = append(cuts, j)
		}
	}
	if len(cuts) < 2 || len(cuts) > maxIdentifierParts {
		return
	}
	cuts = append(cuts, len(rs))
	for k := 1; k < len(cuts); k++ {
		if cuts[k]-cuts[k-1] < 2 {
			return
		}
	}
	for k := 1; k < len(cuts); k++ {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(rs[cuts[k-1]:cuts[k]]))
	}
}

// splitsBefore reports whether a word of runes rs splits before rs[j]: an
// uppercase letter after a lowercase one (the F of TestFlush), or a
// capital followed by a lowercase letter after a capital or a digit (the
// S of HTTPServer, the E of base64Encode).
func splitsBefore(rs []rune, j int) bool {
	if !unicode.IsUpper(rs[j]) {
		return false
	}
	prev := rs[j-1]
	if unicode.IsLower(prev) {
		return true
	}
	return (unicode.IsUpper(prev) || unicode.IsDigit(prev)) && j+1 < len(rs) && unicode.IsLower(rs[j+1])
}

// hasCaseChange reports whether word has a lowercase letter followed by
// an uppercase one, or an uppercase one followed by a lowercase one after
// its first rune: the quick test that most words fail, before
// writeIdentifierParts looks for the splits.
func hasCaseChange(word string) bool {
	var prev rune
	for i, r := range word {
		if i > 0 && unicode.IsLower(prev) && unicode.IsUpper(r) {
			return true
		}
		if i > 1 && unicode.IsUpper(prev) && unicode.IsLower(r) {
			return true // HTTPServer; i > 1 passes over a capital that starts the word
		}
		prev = r
	}
	return false
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
