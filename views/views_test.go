package views

import (
	"encoding/json"
	"strings"
	"testing"
)

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestExtract(t *testing.T) {
	tests := []struct {
		kind, payload, meta string
		want                string // Encode of the facts
	}{
		{"message", `{"role":"user","content":"修复"}`, `{"cwd":"/home/me/项目"}`, `{"role":"user","cwd":"/home/me/项目","prompt":"修复"}`},
		// A prompt's text is kept as MessageText reads it, trimmed, and
		// cut at PromptBytes on a rune boundary (3-byte runes: 1023 bytes).
		{"message", `{"role":"User","content":[{"type":"text","text":"  fix it "},{"type":"image"}]}`, `{}`, `{"role":"User","prompt":"fix it"}`},
		{"message", `{"role":"user","content":"` + strings.Repeat("修", 400) + `"}`, `{}`, `{"role":"user","prompt":"` + strings.Repeat("修", 341) + `","prompt_cut":true}`},
		{"message", `{"role":"user","content":"` + strings.Repeat("a", PromptBytes) + `"}`, `{}`, `{"role":"user","prompt":"` + strings.Repeat("a", PromptBytes) + `"}`},
		{"message", `{"role":"user","content":"written for the model"}`, `{"synthetic":true}`, `{"role":"user","synthetic":true}`},
		{"message", `{"role":"assistant","content":"x"}`, `{"workspace":"/w"}`, `{"role":"assistant","cwd":"/w"}`},
		{"message", `{"content":"no role"}`, `{}`, ``},
		{"message", `{"role":"user"}`, `{ "synthetic" : true, "git_branch": "main" }`, `{"role":"user","synthetic":true,"branch":"main"}`},
		{"event", `{"name":"x"}`, `{"gitBranch":"feature/x","cwd":""}`, `{"branch":"feature/x"}`},
		// An imported entry's meta names its transcript, whose path has
		// words of the keys ("work"), and no key of them.
		{"message", `{"role":"user"}`, `{"source":{"file":"/home/me/work/workspace/cwd/s.jsonl","line":3}}`, `{"role":"user"}`},
		{"tool_call", `{"calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}},{"id":"c2","name":"read"}]}`, ``,
			`{"calls":[{"id":"c1","name":"bash"},{"id":"c2","name":"read"}]}`},
		{"tool_call", `{"calls":[]}`, ``, ``}, // the fold needs only its kind to clear what is pending
		// Only objects are calls, as in the context: positions must agree.
		{"tool_call", `{"calls":["x",{"id":"c1","function":{"name":"bash"}},null]}`, ``, `{"calls":[{"id":"c1","name":"bash"}]}`},
		{"tool_result", `{"results":["ok","Error: no such file",{"is_error":true},{"error":"boom"},{"status":"failed"},{"error":null},{"output":"x"}]}`, ``,
			`{"results":[false,true,true,true,true,false,false]}`},
		// A result names its call under any of the three spellings.
		{"tool_result", `{"results":[{"tool_call_id":"c1","content":"ok"},{"tool_use_id":"toolu_1","is_error":true},{"call_id":"call_9","output":"x"},{"call_id":7}]}`, ``,
			`{"results":[{"call_id":"c1"},{"call_id":"toolu_1","failed":true},{"call_id":"call_9"},false]}`},
		{"event", `{"name":"run","data":{"status":"ok","model":"gpt-x","usage":{"prompt_tokens":10,"completion_tokens":5}}}`, ``,
			`{"run":{"status":"ok","model":"gpt-x","usage":true,"in":10,"out":5,"total":15}}`},
		{"event", `{"name":"run","data":{"status":"ok","model":"claude","usage":{"input_tokens":7,"output_tokens":3,"total_tokens":11}}}`, ``,
			`{"run":{"status":"ok","model":"claude","usage":true,"in":7,"out":3,"total":11}}`},
		{"event", `{"name":"run","data":{"status":"error"}}`, ``, `{"run":{"status":"error"}}`}, // a run without usage
		// Counts that are not whole numbers from 0 to MaxRunTokens are read
		// as not given, and mark the run: a total of the others is theirs.
		{"event", `{"name":"run","data":{"usage":{"input_tokens":-5,"output_tokens":3}}}`, ``, `{"run":{"usage":true,"out":3,"total":3,"bad_usage":true}}`},
		{"event", `{"name":"run","data":{"usage":{"input_tokens":1.5,"output_tokens":3}}}`, ``, `{"run":{"usage":true,"out":3,"total":3,"bad_usage":true}}`},
		{"event", `{"name":"run","data":{"usage":{"input_tokens":9223372036854775807,"total_tokens":1e30}}}`, ``, `{"run":{"bad_usage":true}}`},
		{"event", `{"name":"run","data":{"usage":{"input_tokens":"100","prompt_tokens":7,"output_tokens":true}}}`, ``, `{"run":{"usage":true,"in":7,"total":7,"bad_usage":true}}`},
		{"event", `{"name":"run","data":{"usage":{"input_tokens":1099511627776,"output_tokens":1099511627777}}}`, ``,
			`{"run":{"usage":true,"in":1099511627776,"total":1099511627776,"bad_usage":true}}`}, // the bound, and one past it
		{"event", `{"name":"run","data":{"usage":"many"}}`, ``, `{"run":{"bad_usage":true}}`},
		{"event", `{"name":"run","data":{"usage":{"input_tokens":null,"output_tokens":2}}}`, ``, `{"run":{"usage":true,"out":2,"total":2}}`}, // null: not given
		{"event", `{"name":"step","data":{"usage":{"total_tokens":1}}}`, ``, ``},
		{"error", `{"kind":"tool","message":"x"}`, ``, ``},
	}
	for _, tt := range tests {
		got := Extract(tt.kind, decode(t, tt.payload), json.RawMessage(tt.meta)).Encode()
		if got != tt.want {
			t.Errorf("Extract(%s %s, meta %s) = %s, want %s", tt.kind, tt.payload, tt.meta, got, tt.want)
		}
		back, err := DecodeFacts(got)
		if err != nil || back.Encode() != got {
			t.Errorf("DecodeFacts(%s) = %+v, %v; does not round-trip", got, back, err)
		}
	}
}

// FuzzExtract: any payload and meta give facts that encode and decode to
// themselves, without a panic.
func FuzzExtract(f *testing.F) {
	f.Add("tool_call", `{"calls":[{"id":"c1","function":{"name":"bash"}}]}`, `{"cwd":"/x"}`)
	f.Add("tool_result", `{"results":["Error: x",{"is_error":true}]}`, `null`)
	f.Add("event", `{"name":"run","data":{"usage":{"prompt_tokens":1e300}}}`, `{}`)
	f.Add("event", `{"name":"run","data":{"usage":{"input_tokens":-1,"output_tokens":9223372036854775807,"total_tokens":"9"}}}`, `{}`)
	f.Add("message", `{"role":"user"}`, `{"workdir":5}`)
	f.Add("tool_call", `{"calls":[{"id":"c1","custom":{"name":"apply_patch","input":"x"}},{"id":2,"name":"flat"},{"function":"f","name":"n"},{"function":{"name":""},"custom":{"name":"c"}},{"ID":"x","NAME":"y"}]}`, `{}`)
	f.Add("message", `{"role":"user"}`, `{"source":{"file":"/w/workspace/x"},"branch" :"b","synthetic":true}`)
	f.Fuzz(func(t *testing.T, kind, payload, meta string) {
		var p map[string]any
		if json.Unmarshal([]byte(payload), &p) != nil {
			return
		}
		if json.Valid([]byte(meta)) && !strings.Contains(meta, "\\") {
			// Looking for the keys first never loses one.
			if got, want := metaFacts(json.RawMessage(meta)), decodeMetaFacts(json.RawMessage(meta)); got != want {
				t.Fatalf("metaFacts(%s) = %+v; decoded, it says %+v", meta, got, want)
			}
		}
		facts := Extract(kind, p, json.RawMessage(meta))
		if kind == "tool_call" {
			// The calls view and the context read a call alike.
			calls := Calls(json.RawMessage(payload))
			if len(calls) != len(facts.Calls) {
				t.Fatalf("%s: Extract found %d calls, Calls %d", payload, len(facts.Calls), len(calls))
			}
			for i, c := range calls {
				if p := ParseCall(c); p.ID != facts.Calls[i].ID || p.Name != facts.Calls[i].Name {
					t.Fatalf("call %s: ParseCall says %q %q, Extract %+v", c, p.ID, p.Name, facts.Calls[i])
				}
			}
		}
		if r := facts.Run; r != nil {
			// No count a usage sum reads is negative or past the bound.
			for _, n := range []int64{r.In, r.Out, r.CacheCreation, r.CacheRead} {
				if n < 0 || n > MaxRunTokens {
					t.Fatalf("%s: a count of %d in %+v", payload, n, r)
				}
			}
			if r.Total < 0 || r.Total > 4*MaxRunTokens {
				t.Fatalf("%s: a total of %d", payload, r.Total)
			}
		}
		enc := facts.Encode()
		back, err := DecodeFacts(enc)
		if err != nil || back.Encode() != enc {
			t.Fatalf("facts %s do not round-trip: %+v, %v", enc, back, err)
		}
	})
}

// BenchmarkMetaFacts reads the meta of an imported entry, which names its
// transcript's path and nothing metaFacts reads.
func BenchmarkMetaFacts(b *testing.B) {
	meta := json.RawMessage(`{"source":{"file":"/home/me/.claude/projects/-home-me-work-tape/5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12.jsonl","line":12,"uuid":"9a1b2c3d-0000-4000-8000-000000000001","parent_uuid":"9a1b2c3d-0000-4000-8000-000000000000"}}`)
	for b.Loop() {
		if f := metaFacts(meta); f != (metaFact{}) {
			b.Fatalf("metaFacts = %+v; want nothing", f)
		}
	}
}

// ParseCall reads each shape of call agents write.
func TestParseCall(t *testing.T) {
	tests := []struct {
		call, id, name, args string
	}{
		{`{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"ls\"}"}}`, "c1", "bash", `"{\"cmd\":\"ls\"}"`},
		{`{"id":"call_P","type":"custom","custom":{"name":"apply_patch","input":"*** Begin Patch"}}`, "call_P", "apply_patch", `"*** Begin Patch"`},
		{`{"id":"toolu_1","name":"Read","input":{"path":"a.go"}}`, "toolu_1", "Read", `{"path":"a.go"}`},
		{`{"id":"c2","name":"grep","arguments":{"q":"x"}}`, "c2", "grep", `{"q":"x"}`},
		// Fields of another type are left out; the others are read.
		{`{"id":7,"function":"bash","name":"flat","arguments":null}`, "", "flat", `null`},
		{`{"function":{"name":""},"custom":{"name":"c"}}`, "", "c", ``},
		{`{}`, "", "", ``},
		// Keys as they are spelled, as Extract reads them.
		{`{"ID":"x","Name":"n","Function":{"name":"f"}}`, "", "", ``},
	}
	for _, tt := range tests {
		p := ParseCall(json.RawMessage(tt.call))
		if p.ID != tt.id || p.Name != tt.name || string(p.Arguments) != tt.args {
			t.Errorf("ParseCall(%s) = %q %q %s; want %q %q %s", tt.call, p.ID, p.Name, p.Arguments, tt.id, tt.name, tt.args)
		}
	}
}
