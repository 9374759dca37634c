package views

import (
	"encoding/json"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

func TestSearchText(t *testing.T) {
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
	e := tapelog.Entry{Kind: "event", Payload: json.RawMessage(`{"name":"run","data":{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6"}}`)}
	first := SearchText(e)
	for range 50 {
		if got := SearchText(e); got != first {
			t.Fatalf("SearchText = %q, then %q", first, got)
		}
	}
}
