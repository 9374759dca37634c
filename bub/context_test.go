package bub

import (
	"encoding/json"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

func entry(kind, payload, meta string) tapelog.Entry {
	e := tapelog.Entry{ID: kind, Kind: kind, Payload: json.RawMessage(payload)}
	if meta != "" {
		e.Meta = json.RawMessage(meta)
	}
	return e
}

func contextJSON(t *testing.T, entries ...tapelog.Entry) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Context(entries)); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(b.String())
}

func TestContext(t *testing.T) {
	t.Parallel()
	call2 := `{"calls":[{"id":"c1","type":"function","function":{"name":"fs.read","arguments":"{}"}},{"id":"c2","function":{"name":"grep"}}]}`
	tests := []struct {
		name    string
		entries []tapelog.Entry
		want    string
	}{
		{"empty", nil, `[]`},
		{"anchor with state", []tapelog.Entry{entry("anchor", `{"name":"交接","state":{"b":1,"a":[1.50,"说"]}}`, "")},
			`[{"role":"assistant","content":"[Anchor created: 交接]: {\"b\": 1, \"a\": [1.5, \"说\"]}"}]`},
		{"anchor without name or state", []tapelog.Entry{entry("anchor", `{}`, "")},
			`[{"role":"assistant","content":"[Anchor created: None]: null"}]`},
		{"message as it is", []tapelog.Entry{entry("message", `{"role":"user","content":"<b>你好</b>","x":1}`, "")},
			`[{"role":"user","content":"<b>你好</b>","x":1}]`},
		{"message not an object", []tapelog.Entry{entry("message", `[1]`, ""), entry("message", ``, "")}, `[]`},
		{"two calls two results", []tapelog.Entry{entry("tool_call", call2, ""), entry("tool_result", `{"results":["ok",{"n":"é"}]}`, "")},
			`[{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"fs.read","arguments":"{}"}},{"id":"c2","function":{"name":"grep"}}]},` +
				`{"role":"tool","content":"ok","tool_call_id":"c1","name":"fs.read"},{"role":"tool","content":"{\"n\": \"é\"}","tool_call_id":"c2","name":"grep"}]`},
		{"more results than calls", []tapelog.Entry{entry("tool_call", `{"calls":[{"id":"c1","function":{"name":"f"}}]}`, ""), entry("tool_result", `{"results":[1,null]}`, "")},
			`[{"role":"assistant","content":"","tool_calls":[{"id":"c1","function":{"name":"f"}}]},{"role":"tool","content":"1","tool_call_id":"c1","name":"f"},{"role":"tool","content":"null"}]`},
		{"results clear the pending calls", []tapelog.Entry{entry("tool_call", `{"calls":[{"id":"c1"}]}`, ""), entry("tool_result", `{"results":["a"]}`, ""), entry("tool_result", `{"results":["b"]}`, "")},
			`[{"role":"assistant","content":"","tool_calls":[{"id":"c1"}]},{"role":"tool","content":"a","tool_call_id":"c1"},{"role":"tool","content":"b"}]`},
		{"calls without the fields", []tapelog.Entry{entry("tool_call", `{"calls":[{"id":7,"function":"f"},3]}`, ""), entry("tool_result", `{"results":["a","b"]}`, "")},
			`[{"role":"assistant","content":"","tool_calls":[{"id":7,"function":"f"}]},{"role":"tool","content":"a"},{"role":"tool","content":"b"}]`},
		{"no calls array clears pending", []tapelog.Entry{entry("tool_call", `{"calls":[{"id":"c1"}]}`, ""), entry("tool_call", `{"call":1}`, ""), entry("tool_result", `{"results":["a"]}`, "")},
			`[{"role":"assistant","content":"","tool_calls":[{"id":"c1"}]},{"role":"tool","content":"a"}]`},
		{"no results array", []tapelog.Entry{entry("tool_call", `{"calls":[{"id":"c1"}]}`, ""), entry("tool_result", `{"result":"x"}`, ""), entry("tool_result", `{"results":["a"]}`, "")},
			`[{"role":"assistant","content":"","tool_calls":[{"id":"c1"}]},{"role":"tool","content":"a"}]`},
		// Results that carry their call's id, one per entry and out of
		// order, as imported sessions hold them: each is paired by id and
		// says its content; one whose id no call has keeps its own id.
		{"results by id", []tapelog.Entry{entry("tool_call", call2, ""),
			entry("tool_result", `{"results":[{"tool_call_id":"c2","content":"found","is_error":false}]}`, ""),
			entry("tool_result", `{"results":[{"tool_use_id":"c1","content":[{"type":"text","text":"data"},{"type":"text","text":"more"}]}]}`, ""),
			entry("tool_result", `{"results":[{"call_id":"c9","output":"late"}]}`, "")},
			`[{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"fs.read","arguments":"{}"}},{"id":"c2","function":{"name":"grep"}}]},` +
				`{"role":"tool","content":"found","tool_call_id":"c2","name":"grep"},{"role":"tool","content":"data\nmore","tool_call_id":"c1","name":"fs.read"},` +
				`{"role":"tool","content":"late","tool_call_id":"c9"}]`},
		{"one turn's calls in two entries, answered by id", []tapelog.Entry{entry("tool_call", `{"calls":[{"id":"c1","function":{"name":"a"}}]}`, ""),
			entry("message", `{"role":"assistant","content":"and"}`, ""),
			entry("tool_call", `{"calls":[{"id":"c2","function":{"name":"b"}}]}`, ""),
			entry("tool_result", `{"results":[{"tool_call_id":"c1","content":"r1"}]}`, ""),
			entry("tool_result", `{"results":[{"tool_call_id":"c2","content":"r2"}]}`, "")},
			`[{"role":"assistant","content":"","tool_calls":[{"id":"c1","function":{"name":"a"}}]},{"role":"assistant","content":"and"},` +
				`{"role":"assistant","content":"","tool_calls":[{"id":"c2","function":{"name":"b"}}]},` +
				`{"role":"tool","content":"r1","tool_call_id":"c1","name":"a"},{"role":"tool","content":"r2","tool_call_id":"c2","name":"b"}]`},
		{"other kinds", []tapelog.Entry{entry("system", `{"content":"s"}`, ""), entry("event", `{"name":"e"}`, ""), entry("error", `{"kind":"k"}`, ""), entry("custom", `{}`, "")}, `[]`},
		{"meta.context false is left out, and keeps the calls pending", []tapelog.Entry{
			entry("tool_call", `{"calls":[{"id":"c1"}]}`, ""),
			entry("tool_result", `{"results":["hidden"]}`, `{"context":false}`),
			entry("message", `{"role":"user","content":"hidden"}`, `{"context":false}`),
			entry("message", `{"role":"user","content":"shown"}`, `{"context":true}`),
			entry("tool_result", `{"results":["r"]}`, `{"context":"false"}`)},
			`[{"role":"assistant","content":"","tool_calls":[{"id":"c1"}]},{"role":"user","content":"shown"},{"role":"tool","content":"r","tool_call_id":"c1"}]`},
		{"control characters and line separators", []tapelog.Entry{entry("tool_result", `{"results":[{"t":"a\u0001\n\u2028"}]}`, "")},
			`[{"role":"tool","content":"{\"t\": \"a\\u0001\\n\u2028\"}"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := contextJSON(t, tt.entries...); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestPythonJSON(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{}`, `{}`},
		{`[]`, `[]`},
		{` {"z" : 1 , "a":{"k":[true,false,null]}} `, `{"z": 1, "a": {"k": [true, false, null]}}`},
		{`"中文\"\\/"`, `"中文\"\\/"`},
		{`1e3`, `1000.0`},
		{`1.50`, `1.5`},
		{`1e-7`, `1e-07`},
		{`1e16`, `1e+16`},
		{`123456789012345678901234567890`, `123456789012345678901234567890`},
		{`-0`, `0`},
		{`-0.0`, `-0.0`},
		{`1e400`, `Infinity`},
		{`"\u007f\u0000"`, "\"\x7f\\u0000\""},
	}
	for _, tt := range tests {
		got, err := PythonJSON(json.RawMessage(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("PythonJSON(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `{`, `1 2`, `{"a"}`} {
		if got, err := PythonJSON(json.RawMessage(bad)); err == nil {
			t.Errorf("PythonJSON(%q) = %q, want an error", bad, got)
		}
	}
}

// FuzzPythonJSON: whatever valid JSON it is given, PythonJSON's output is
// valid JSON again, and re-encoding it changes nothing.
func FuzzPythonJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"é"]}`, `"\u0000"`, `1e400`, `[{"x":{}}]`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := PythonJSON(json.RawMessage(in))
		if err != nil {
			return
		}
		if strings.Contains(out, "Infinity") {
			return // Python writes out-of-range floats so; it is not JSON
		}
		if !json.Valid([]byte(out)) {
			t.Fatalf("PythonJSON(%q) = %q, not valid JSON", in, out)
		}
		again, err := PythonJSON(json.RawMessage(out))
		if err != nil || again != out {
			t.Fatalf("PythonJSON not stable: %q -> %q -> %q (%v)", in, out, again, err)
		}
	})
}

// FuzzContext: whatever the payloads and meta, Context never panics, its
// messages encode as one JSON array, and each tool message it builds has a
// string content.
func FuzzContext(f *testing.F) {
	f.Add("tool_call", `{"calls":[{"id":"c","function":{"name":"n"}}]}`, "tool_result", `{"results":["a",1]}`, `{}`)
	f.Add("anchor", `{"name":"中","state":{"a":1.0}}`, "message", `{"role":"user"}`, `{"context":false}`)
	f.Add("tool_result", `{"results":null}`, "tool_call", `{"calls":"x"}`, `[]`)
	f.Fuzz(func(t *testing.T, k1, p1, k2, p2, meta string) {
		entries := []tapelog.Entry{
			{Kind: k1, Payload: json.RawMessage(p1), Meta: json.RawMessage(meta)},
			{Kind: k2, Payload: json.RawMessage(p2)},
		}
		for _, e := range entries {
			if !json.Valid(e.Payload) {
				return // the reader hands Context valid JSON only
			}
		}
		if !json.Valid([]byte(meta)) {
			return
		}
		out, err := json.Marshal(Context(entries))
		if err != nil || !json.Valid(out) || out[0] != '[' {
			t.Fatalf("Context(%v) encodes as %s, %v", entries, out, err)
		}
		var msgs []map[string]any
		if err := json.Unmarshal(out, &msgs); err != nil {
			t.Fatal(err)
		}
		if k1 == "message" || k2 == "message" {
			return // a message entry's payload is sent as it is, whatever it holds
		}
		for _, m := range msgs {
			if _, ok := m["content"].(string); m["role"] == "tool" && !ok {
				t.Errorf("tool message %v has no string content", m)
			}
		}
	})
}
