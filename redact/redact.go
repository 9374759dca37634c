// Package redact finds secrets in what a transcript holds and replaces
// them with [REDACTED:<kind>], wherever data leaves the machine: an
// export, a sync to the team index, a page served beyond loopback, an MCP
// result. The files are never changed; what leaves is.
//
// Detection is gitleaks' rule set (its default configuration: some 220
// rules for cloud keys and the tokens of GitHub, GitLab, Slack, Stripe,
// OpenAI, Anthropic, Google and others, kept up to date by its project),
// with its generic rule for keys replaced by this package's own, and
// three more of this package's (rules.go): private-key blocks, passwords
// in URLs, and values of high entropy assigned to key-like names (as in
// .env files, JSON, YAML, command lines). Decision 0107.
package redact

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/tape-dev/tape/internal/rawjson"
)

// Finding is one secret found: its kind (a gitleaks rule id, or one of
// this package's: private-key, url-password, assigned-secret) and the
// secret itself, which callers must not print.
type Finding struct {
	Kind   string
	Secret string
}

// Redactor finds and replaces secrets. It is safe for concurrent use.
// Building one parses and compiles the rule set (some 80 ms): build it
// once, when something is about to leave the machine.
type Redactor struct {
	gitleaks *gitleaksRules
	own      *ownRules
}

// dropped are gitleaks rules this package does in its own way: the
// generic key rule took three quarters of the scan time of source text
// (it runs a long expression wherever "key", "token", "auth"... appear),
// assigned-secret covers it; the Vault token rule, keyed on "s.", ran on
// nearly every piece of code and halved the speed of the rest, and
// vaultTokens (rules.go) finds the same tokens from "hvs." and, in a text
// that names Vault, from "s.".
var dropped = []string{"generic-api-key", "vault-service-token"}

// New builds a Redactor.
func New() (*Redactor, error) {
	g, err := loadGitleaks(dropped)
	if err != nil {
		return nil, err
	}
	if len(g.rules) == 0 {
		return nil, errors.New("redact: the gitleaks rule set is empty")
	}
	return &Redactor{gitleaks: g, own: compileOwn()}, nil
}

// Find lists the secrets in text, each once, the longest first.
func (r *Redactor) Find(text string) []Finding {
	lower := asciiLower(text) // every rule's keywords and names are ASCII: one lowering for all
	var found []Finding
	for _, f := range r.gitleaks.find(text, lower) {
		if f.Secret = strings.TrimSpace(f.Secret); len(f.Secret) >= minSecret {
			found = append(found, f)
		}
	}
	found = append(found, r.own.find(text, lower)...)
	return Dedupe(found)
}

// minSecret is the shortest secret replaced: shorter matches are noise
// (and replacing every "abc" in a text would be its own harm).
const minSecret = 8

// Dedupe keeps one finding per secret (the first kind found), longest
// first, so that a secret is replaced before any part of it: the order
// Replace wants.
func Dedupe(found []Finding) []Finding {
	seen := map[string]bool{}
	out := found[:0]
	for _, f := range found {
		if !seen[f.Secret] {
			seen[f.Secret] = true
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return cmp.Compare(len(b.Secret), len(a.Secret)) })
	return out
}

// Text is text with every secret found replaced by [REDACTED:<kind>],
// and what was found.
func (r *Redactor) Text(text string) (string, []Finding) {
	found := r.Find(text)
	return Replace(text, found), found
}

// Replace replaces each finding's secret in text, every place it occurs,
// in each of its Forms; then the starts and ends of secrets cut short.
func Replace(text string, found []Finding) string { return NewReplacer(found, Forms).Replace(text) }

// Forms are the ways a secret is written where tape sends it: as it is,
// and as it reads inside a JSON string, once or twice escaped (a secret
// with a newline or a quote, in a JSON line; in a JSON text held as a
// string of one, as a call's arguments are).
func Forms(secret string) []string {
	once := jsonInner(secret)
	return []string{secret, once, jsonInner(once)}
}

// Replacer replaces a set of findings in many texts: built once, it
// passes over each text once for the whole secrets, in every form forms
// gives (strings.Replacer, in the order of found, the longest first), and
// once for the cut ones (a text's windows of cutPrefix bytes looked up
// among the secrets' starts and ends), so that thousands of secrets in
// thousands of strings cost their bytes, not their product.
type Replacer struct {
	whole *strings.Replacer
	found []Finding
	heads map[string][]int // a secret's first cutPrefix bytes -> its findings
	tails map[string][]int // and its last
}

// NewReplacer is a Replacer of found, each secret written in the forms
// forms gives (Forms; the web page adds HTML's escapes).
func NewReplacer(found []Finding, forms func(string) []string) *Replacer {
	r := &Replacer{found: found, heads: map[string][]int{}, tails: map[string][]int{}}
	var pairs []string
	for i, f := range found {
		for _, form := range forms(f.Secret) {
			pairs = append(pairs, form, Mark(f.Kind))
		}
		if len(f.Secret) >= 2*cutPrefix {
			head, tail := f.Secret[:cutPrefix], f.Secret[len(f.Secret)-cutPrefix:]
			r.heads[head] = append(r.heads[head], i)
			r.tails[tail] = append(r.tails[tail], i)
		}
	}
	r.whole = strings.NewReplacer(pairs...)
	return r
}

// cutPrefix is how much of a secret's start or end, at least, is taken
// for the secret cut short: a search's snippet, an excerpt in a summary,
// cut at a width, shows the start of what it cuts, or begins inside it.
const cutPrefix = 12

// Replace is text with the whole secrets replaced, then those cut short:
// at each window of text that is a secret's start, as far on as text and
// the secret agree; at each that is a secret's end, as far back. (Cut
// secrets come second: a start shared by two secrets, a vendor's prefix,
// must not cut into a whole one before it is replaced.)
func (r *Replacer) Replace(text string) string {
	if len(r.found) == 0 {
		return text
	}
	text = r.whole.Replace(text)
	type cut struct {
		start, end int
		kind       string
	}
	var cuts []cut
	for i := 0; i+cutPrefix <= len(text); i++ {
		w := text[i : i+cutPrefix]
		for _, n := range r.heads[w] {
			s, end := r.found[n].Secret, i+cutPrefix
			for end < len(text) && end-i < len(s) && text[end] == s[end-i] {
				end++
			}
			cuts = append(cuts, cut{i, end, r.found[n].Kind})
		}
		for _, n := range r.tails[w] {
			s, start := r.found[n].Secret, i
			for start > 0 && i+cutPrefix-start < len(s) && text[start-1] == s[len(s)-(i+cutPrefix-start)-1] {
				start--
			}
			cuts = append(cuts, cut{start, i + cutPrefix, r.found[n].Kind})
		}
	}
	if len(cuts) == 0 {
		return text
	}
	slices.SortFunc(cuts, func(a, b cut) int { return cmp.Compare(a.start, b.start) })
	var b strings.Builder
	last := 0
	for _, c := range cuts {
		if c.end <= last {
			continue // within a cut already made
		}
		if c.start >= last {
			b.WriteString(text[last:c.start])
			b.WriteString(Mark(c.kind))
		}
		last = c.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// jsonInner is s as it reads inside a JSON string.
func jsonInner(s string) string {
	q := rawjson.AppendString(nil, s)
	return string(q[1 : len(q)-1])
}

// Mark is what a secret of a kind becomes.
func Mark(kind string) string { return "[REDACTED:" + kind + "]" }

// Title is a session's title with its secrets replaced. A title is the
// first prompt, cut at a length: a secret the cut fell inside is no
// secret to the rules, so a long title's last word, when it looks like a
// token (16 bytes or more of letters and digits mixed, with the other
// bytes secrets are written with), goes too.
func (r *Redactor) Title(s string) string {
	t, _ := r.Text(s)
	if len(s) < 256 {
		return t
	}
	i := strings.LastIndexFunc(t, func(c rune) bool { return c > 0x7f || !valueByte(byte(c)) })
	if last := t[i+1:]; len(last) >= 16 && secretLike(last) {
		return t[:i+1] + "…"
	}
	return t
}
