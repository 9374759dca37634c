package rawjson

import (
	"encoding/json"
	"strings"
	"testing"
)

// outside is text with the bytes Quotes says belong to strings taken out.
func outside(text string) string {
	var q Quotes
	var b strings.Builder
	for i := range len(text) {
		if !q.Step(text[i]) {
			b.WriteByte(text[i])
		}
	}
	return b.String()
}

func TestQuotes(t *testing.T) {
	for _, tc := range []struct{ text, outside string }{
		{`{"a":1}`, `{:1}`},
		{`["x\"]", "y\\"]`, `[, ]`},
		{`"\\\""`, ``},
		{`{"a{[":"]}\u0022"}`, `{:}`},
		{`[1, "two`, `[1, `}, // a string still open: the rest is in it
	} {
		if got := outside(tc.text); got != tc.outside {
			t.Errorf("outside strings of %s: %q, want %q", tc.text, got, tc.outside)
		}
	}
	var q Quotes
	for i, want := range []bool{true, true, false} { // "a"
		q.Step(`"a"`[i])
		if q.In() != want {
			t.Errorf("after %q: In %v, want %v", `"a"`[:i+1], q.In(), want)
		}
	}
}

// FuzzQuotes holds Quotes to encoding/json: what it leaves outside the
// strings of valid JSON is the text's structure (brackets that balance,
// commas, colons, white space) and its literals, without a quote, and
// ends outside a string.
func FuzzQuotes(f *testing.F) {
	for _, s := range []string{`{"a":"b\"c"}`, `["\\", "\u0022", 1e3, null]`, `"]"`, `{"":[{}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !json.Valid([]byte(text)) {
			return
		}
		var q Quotes
		depth := 0
		for i := range len(text) {
			if q.Step(text[i]) {
				continue
			}
			switch c := text[i]; {
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
			case strings.IndexByte(",: \t\r\n-+.0123456789eEtruefalsn", c) < 0:
				t.Fatalf("%q: byte %d (%q) taken as outside strings", text, i, c)
			}
			if depth < 0 {
				t.Fatalf("%q: a closing bracket at %d with none open", text, i)
			}
		}
		if depth != 0 || q.In() {
			t.Fatalf("%q: ends at depth %d, in a string %v", text, depth, q.In())
		}
	})
}
