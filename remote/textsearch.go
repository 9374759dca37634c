package remote

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/tape-dev/tape/internal/searchlang"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Full-text search on the server is PostgreSQL's (a tsvector per entry, a
// GIN index, tsquery, ts_rank), fed with the tokens the local index has:
// tape splits the text itself, by the local index's rules, and hands
// PostgreSQL lexemes, never text for its parser. So English, code
// identifiers, Chinese and Japanese are found as they are found locally:
//
//   - the search text and the parts of camelCase names are the local
//     index's (projector.EntryRow): "flush" finds TestFlush;
//   - runs of Han, Hiragana and Katakana become the same overlapping
//     bigrams (searchlang.Tokenize), so 错误 finds 发生了错误;
//   - words are runs of letters, numbers and nonspacing marks, folded to
//     lower case, their diacritics removed, as FTS5's unicode61
//     tokenizer splits them; no stemming, no stop words;
//   - a query is read as the local one (searchlang.QueryTerms): words
//     AND'ed, "phrases" as <-> chains, prefix* as :*.
//
// The text's words carry weight A and the names' parts weight B, which
// ts_rank weighs at 1.0 and 0.5, as bm25 weighs the two columns locally.
//
// PostgreSQL bounds a tsvector: a lexeme of at most 2,047 bytes, at most
// 256 positions each, positions up to 16,383, and 1 MB in all. A longer
// word is left out; a lexeme keeps its first 256 positions (a phrase of
// a word more frequent than that in one entry matches only among them,
// as with PostgreSQL's own to_tsvector); a
// word past position 16,383 takes that position (phrases that far into
// an entry match loosely, as with PostgreSQL's own to_tsvector); and an
// entry's lexemes stop at maxVectorBytes (a tool output of several
// megabytes is found by the words of its first half megabyte).

const (
	maxLexemeBytes = 2047
	maxPositions   = 256
	maxPosition    = 16383
	maxVectorBytes = 512 << 10
)

// rankWeights are ts_rank's weights of D, C, B and A.
const rankWeights = `'{0.1, 0.2, 0.5, 1.0}'`

// searchVector is the tsvector of an entry's search text and the parts of
// the names in it; not Valid when it has no word.
func searchVector(text, parts string) pgtype.TSVector {
	b := vectorBuilder{lexemes: map[string][]pgtype.TSVectorPosition{}}
	b.add(searchlang.Tokenize(text), pgtype.TSVectorWeightA)
	b.add(parts, pgtype.TSVectorWeightB)
	return b.vector()
}

type vectorBuilder struct {
	lexemes map[string][]pgtype.TSVectorPosition
	pos     int // of the last word added
	bytes   int
	full    bool
}

func (b *vectorBuilder) add(text string, weight pgtype.TSVectorWeight) {
	forEachWord(text, func(w string) {
		b.pos++
		if b.full || len(w) > maxLexemeBytes {
			return
		}
		w = fold(w)
		positions, seen := b.lexemes[w]
		if !seen {
			if b.bytes+len(w)+8 > maxVectorBytes {
				b.full = true
				return
			}
			b.bytes += len(w) + 8
		}
		p := uint16(min(b.pos, maxPosition))
		if len(positions) == maxPositions || (len(positions) > 0 && positions[len(positions)-1].Position >= p) {
			b.lexemes[w] = positions // seen: keep it a key
			return
		}
		b.lexemes[w] = append(positions, pgtype.TSVectorPosition{Position: p, Weight: weight})
	})
}

// vector is the lexemes sorted as PostgreSQL sorts them (by bytes, a
// prefix first), which its binary input requires.
func (b *vectorBuilder) vector() pgtype.TSVector {
	if len(b.lexemes) == 0 {
		return pgtype.TSVector{}
	}
	words := make([]string, 0, len(b.lexemes))
	for w := range b.lexemes {
		words = append(words, w)
	}
	slices.Sort(words)
	v := pgtype.TSVector{Valid: true, Lexemes: make([]pgtype.TSVectorLexeme, len(words))}
	for i, w := range words {
		v.Lexemes[i] = pgtype.TSVectorLexeme{Word: w, Positions: b.lexemes[w]}
	}
	return v
}

// forEachWord calls fn with each word of text: a run of letters, numbers
// and nonspacing marks, the characters unicode61 keeps in a token.
func forEachWord(text string, fn func(string)) {
	start := -1
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			fn(text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		fn(text[start:])
	}
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r)
}

// fold is a word as both the vectors and the queries hold it: lower case,
// without diacritics (é is e, ü is u).
func fold(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || norm.NFD.QuickSpanString(w) == len(w) && !strings.ContainsFunc(w, isMark) {
		return strings.ToLower(w) // nothing to take apart: Chinese, Japanese, most text (the transform below cost a sync 60% of its CPU)
	}
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	if s, _, err := transform.String(t, w); err == nil && s != "" {
		w = s
	}
	return strings.ToLower(w)
}

func isMark(r rune) bool { return unicode.Is(unicode.Mn, r) }

// tsQuery is the tsquery of a search query, as the text PostgreSQL reads
// with ::tsquery (no parser, no dictionary: the lexemes are tape's); ok is
// false when it has no word.
func tsQuery(query string) (q string, ok bool) { return buildTSQuery(query, " <-> ") }

// looseTSQuery is tsQuery with its phrases taken apart, their words
// AND'ed: it matches every entry the query matches, and more. GIN answers
// it from the index alone, where a phrase must be checked in each entry's
// vector; Search asks it whether the query is common (see Search).
func looseTSQuery(query string) (q string, ok bool) { return buildTSQuery(query, " & ") }

func buildTSQuery(query, within string) (q string, ok bool) {
	var terms []string
	for _, t := range searchlang.QueryTerms(query) {
		var words []string
		for _, tok := range t.Tokens {
			forEachWord(tok, func(w string) { words = append(words, fold(w)) })
		}
		if len(words) == 0 {
			continue
		}
		var b strings.Builder
		for i, w := range words {
			if i > 0 {
				b.WriteString(within)
			}
			b.WriteString(quoteLexeme(w))
			if t.Prefix && i == len(words)-1 {
				b.WriteString(":*")
			}
		}
		term := b.String()
		if len(words) > 1 {
			term = "(" + term + ")"
		}
		terms = append(terms, term)
	}
	return strings.Join(terms, " & "), len(terms) > 0
}

// quoteLexeme quotes a lexeme for tsquery's input: in single quotes, with
// a quote and a backslash escaped by a backslash.
func quoteLexeme(w string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(w); i++ {
		if w[i] == '\'' || w[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(w[i])
	}
	b.WriteByte('\'')
	return b.String()
}
