package redact

import (
	"math"
	"regexp"
	"strings"
)

// This package's own rules, beside gitleaks': what a transcript holds
// that a rule for one vendor's token does not catch.

// ownRules are this package's expressions, compiled when a Redactor is
// made rather than when the package is loaded: every tape process loads
// it, few redact.
type ownRules struct{ privateKey, urlPassword, keyName, vault *regexp.Regexp }

func compileOwn() *ownRules {
	return &ownRules{
		privateKey:  regexp.MustCompile(privateKeyExpr),
		urlPassword: regexp.MustCompile(urlPasswordExpr),
		keyName:     regexp.MustCompile(keyNameExpr),
		vault:       regexp.MustCompile(vaultExpr),
	}
}

// privateKeyExpr is a PEM private-key block, or the start of one that a
// tool's output cut short: from its BEGIN line to its END line, else to
// the end of the text (never across a NUL, which JSON() puts between the
// strings it scans together).
const privateKeyExpr = `-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----[^\x00]*?(?:-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----|\z|\x00)`

// urlPasswordExpr is the password of a URL's user info: scheme://user:PASSWORD@host.
const urlPasswordExpr = `\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s/:@'"]{1,200}:([^\s/@'"]{1,200})@[a-zA-Z0-9.\[\]-]`

// vaultExpr is a HashiCorp Vault service token: hvs. and 90 to 120
// characters, or, before Vault 1.10, s. and 24 letters and digits.
const vaultExpr = `\b(hvs\.[\w-]{90,120}|s\.[A-Za-z0-9]{24})(?:[\x60'"\s;]|\\[nr]|$)`

// keyName is a key-like name, lowercased: the names whose values are
// secrets (API_KEY, client_secret, DB_PASSWORD, authToken...).
const keyNameExpr = `(?:api[_-]?key|apikey|secret|token|passw(?:or)?d|passwd|pwd|credential|auth[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|signing[_-]?key)`

// nameStems are what every key-like name holds; the scan for assigned
// values starts at each place one is, rather than running an expression
// over the whole text (which, case-insensitive, was three quarters of the
// scan time of source text).
var nameStems = []string{"key", "secret", "token", "pass", "pwd", "credential"}

// find runs this package's rules; lower is text with A-Z lowered.
func (o *ownRules) find(text, lower string) []Finding {
	var found []Finding
	if strings.Contains(text, "PRIVATE KEY") {
		for _, m := range o.privateKey.FindAllString(text, -1) {
			found = append(found, Finding{Kind: "private-key", Secret: strings.TrimRight(m, "\x00")})
		}
	}
	if strings.Contains(text, "://") {
		for _, m := range o.urlPassword.FindAllStringSubmatch(text, -1) {
			if pw := m[1]; !placeholder(pw) {
				found = append(found, Finding{Kind: "url-password", Secret: pw})
			}
		}
	}
	if strings.Contains(text, "hvs.") || strings.Contains(lower, "vault") {
		for _, m := range o.vault.FindAllStringSubmatch(text, -1) {
			if v := m[1]; entropy(v) > 3.5 && strings.ContainsAny(v, "0123456789") {
				found = append(found, Finding{Kind: "vault-service-token", Secret: v})
			}
		}
	}
	return append(found, o.assignedValues(text, lower)...)
}

// assignedValues are the values given to key-like names that look like
// secrets: KEY=value (.env, a shell), "key": "value" (JSON), key: value
// (YAML), key := "value". A flag's value (--password value) is not one:
// often not a secret, and caught by the vendors' rules when it is theirs.
func (o *ownRules) assignedValues(text, lower string) []Finding {
	seen := map[int]bool{} // names by where they start
	var found []Finding
	for _, stem := range nameStems {
		for at := 0; ; {
			i := strings.Index(lower[at:], stem)
			if i < 0 {
				break
			}
			start, end := nameBounds(lower, i+at, i+at+len(stem))
			at = end // each name is looked at once, whatever stems it holds
			if seen[start] || end-start > maxName {
				continue
			}
			seen[start] = true
			if !o.keyName.MatchString(lower[start:end]) {
				continue
			}
			if v := valueAfter(text, end); len(v) >= minSecret && secretLike(v) {
				found = append(found, Finding{Kind: "assigned-secret", Secret: v})
			}
		}
	}
	return found
}

// maxName is the longest key-like name looked at: a longer run of name
// bytes is no variable's name (and, looked at whole for each stem in it,
// made a scan quadratic in it).
const maxName = 64

// nameBounds widens text[i:j] to the name around it.
func nameBounds(text string, i, j int) (int, int) {
	for i > 0 && nameByte(text[i-1]) {
		i--
	}
	for j < len(text) && nameByte(text[j]) {
		j++
	}
	return i, j
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// valueAfter is the value assigned after a name that ends at i: a quote
// that closes the name, blanks, an operator (=, :, :=, =>), blanks, a
// quote, then up to 256 bytes of what a secret is written with; "" when
// no operator follows.
func valueAfter(text string, i int) string {
	skip := func(set string) {
		for i < len(text) && strings.IndexByte(set, text[i]) >= 0 {
			i++
		}
	}
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	skip(" \t")
	switch {
	case strings.HasPrefix(text[i:], ":="), strings.HasPrefix(text[i:], "=>"):
		i += 2
	case strings.HasPrefix(text[i:], "="), strings.HasPrefix(text[i:], ":"):
		i++
	default:
		return ""
	}
	skip(" \t")
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	j := i
	for j < len(text) && j-i < 256 && valueByte(text[j]) {
		j++
	}
	return text[i:j]
}

func valueByte(c byte) bool {
	return nameByte(c) || strings.IndexByte("+/=~!@#$%^&*", c) >= 0
}

// asciiLower is text with A-Z lowered and every other byte kept, so that
// its offsets are text's.
func asciiLower(text string) string {
	b := []byte(text)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// placeholder reports whether a value stands for a secret rather than
// being one: "password", "${PASS}", "<token>", "****", "xxxx".
func placeholder(v string) bool {
	lower := strings.ToLower(v)
	switch {
	case strings.ContainsAny(v[:1], "$<{%*"), strings.Trim(v, v[:1]) == "":
		return true
	case strings.Contains(lower, "password"), strings.Contains(lower, "passwd"), strings.Contains(lower, "secret"),
		strings.Contains(lower, "example"), strings.Contains(lower, "changeme"), strings.Contains(lower, "redacted"):
		return true
	}
	return false
}

// secretLike reports whether an assigned value looks like a secret: not a
// placeholder, not a word or a number, with letters and digits mixed and
// an entropy of a random string rather than of prose or a name.
func secretLike(v string) bool {
	if placeholder(v) {
		return false
	}
	var letters, digits int
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters++
		}
	}
	if letters == 0 || digits == 0 {
		return false
	}
	return entropy(v) >= 3.0
}

// entropy is the Shannon entropy of s, in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
