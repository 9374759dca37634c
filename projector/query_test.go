package projector

import "testing"

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
