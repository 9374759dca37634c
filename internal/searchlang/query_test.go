package searchlang

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMatchExpr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"flush timeout", `"flush" AND "timeout"`, true},
		{`"flush timeout" store`, `"flush timeout" AND "store"`, true},
		{`"unbalanced phrase`, `"unbalanced phrase"`, true},
		{"NEAR(", `"NEAR"`, true},
		{"a:b", `"a b"`, true},
		{"-x", `"x"`, true},
		{"foo_bar", `"foo bar"`, true},
		{"/usr/local/bin", `"usr local bin"`, true},
		{"AND OR NOT", `"AND" AND "OR" AND "NOT"`, true},
		{"flu*", `"flu" *`, true},
		{"错误", `"错误"`, true},
		{"发生错误", `"发生 生错 错误"`, true},
		{"错", `"错" *`, true},
		{"x错y", `"x 错 y"`, true},
		{"错误，请重试", `"错误 误 请重 重试"`, true},
		{"运行npm", `"运行 行 npm"`, true},
		{"go测试", `"go 测试"`, true},
		{`say "hi"`, `"say" AND "hi"`, true},
		{`""`, ``, false},
		{"  ", ``, false},
		{"- : (", ``, false},
	}
	for _, tt := range tests {
		got, ok := MatchExpr(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("MatchExpr(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzMatchExpr(f *testing.F) {
	for _, s := range []string{`"a b`, "NEAR(a b)", "错误", "a*", `x:"y"`, "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		expr, ok := MatchExpr(q)
		if ok != (expr != "") {
			t.Fatalf("MatchExpr(%q) = %q, %v", q, expr, ok)
		}
	})
}

// snippetOfFolded is Snippet as it was before it folded only the runes
// around its cut: it folds the whole text first. Snippet must cut the
// same.
func snippetOfFolded(text string, terms []string, width int) string {
	text = strings.Join(strings.Fields(text), " ")
	first := firstMatch(text, terms)
	start := 0
	if first > 0 && utf8.RuneCountInString(text) > width {
		start = first
		for n := 0; start > 0 && n < width/3; n++ {
			_, size := utf8.DecodeLastRuneInString(text[:start])
			start -= size
		}
	}
	end := start
	for n := 0; end < len(text) && n < width; n++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	cut := text[start:end]
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	for i := 0; i < len(cut); {
		if n := matchAt(cut[i:], terms); n > 0 {
			b.WriteString("**" + cut[i:i+n] + "**")
			i += n
			continue
		}
		_, size := utf8.DecodeRuneInString(cut[i:])
		b.WriteString(cut[i : i+size])
		i += size
	}
	if end < len(text) {
		b.WriteString("…")
	}
	return b.String()
}

// FuzzSnippetCutsAsTheFoldedText checks that Snippet, which folds only
// the runes around its cut, gives what folding the whole text first gives.
func FuzzSnippetCutsAsTheFoldedText(f *testing.F) {
	f.Add("  a\n\n b\tflush  c \u00a0 ", "flush", 6)
	f.Add(strings.Repeat("lorem  ipsum\n", 20)+"the Flush failed "+strings.Repeat("dolor\t sit ", 20), "flush", 40)
	f.Add("发生了 一个\u3000错误，请重试", "错误", 4)
	f.Add("x\xffy  \x85 zz", "zz", 3)
	f.Add("flush  \n", "flush", 80)      // white space at the end is not cut
	f.Add(" \t flush", "flush", 80)      // nor at the start
	f.Add("a  b \n flush c", "flush", 4) // the cut starts on a run of white space
	f.Add("ab  cd flush", "flush", 9)    // the context stops at the start
	f.Fuzz(func(t *testing.T, text, term string, width int) {
		width = width%200 + 1
		if width < 0 {
			width = -width
		}
		terms := SnippetTerms(term)
		if got, want := Snippet(text, terms, width), snippetOfFolded(text, terms, width); got != want {
			t.Fatalf("Snippet(%q, %q, %d) = %q; folding the whole text gives %q", text, terms, width, got, want)
		}
	})
}

func TestSnippet(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("lorem ipsum ", 20) + "the Flush failed " + strings.Repeat("dolor sit ", 20)
	tests := []struct {
		name, text string
		terms      []string
		want       string
	}{
		{"short text whole", "deploy failed on friday", []string{"friday"}, "deploy failed on **friday**"},
		{"case kept", "TestFlush timed out", []string{"flush"}, "Test**Flush** timed out"},
		{"chinese", "发生了一个错误，请重试", []string{"错误"}, "发生了一个**错误**，请重试"},
		{"no match", "nothing here", []string{"zebra"}, "nothing here"},
		{"newlines folded", "a\nb\tflush", []string{"flush"}, "a b **flush**"},
		{"odd runes do not stop folding", "Ω ohm; TIMEOUT here", []string{"timeout"}, "Ω ohm; **TIMEOUT** here"},
	}
	for _, tt := range tests {
		if got := Snippet(tt.text, tt.terms, 80); got != tt.want {
			t.Errorf("%s: Snippet = %q, want %q", tt.name, got, tt.want)
		}
	}
	got := Snippet(long, []string{"flush"}, 40)
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || !strings.Contains(got, "**Flush**") || utf8.RuneCountInString(got) > 40+8 {
		t.Errorf("Snippet of a long text = %q; want about 40 runes around **Flush**, cut on both sides", got)
	}
}

func TestLooseExpr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ query, match, loose string }{
		{`"database transaction"`, `"database transaction"`, `"database" AND "transaction"`},
		{`a:b word`, `"a b" AND "word"`, `"a" AND "b" AND "word"`},
		{`测试通过`, `"测试 试通 通过"`, `"测试" AND "试通" AND "通过"`},
		{`a:b*`, `"a b" *`, `"a b" *`}, // a prefix stays whole
		{`错`, `"错" *`, `"错" *`},
		{`plain`, `"plain"`, `"plain"`},
	} {
		match, _ := MatchExpr(tc.query)
		loose, _ := LooseExpr(tc.query)
		if match != tc.match || loose != tc.loose {
			t.Errorf("%s: MatchExpr %s, LooseExpr %s; want %s, %s", tc.query, match, loose, tc.match, tc.loose)
		}
	}
}
