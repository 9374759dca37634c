package read

import (
	"encoding/json"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

func TestSummary(t *testing.T) {
	tests := []struct {
		name, kind, payload, want string
	}{
		{"message", tapelog.KindMessage, `{"role":"user","content":"fix the 测试"}`, "user: fix the 测试"},
		{"message parts", tapelog.KindMessage, `{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"image"},{"text":"b"}]}`, "assistant: a [image] b"},
		{"message with calls", tapelog.KindMessage, `{"role":"assistant","content":"","tool_calls":[{"id":"1","function":{"name":"bash","arguments":"ls"}}]}`, "assistant: → bash(ls)"},
		{"system", tapelog.KindSystem, `{"content":"be brief"}`, "be brief"},
		{"tool call, object arguments", tapelog.KindToolCall, `{"calls":[{"name":"read","arguments":{"path": "a.go"}}]}`, `read({"path":"a.go"})`},
		{"tool call, not an object", tapelog.KindToolCall, `{"calls":[7, {"name":"x","arguments":"y"}]}`, "7; x(y)"},
		{"tool call, no list", tapelog.KindToolCall, `{"calls":{"name":"x"}}`, `{"name":"x"}`},
		{"tool results", tapelog.KindToolResult, `{"results":["ok",{"a":1}]}`, `ok | {"a":1}`},
		{"tool results, no list", tapelog.KindToolResult, `{"results":"ok"}`, `{"results":"ok"}`},
		{"event", tapelog.KindEvent, `{"name":"run","data":{"model":"m"}}`, `run {"model":"m"}`},
		{"event without name", tapelog.KindEvent, `{"data":1}`, `{"data":1}`},
		{"error", tapelog.KindError, `{"kind":"timeout","message":"took too long"}`, "timeout: took too long"},
		{"not an object", tapelog.KindMessage, `[1, 2]`, `[1,2]`},
		{"unknown kind", "custom", `{"x": true}`, `{"x":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tapelog.Entry{Kind: tt.kind, Payload: json.RawMessage(tt.payload)}
			if got := Summary(e); got != tt.want {
				t.Errorf("Summary(%s %s) = %q, want %q", tt.kind, tt.payload, got, tt.want)
			}
		})
	}
}

func TestCompactJSON(t *testing.T) {
	for raw, want := range map[string]string{"": "", `{ "a" : [1, 2] }`: `{"a":[1,2]}`, `{bad`: `{bad`} {
		if got := CompactJSON(json.RawMessage(raw)); got != want {
			t.Errorf("CompactJSON(%q) = %q, want %q", raw, got, want)
		}
	}
}

// FuzzSummary holds Summary to the text of any message: whatever else the
// payload holds, a message's string content is in its summary (trimmed).
func FuzzSummary(f *testing.F) {
	f.Add("user", "hello", `[{"name":"x","arguments":"y"}]`)
	f.Add("", "", `7`)
	f.Add("a", "多字节", `{"x":`)
	f.Fuzz(func(t *testing.T, role, content, calls string) {
		p := map[string]any{"role": role, "content": content}
		if json.Valid([]byte(calls)) {
			p["tool_calls"] = json.RawMessage(calls)
		}
		raw, err := json.Marshal(p)
		if err != nil {
			t.Skip()
		}
		var back struct{ Content string }
		_ = json.Unmarshal(raw, &back) // invalid UTF-8 comes back replaced
		got := Summary(tapelog.Entry{Kind: tapelog.KindMessage, Payload: raw})
		// the text is trimmed where it meets the calls
		if want := strings.TrimSpace(back.Content); !strings.Contains(got, want) {
			t.Fatalf("Summary of %s = %q, lacks the content %q", raw, got, want)
		}
	})
}
