package main

import "testing"

// What a transcript holds reaches a terminal escaped where it could act
// on it: control characters, and the bidi overrides that show a name as
// another (issue 29 found U+202E printed raw in doctor's lines).
func TestPrintable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain text, 中文", "plain text, 中文"},
		{"a\x1b]0;title\x07b", `a\x1b]0;title\x07b`},
		{"tab\there", `tab\x09here`},
		{"evil\u202Etxt.exe", `evil\u202etxt.exe`},
		{"iso\u2066late\u2069", `iso\u2066late\u2069`},
		{"line\u2028sep", `line\u2028sep`},
		{"שלום\u200F world", "שלום\u200F world"}, // a right-to-left mark is text
		{"👩\u200D💻", "👩\u200D💻"},                 // a joiner is part of an emoji
		{"\u00ADsoft", "\u00ADsoft"},             // a soft hyphen
	} {
		if got := printable(tc.in); got != tc.want {
			t.Errorf("printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
