package searchlang

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MatchExpr turns what a user typed into an FTS5 MATCH expression that can
// never be an FTS5 syntax error:
//
//   - words separated by spaces are AND'ed;
//   - "quoted text" is a phrase (an unbalanced quote runs to the end);
//   - a word ending in * is a prefix;
//   - everything else is literal text: each term is passed to FTS5 as a
//     quoted string, so NEAR(, a:b, -x and AND are words, not operators.
//
// Han, Hiragana and Katakana runs become the bigrams Tokenize indexes; a
// one-character run is a prefix query, which matches the bigrams it starts
// and the character standing alone at the end of a run. ok is false when
// the query has no word to look for.
func MatchExpr(query string) (expr string, ok bool) {
	return matchExpr(query, false)
}

// LooseExpr is MatchExpr with every phrase of several tokens (a quoted
// phrase, a word such as a:b, a run of Chinese) taken apart into its tokens,
// AND'ed: it matches every entry the query matches, and more. Search asks
// it whether the query is common: FTS5 tells that of an AND of words by
// stopping at the window, but of a phrase only by checking every entry
// that has all its words.
func LooseExpr(query string) (expr string, ok bool) {
	return matchExpr(query, true)
}

func matchExpr(query string, loose bool) (expr string, ok bool) {
	var parts []string
	for _, t := range splitTerms(query) {
		tokens, prefix := termTokens(t.text, t.prefix)
		switch {
		case len(tokens) == 0:
		case loose && !prefix:
			for _, tok := range tokens {
				// A token FTS5 reads as no token (a combining mark alone,
				// a symbol such as ㌔ in a run of Han or Katakana) is an
				// empty phrase, which matches nothing: leaving it out only
				// loosens the AND.
				if strings.ContainsFunc(tok, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) {
					parts = append(parts, `"`+tok+`"`)
				}
			}
		default:
			q := `"` + strings.Join(tokens, " ") + `"`
			if prefix {
				q += " *"
			}
			parts = append(parts, q)
		}
	}
	return strings.Join(parts, " AND "), len(parts) > 0
}

// AnyExpr is the query's terms, each as MatchExpr writes it, OR'ed: what
// matches any of them (the relaxed pass of a search whose terms together
// match too little). terms are the terms' own expressions, to count how
// many of them an entry matches. ok is false for a query of fewer than
// two terms: there is nothing to relax.
func AnyExpr(query string) (expr string, terms []string, ok bool) {
	for _, t := range splitTerms(query) {
		tokens, prefix := termTokens(t.text, t.prefix)
		if len(tokens) == 0 {
			continue
		}
		q := `"` + strings.Join(tokens, " ") + `"`
		if prefix {
			q += " *"
		}
		terms = append(terms, q)
	}
	if len(terms) < 2 {
		return "", nil, false
	}
	return strings.Join(terms, " OR "), terms, true
}

type term struct {
	text   string
	prefix bool
}

// splitTerms splits a query into words and quoted phrases.
func splitTerms(query string) []term {
	var terms []term
	for rest := query; ; {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			return terms
		}
		if rest[0] == '"' {
			phrase, after, found := strings.Cut(rest[1:], `"`)
			terms = append(terms, term{text: phrase})
			if !found {
				return terms
			}
			rest = after
			continue
		}
		end := strings.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			end = len(rest)
		}
		word := rest[:end]
		prefix := len(word) > 1 && strings.HasSuffix(word, "*")
		terms = append(terms, term{text: strings.TrimSuffix(word, "*"), prefix: prefix})
		rest = rest[end:]
	}
}

// termTokens is one term as FTS5 tokens, and whether the last is a prefix.
// MatchExpr passes them as an FTS5 string: space-separated, in double
// quotes, with " *" for a prefix.
func termTokens(text string, prefix bool) ([]string, bool) {
	var tokens []string
	var word strings.Builder
	flushWord := func() {
		if word.Len() > 0 {
			tokens = append(tokens, word.String())
			word.Reset()
		}
	}
	var run []rune
	flushRun := func(last bool) {
		switch {
		case len(run) == 1:
			tokens = append(tokens, string(run))
			if last {
				prefix = true
			}
		case len(run) > 1:
			for i := 0; i+1 < len(run); i++ {
				tokens = append(tokens, string(run[i:i+2]))
			}
			if !last {
				// The index has the run's last character alone after its
				// bigrams; a phrase that goes on past the run must too.
				tokens = append(tokens, string(run[len(run)-1]))
			}
		}
		run = run[:0]
	}
	for i, r := range text {
		switch {
		case isBigramRune(r):
			flushWord()
			run = append(run, r)
			if i+utf8.RuneLen(r) == len(text) {
				flushRun(true)
			}
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r):
			flushRun(false)
			word.WriteRune(r)
		default:
			flushRun(false)
			flushWord()
		}
	}
	flushRun(true)
	flushWord()
	return tokens, prefix
}

// QueryTerm is one term of a query as the index's tokens: a word, a
// quoted phrase, a run of Chinese, each a phrase of its tokens; Prefix
// says its last token is a prefix.
type QueryTerm struct {
	Tokens []string
	Prefix bool
}

// QueryTerms reads a query as MatchExpr reads it, for another index that
// keeps the same tokens (the team index, package remote): the terms that
// have a token, all of which an entry must match.
func QueryTerms(query string) []QueryTerm {
	var out []QueryTerm
	for _, t := range splitTerms(query) {
		if tokens, prefix := termTokens(t.text, t.prefix); len(tokens) > 0 {
			out = append(out, QueryTerm{Tokens: tokens, Prefix: prefix})
		}
	}
	return out
}
