package projector

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	tapelog "github.com/tape-dev/tape/log"
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

func TestSearchText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind, payload string
		want, not     []string
	}{
		{"message", `{"role":"user","content":"fix the flaky test"}`, []string{"fix the flaky test"}, []string{"user"}},
		{"message", `{"role":"user","content":[{"type":"text","text":"第一部分"},{"type":"image_url","image_url":{"url":"http://x/y.png"}}]}`, []string{"第一部分"}, []string{"text"}},
		{"message", `{"role":"assistant","content":"","tool_calls":[{"id":"call_9","type":"function","function":{"name":"grep","arguments":"{\"pattern\":\"TODO\"}"}}]}`, []string{"grep", "TODO"}, []string{"call_9", "function"}},
		{"tool_call", `{"calls":[{"id":"c1","type":"function","function":{"name":"fs.read","arguments":"{\"path\":\"/etc/hosts\"}"}}]}`, []string{"fs.read", "/etc/hosts"}, []string{"c1"}},
		{"tool_result", `{"results":["ok",{"stdout":"PASS"}]}`, []string{"ok", "PASS"}, nil},
		// Arguments that are a JSON document in a string are decoded: the
		// word after an escaped newline is a word of its own.
		{"tool_call", `{"calls":[{"id":"c1","function":{"name":"bash","arguments":"{\"command\":\"cd /src\\nmake flush\",\"n\":[\"早上好\"]}"}}]}`,
			[]string{"bash", "cd /src\nmake flush\n", "早上好"}, []string{`\n`, "command"}},
		{"tool_call", `{"calls":[{"id":"c1","function":{"name":"x","arguments":"not {json"}}]}`, []string{"not {json"}, nil},
		// Opaque blobs are left out; the text around them is kept.
		{"event", `{"name":"thinking","data":{"thinking":"plan the fix","signature":"EqQBCkYIBxgCKkBsecret"}}`, []string{"plan the fix"}, []string{"EqQB"}},
		{"tool_result", `{"results":[{"tool_use_id":"toolu_1","content":[{"type":"text","text":"see image"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo"}}]}]}`,
			[]string{"see image", "image/png"}, []string{"iVBOR", "toolu_1"}},
		{"anchor", `{"name":"review","state":{"summary":"done","branch":"fix-42"}}`, []string{"review", "summary", "done", "branch", "fix-42"}, nil},
		{"event", `{"name":"run","data":{"model":"gpt-4.1","usage":{"total_tokens":42}}}`, []string{"run", "model", "gpt-4.1", "total_tokens", "42"}, nil},
		{"error", `{"kind":"tool","message":"rate limited"}`, []string{"tool", "rate limited"}, nil},
		{"custom", `{"note":"kept"}`, []string{"note", "kept"}, nil},
	}
	for _, tt := range tests {
		got := SearchText(tapelog.Entry{Kind: tt.kind, Payload: json.RawMessage(tt.payload)})
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("SearchText(%s %s) = %q, lacks %q", tt.kind, tt.payload, got, w)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(got, w) {
				t.Errorf("SearchText(%s %s) = %q, should not contain %q", tt.kind, tt.payload, got, w)
			}
		}
	}
}

// The text of an entry is the same every time: phrase matches depend on it.
func TestSearchTextIsDeterministic(t *testing.T) {
	t.Parallel()
	e := tapelog.Entry{Kind: "event", Payload: json.RawMessage(`{"name":"run","data":{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6"}}`)}
	first := SearchText(e)
	for range 50 {
		if got := SearchText(e); got != first {
			t.Fatalf("SearchText = %q, then %q", first, got)
		}
	}
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
