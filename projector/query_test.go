package projector

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMatchExpr(t *testing.T) {
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

func TestSnippet(t *testing.T) {
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
