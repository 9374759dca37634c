package redact

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/redact/redacttest"
)

// sameMatches fails t where a rule's start matcher finds other matches in
// text than its expression run over the whole text does, and counts them.
func sameMatches(t *testing.T, g *gitleaksRules, text string) (matches int) {
	t.Helper()
	if hasUnicodeFolds(text) {
		return 0 // scanned the slow way (find)
	}
	lower := asciiLower(text)
	for n := range g.rules {
		m := g.startsOf(n)
		if m == nil {
			continue
		}
		want := g.rules[n].Regex.FindAllStringIndex(text, -1)
		if got := m.findAllIndex(text, lower); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("%s in %q: found %v at their starts, %v over the whole text", g.rules[n].RuleID, text, got, want)
		}
		matches += len(want)
	}
	return matches
}

// Tried at their starts, the rules find what they find over the whole
// text: in planted secrets (next to words and in runs of them), this
// the import fixtures.
func TestStartMatchersFindWhatTheExpressionsFind(t *testing.T) {
	t.Parallel()
	g := testRedactor(t).gitleaks
	withMatcher := 0
	for n := range g.rules {
		if g.startsOf(n) != nil {
			withMatcher++
		}
	}
	if withMatcher < len(g.rules)/2 {
		t.Fatalf("%d of %d rules have start matchers; want most", withMatcher, len(g.rules))
	}
	var texts []string
	for seed := range uint64(3) {
		var run strings.Builder
		for _, p := range redacttest.Secrets(rand.New(rand.NewPCG(seed, 37))) {
			texts = append(texts, p.Line, "they"+p.Secret, "x_"+p.Secret+"_"+p.Secret, strings.ToUpper(p.Line))
			run.WriteString(p.Secret)
			run.WriteString(" ")
		}
		texts = append(texts, run.String())
	}
	err := filepath.WalkDir(filepath.Join("..", "testdata", "import"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		texts = append(texts, string(data[:min(len(data), 2048)])) // every rule over all 2 MB took 9 s
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, text := range texts {
		found += sameMatches(t, g, text)
	}
	if found < 20 {
		t.Fatalf("the rules with start matchers matched %d times; the test needs matches to compare", found)
	}
}

func TestStartLiterals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr     string
		starts   []string
		boundary bool
	}{
		{`\b(ey[a-z]{3})`, []string{"ey"}, true},
		{`(?i)(?:lob)[ \t]{0,3}=x`, []string{"lob"}, false},
		{`\b((?:sc|ext|scauth)_[a-z]{5})`, []string{"ext", "sc", "scauth"}, true},
		{`(?i)\bGHP_[0-9]{3}`, []string{"ghp_"}, true},
		{`(?i)\b(\b(?:sgp_|glpat-)[0-9]{3})`, []string{"glpat-", "sgp_"}, true},
	} {
		m, ok := newStartMatcher(tc.expr)
		if !ok || !slices.Equal(m.starts, tc.starts) || m.boundary != tc.boundary {
			t.Errorf("newStartMatcher(%q) = %+v, %v; want starts %q, boundary %v", tc.expr, m, ok, tc.starts, tc.boundary)
		}
	}
	for _, expr := range []string{`[a-z]{14}\.atlasv1`, `(?:https?://)?hooks`, `(?m)^key=`, `a[bc]`, `x?yz`, `(?i)é+x`, `\b-----BEGIN`, `(?:\bab|cd)`, `\Bab`} {
		if m, ok := newStartMatcher(expr); ok {
			t.Errorf("newStartMatcher(%q) = %+v; want none: a match need not start with a literal found here", expr, m)
		}
	}
}

func FuzzStartMatchers(f *testing.F) {
	f.Add("eyJhbGciOiJIUzI1NiJ9xxxxxx.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklm ")
	f.Add("they key obey eyes sc_abcde.abcd.acc_0123456789.0123456789012345678901234567890123")
	f.Add("LOB_KEY = test_0123456789abcdef0123456789abcdef012")
	g := testRedactor(f).gitleaks
	f.Fuzz(func(t *testing.T, text string) {
		sameMatches(t, g, text)
	})
}
