package redact

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// startMatcher finds an expression's matches by trying it only where a
// match can start: at the literals every match begins with. Go's regexp
// skips to a match's literal prefix by itself, but not when the
// expression starts with \b, is case-insensitive, or begins with one of
// several words: then it runs its automaton over the whole text. Three
// gitleaks rules (JWTs keyed on "ey", Authress keys on "sc_", Lob keys on
// "test_", words that much text holds) took 420 ms of one core to scan a
// 10,000-entry tape that way; tried at their starts, they take a few.
type startMatcher struct {
	starts   []string       // every match begins with one of these, lowered
	boundary bool           // the expression begins with \b, checked here
	anchored *regexp.Regexp // the expression, held to the start of its input
}

// minStart is the shortest start literal worth looking for: a single
// letter is nearly everywhere.
const minStart = 2

// newStartMatcher reads an expression's start literals, or says it has
// none this can use: then the expression is run as it is.
//
// The expression is tried on the text from a start on, where a \b before
// the start literal holds whatever came before (every start literal
// begins with a word character, and the start of an input is not one):
// that \b is checked on the whole text here.
func newStartMatcher(expr string) (*startMatcher, bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil || assertsLines(re) {
		return nil, false
	}
	starts, boundary, ok := startLiterals(re)
	if !ok {
		return nil, false
	}
	anchored, err := regexp.Compile(`^(?:` + expr + `)`)
	if err != nil {
		return nil, false
	}
	slices.Sort(starts)
	return &startMatcher{starts: slices.Compact(starts), boundary: boundary, anchored: anchored}, true
}

// startLiterals are the literals, lowered, one of which begins every
// match of re, and whether a \b comes before them; false when re can
// begin otherwise (with a class, an optional part, another assertion), with
// a literal shorter than minStart or one that does not begin with a word
// character, or with \b in some ways and not in others.
func startLiterals(re *syntax.Regexp) (starts []string, boundary, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if len(s) < minStart || !isASCII(s) || !isWordByte(s[0]) {
			return nil, false, false
		}
		return []string{strings.ToLower(s)}, false, true
	case syntax.OpCapture:
		return startLiterals(re.Sub[0])
	case syntax.OpConcat:
		subs := re.Sub
		for len(subs) > 0 && subs[0].Op == syntax.OpWordBoundary {
			subs, boundary = subs[1:], true
		}
		if len(subs) == 0 {
			return nil, false, false
		}
		starts, inner, ok := startLiterals(subs[0])
		return starts, boundary || inner, ok
	case syntax.OpAlternate:
		for i, sub := range re.Sub {
			s, b, ok := startLiterals(sub)
			if !ok || i > 0 && b != boundary {
				return nil, false, false
			}
			starts, boundary = append(starts, s...), b
		}
		return starts, boundary, true
	}
	return nil, false, false
}

// assertsLines reports whether re holds ^, \A or \B anywhere: held to
// the start of a piece of the text, they would hold where they do not in
// the whole.
func assertsLines(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpNoWordBoundary:
		return true
	}
	return slices.ContainsFunc(re.Sub, assertsLines)
}

func isASCII(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 })
}

// findAllIndex is regexp's FindAllStringIndex(text, -1) for the
// expression the matcher was made from; lower is text with A-Z lowered.
// Every match starts at a start literal, so trying the anchored
// expression at each, leftmost first and past the end of the last match,
// finds the same matches.
func (m *startMatcher) findAllIndex(text, lower string) [][]int {
	var found [][]int
	end := 0
	for _, at := range m.candidates(lower) {
		if at < end || m.boundary && !wordBoundary(text, at) {
			continue
		}
		if loc := m.anchored.FindStringIndex(text[at:]); loc != nil {
			found = append(found, []int{at, at + loc[1]})
			end = at + loc[1]
		}
	}
	return found
}

// candidates are the places in lower where a start literal is, in order.
func (m *startMatcher) candidates(lower string) []int {
	var at []int
	for _, s := range m.starts {
		for from := 0; ; {
			i := strings.Index(lower[from:], s)
			if i < 0 {
				break
			}
			at = append(at, from+i)
			from += i + 1
		}
	}
	if len(m.starts) > 1 {
		slices.Sort(at)
		at = slices.Compact(at)
	}
	return at
}

// wordBoundary is \b at i, as Go's regexp reads it (ASCII word
// characters).
func wordBoundary(text string, i int) bool {
	before := i > 0 && isWordByte(text[i-1])
	after := i < len(text) && isWordByte(text[i])
	return before != after
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// hasUnicodeFolds reports whether text holds a letter outside ASCII that
// a case-insensitive expression takes for an ASCII one (the Kelvin sign
// for k, the long s for s), which the lowered text the start literals are
// looked for in does not show: such a text is scanned the slow way. Two
// searches for a string, not strings.ContainsAny, which decodes every
// rune (7% of an export's time).
func hasUnicodeFolds(text string) bool {
	return strings.Contains(text, "\u212a") || strings.Contains(text, "\u017f")
}
