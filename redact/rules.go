package redact

import (
	"math"
	"regexp"
	"strings"
)

// This package's own rules, beside gitleaks': what a transcript holds
// that a rule for one vendor's token does not catch.

// privateKey is a PEM private-key block, or the start of one that a
// tool's output cut short: from its BEGIN line to its END line, else to
// the end of the text (never across a NUL, which JSON() puts between the
// strings it scans together).
var privateKey = regexp.MustCompile(`-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----[^\x00]*?(?:-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----|\z|\x00)`)

// urlPassword is the password of a URL's user info: scheme://user:PASSWORD@host.
var urlPassword = regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s/:@'"]{1,200}:([^\s/@'"]{1,200})@[a-zA-Z0-9.\[\]-]`)

// assigned is a value given to a key-like name: KEY=value (.env, a shell),
// "key": "value" (JSON), key: value (YAML), --password value is not
// (a flag's value is often not a secret, and is caught by the vendors'
// rules when it is one of theirs).
var assigned = regexp.MustCompile(`(?i)([a-z0-9_.-]*(?:api[_-]?key|apikey|secret|token|passw(?:or)?d|passwd|pwd|credential|auth[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|signing[_-]?key)[a-z0-9_.-]*)["']?[ \t]*(?::=|=>|=|:)[ \t]*["']?([A-Za-z0-9+/=_.~!@#$%^&*-]{8,256})`)

// findOwn runs this package's rules.
func findOwn(text string) []Finding {
	var found []Finding
	if strings.Contains(text, "PRIVATE KEY") {
		for _, m := range privateKey.FindAllString(text, -1) {
			found = append(found, Finding{Kind: "private-key", Secret: strings.TrimRight(m, "\x00")})
		}
	}
	if strings.Contains(text, "://") {
		for _, m := range urlPassword.FindAllStringSubmatch(text, -1) {
			if pw := m[1]; !placeholder(pw) {
				found = append(found, Finding{Kind: "url-password", Secret: pw})
			}
		}
	}
	for _, m := range assigned.FindAllStringSubmatch(text, -1) {
		if v := m[2]; len(v) >= minSecret && secretLike(v) {
			found = append(found, Finding{Kind: "assigned-secret", Secret: v})
		}
	}
	return found
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
