package redact

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// gitleaksRules are gitleaks' rules, run as its detector runs them on a
// text with no path: a rule whose keywords the text holds (one
// Aho-Corasick pass for all of them) runs its expression; the secret is
// its secret group (else its first group that matched, else the match);
// a secret of less entropy than the rule asks for, or one that the global
// or the rule's allowlists allow (their expressions, aimed at the secret,
// the match or its line, and their stop words), is not one. Rules that
// need a path are left out, as are dropped ones. Left out of what its
// detector does: decoding base64 and percent-encoded text to scan again,
// and the distance a composite rule's parts must be within (its parts
// must all be found in the text).
//
// gitleaks' detect package would do this, but it links archive readers,
// file-type matchers and a logger whose package initializers cost every
// tape process 7 ms (GODEBUG=inittrace=1); its config package alone is
// what the rules are.
type gitleaksRules struct {
	rules      []config.Rule
	starts     []startsOnce // by rule, where its matches start
	byKeyword  [][]int      // by keyword number, the rules it unlocks
	always     []int        // rules with no keyword
	keywords   *ahocorasick.Trie
	allowlists []*config.Allowlist // global
	index      map[string]int      // rule id -> place in rules
}

// semiGenericPrefix starts the expressions of half of gitleaks' rules
// (its semi-generic ones: a name, then an assignment, then the secret):
// up to 50 name characters before the vendor's name. It only widens the
// match to the left; the secret is a group further on. Run as written, it
// made one rule (lob-api-key, keyed on "test_") 700 ms of a 10,000-entry
// export's 1,400 ms of scanning: it is cut off, and the match starts at
// the vendor's name. (An allowlist aimed at the match sees it so.)
const semiGenericPrefix = `(?i)[\w.-]{0,50}?`

// loadGitleaks reads gitleaks' default configuration, through a viper
// instance of its own (not viper's global one).
func loadGitleaks(drop []string) (*gitleaksRules, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("read the gitleaks rules: %w", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, fmt.Errorf("read the gitleaks rules: %w", err)
	}
	// Dropped rules go before gitleaks translates the rest: generic-api-key
	// has 1,500 stop words, of which it builds an Aho-Corasick automaton
	// (37 ms, two thirds of New).
	kept := vc.Rules[:0]
	for _, r := range vc.Rules {
		if !slices.Contains(drop, r.ID) {
			kept = append(kept, r)
		}
	}
	vc.Rules = kept
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("read the gitleaks rules: %w", err)
	}
	g := &gitleaksRules{allowlists: cfg.Allowlists, index: map[string]int{}}
	var words []string
	wordNo := map[string]int{}
	for _, id := range slices.Sorted(maps.Keys(cfg.Rules)) {
		r := cfg.Rules[id]
		if r.Regex == nil || r.Path != nil {
			continue
		}
		if rest, ok := strings.CutPrefix(r.Regex.String(), semiGenericPrefix); ok {
			re, err := regexp.Compile("(?i)" + rest)
			if err != nil {
				return nil, fmt.Errorf("read the gitleaks rules: %s: %w", id, err)
			}
			r.Regex = re
		}
		n := len(g.rules)
		g.index[id] = n
		g.rules = append(g.rules, r)
		if len(r.Keywords) == 0 {
			g.always = append(g.always, n)
			continue
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			w, ok := wordNo[k]
			if !ok {
				w = len(words)
				wordNo[k] = w
				words = append(words, k)
				g.byKeyword = append(g.byKeyword, nil)
			}
			g.byKeyword[w] = append(g.byKeyword[w], n)
		}
	}
	g.keywords = ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	g.starts = make([]startsOnce, len(g.rules))
	return g, nil
}

// startsOnce is a rule's startMatcher, read when the rule first runs:
// reading all of them took as long as the rest of New, and most rules
// never run in a command.
type startsOnce struct {
	once sync.Once
	m    *startMatcher // nil: the rule's matches can start anywhere
}

// startsOf is rule n's startMatcher, or nil.
func (g *gitleaksRules) startsOf(n int) *startMatcher {
	s := &g.starts[n]
	s.once.Do(func() { s.m, _ = newStartMatcher(g.rules[n].Regex.String()) })
	return s.m
}

// find runs the rules on text; lower is text with A-Z lowered.
func (g *gitleaksRules) find(text, lower string) []Finding {
	run := make([]bool, len(g.rules))
	for _, n := range g.always {
		run[n] = true
	}
	g.keywords.Walk([]byte(lower), func(_, _, w int64) bool {
		for _, n := range g.byKeyword[w] {
			run[n] = true
		}
		return true
	})
	var found []Finding
	matched := map[string]bool{}
	folds := hasUnicodeFolds(text)
	for n, on := range run {
		if !on {
			continue
		}
		r := &g.rules[n]
		var at [][]int
		if m := g.startsOf(n); m != nil && !folds {
			at = m.findAllIndex(text, lower)
		} else {
			at = r.Regex.FindAllStringIndex(text, -1)
		}
		for _, f := range g.findRule(r, text, at) {
			matched[r.RuleID] = true
			found = append(found, f)
		}
	}
	return slices.DeleteFunc(found, func(f Finding) bool { return !g.partsFound(f.Kind, matched) })
}

// findRule is one rule's secrets in text, of its matches at.
func (g *gitleaksRules) findRule(r *config.Rule, text string, at [][]int) []Finding {
	var found []Finding
	for _, m := range at {
		match := strings.Trim(text[m[0]:m[1]], "\n")
		secret := match
		if groups := r.Regex.FindStringSubmatch(match); len(groups) >= 2 {
			if r.SecretGroup > 0 {
				if r.SecretGroup >= len(groups) {
					continue
				}
				secret = groups[r.SecretGroup]
			} else if i := slices.IndexFunc(groups[1:], func(s string) bool { return s != "" }); i >= 0 {
				secret = groups[1+i]
			}
		}
		if r.Entropy != 0 && entropy(secret) <= r.Entropy {
			continue
		}
		line := lineAround(text, m[0], m[1])
		if allowed(g.allowlists, secret, match, line) || allowed(r.Allowlists, secret, match, line) {
			continue
		}
		found = append(found, Finding{Kind: r.RuleID, Secret: secret})
	}
	return found
}

// partsFound reports whether the rules a composite rule requires matched
// too.
func (g *gitleaksRules) partsFound(id string, matched map[string]bool) bool {
	n, ok := g.index[id]
	if !ok {
		return true
	}
	for _, req := range g.rules[n].RequiredRules {
		if !matched[req.RuleID] {
			return false
		}
	}
	return true
}

// allowed reports whether an allowlist lets a finding go, as gitleaks
// decides it without a commit or a path: those conditions do not hold.
func allowed(lists []*config.Allowlist, secret, match, line string) bool {
	for _, a := range lists {
		target := secret
		switch a.RegexTarget {
		case "match":
			target = match
		case "line":
			target = line
		}
		byRegex := a.RegexAllowed(target)
		byWord, _ := a.ContainsStopWord(secret)
		if a.MatchCondition != config.AllowlistMatchAnd {
			if byRegex || byWord {
				return true
			}
			continue
		}
		if len(a.Commits) > 0 || len(a.Paths) > 0 || len(a.Regexes) == 0 && len(a.StopWords) == 0 {
			continue
		}
		if (len(a.Regexes) == 0 || byRegex) && (len(a.StopWords) == 0 || byWord) {
			return true
		}
	}
	return false
}

// lineAround is the line of text that holds text[start:end], from the
// newline before it to the one after.
func lineAround(text string, start, end int) string {
	from := strings.LastIndexByte(text[:start], '\n') + 1
	to := strings.IndexByte(text[end:], '\n')
	if to < 0 {
		return text[from:]
	}
	return text[from : end+to]
}
