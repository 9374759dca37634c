package searchlang

import (
	"slices"
	"testing"
)

func TestSnippetSpans(t *testing.T) {
	t.Parallel()
	m := func(s string) SnippetSpan { return SnippetSpan{Text: s, Match: true} }
	x := func(s string) SnippetSpan { return SnippetSpan{Text: s} }
	for _, tt := range []struct {
		in   string
		want []SnippetSpan
	}{
		{"", nil},
		{"no marks", []SnippetSpan{x("no marks")}},
		{"the **flush** timed out", []SnippetSpan{x("the "), m("flush"), x(" timed out")}},
		{"**错误** 和 **error**", []SnippetSpan{m("错误"), x(" 和 "), m("error")}},
		{"**bold text** stays", []SnippetSpan{x("**bold text** stays")}},
		{"a ** b **c**", []SnippetSpan{x("a ** b "), m("c")}},
	} {
		if got := SnippetSpans(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("SnippetSpans(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}
