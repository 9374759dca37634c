package searchlang

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestTokenize(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"hello world", "hello world"},
		{"错误", " 错误 误 "},
		{"发生了一个错误，请重试", " 发生 生了 了一 一个 个错 错误 误 ， 请重 重试 试 "},
		{"go test 失败", "go test  失败 败 "},
		{"エラーが発生", " エラ ラー ーが が発 発生 生 "},
		{"字", " 字 "},
	}
	for _, tt := range tests {
		if got := Tokenize(tt.in); got != tt.want {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIdentifierParts(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"TestFlush", "Test Flush"},
		{"call newHandler() now", "new Handler"},
		{"HTTPServer XMLHttpRequest", "HTTP Server XML Http Request"},
		{"base64Encode utf8String", "base64 Encode utf8 String"},
		{"pkg.TestFlush/sub_test", "Test Flush"},
		{"TestFlush newHandler TestFlush", "Test Flush new Handler"}, // each name once
		{"КнигаПечать CaféTable", ""},                                // ASCII names only: other bytes end them
		// Not split: one word already, or parts of one rune, or data.
		{"hello Hello HELLO hello_world utf8 sha256 v2", ""},
		{"getX iPhone", ""},
		{"aGVsbG8gd29ybGQ 01J9ZK3M4XQ8", ""},
		{"ThisIsAVeryLongName", ""},
		{"OneTwoThreeFourFiveSixSevenEight", "One Two Three Four Five Six Seven Eight"},
		{"OneTwoThreeFourFiveSixSevenEightNine", ""},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", ""},
		// Han, Hiragana and Katakana are Tokenize's: they end a name.
		{"修复TestFlush测试", "Test Flush"},
		{"发生了错误", ""},
	}
	for _, tt := range tests {
		if got := IdentifierParts(tt.in); got != tt.want {
			t.Errorf("IdentifierParts(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzIdentifierParts checks what IdentifierParts promises of any text:
// its parts are substrings of the text of two runes or more, without a
// separator in them.
func FuzzIdentifierParts(f *testing.F) {
	for _, s := range []string{"TestFlush", "HTTPServer x", "修复TestFlush测试", "aGVsbG8", "ÉtéHiver"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		parts := IdentifierParts(text)
		if parts == "" {
			return
		}
		for _, p := range strings.Split(parts, " ") {
			if utf8.RuneCountInString(p) < 2 || !strings.Contains(text, p) {
				t.Fatalf("IdentifierParts(%q) has part %q", text, p)
			}
			if strings.IndexFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) >= 0 {
				t.Fatalf("IdentifierParts(%q) has part %q with a separator", text, p)
			}
		}
	})
}

// TestIsBigramRuneFastPaths: the ranges isBigramRune decides without
// unicode's tables agree with them.
func TestIsBigramRuneFastPaths(t *testing.T) {
	t.Parallel()
	for r := rune(0); r <= 0xffff; r++ {
		want := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー'
		if got := isBigramRune(r); got != want {
			t.Fatalf("isBigramRune(%U) = %v, want %v", r, got, want)
		}
	}
}

// FuzzHasBigramRune holds hasBigramRune, which decodes only from bytes
// that can start a bigram rune, to a decode of every rune.
func FuzzHasBigramRune(f *testing.F) {
	for _, s := range []string{"hello", "修复TestFlush", "é\xe2\x80", "\xff\xe4\xb8", "ー", "Каф⺀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := false
		for _, r := range s {
			want = want || isBigramRune(r)
		}
		if got := hasBigramRune(s); got != want {
			t.Fatalf("hasBigramRune(%q) = %v, want %v", s, got, want)
		}
	})
}

// BenchmarkSearchText is what a rebuild does to the text of each entry
// before FTS5 sees it, on a tool output of code and prose.
func BenchmarkSearchText(b *testing.B) {
	var t strings.Builder
	for i := 0; t.Len() < 1<<20; i++ {
		t.WriteString("func (p *Projector) handleRequest(ctx context.Context) error { // café: the TestFlush case\n\treturn fmt.Errorf(\"flush %d: %w\", n, err)\n}\n")
	}
	text := t.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = Tokenize(text)
		_ = IdentifierParts(text)
	}
}

// FuzzIdentifierPartsAsByteByByte holds IdentifierParts, which skips runs
// by a table, to the loop it replaced, one byte and one switch at a time.
func FuzzIdentifierPartsAsByteByByte(f *testing.F) {
	for _, s := range []string{"TestFlush", "HTTPServer x", "修复TestFlush测试", "aGVsbG8", "ÉtéHiver", "a1B2 c3D4 a1B2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := IdentifierParts(text), identifierPartsByteByByte(text); got != want {
			t.Fatalf("IdentifierParts(%q) = %q, want %q", text, got, want)
		}
	})
}

func identifierPartsByteByByte(text string) string {
	var b strings.Builder
	seen := map[string]bool{}
	start, cased := -1, false
	for i := 0; i <= len(text); i++ {
		c := byte(' ')
		if i < len(text) {
			c = text[i]
		}
		switch {
		case isLowerOrDigit(c):
			if start < 0 {
				start, cased = i, false
			}
		case isUpper(c):
			if start < 0 {
				start, cased = i, false
			} else {
				cased = true
			}
		case start >= 0:
			if name := text[start:i]; cased && len(name) <= maxIdentifier && !seen[name] {
				seen[name] = true
				writeIdentifierParts(&b, name)
			}
			start = -1
		}
	}
	return b.String()
}
