package amp

import (
	"testing"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/importer/sourcetest"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden threads and documents of odd shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		`{"id":"T-1","messages":[{"role":"assistant","messageId":1,"content":[],"state":{"type":"streaming"}}]}`+"\n",
		"{\n  \"id\": \"T-2\",\n  \"messages\": [\n    {\"role\": \"user\", \"messageId\": 0, \"content\": \"hi\"}\n  ],\n  \"v\": 1\n}",
		"{\n  \"id\": \"T-3\",\n  \"messages\": [\n<<<\n  ]\n}\n{\"odd\":\"seed\"}\n[]\n")
}

// A thread whose members are of other shapes than the mapping reads keeps
// their text: what the mapping cannot read is an event of the part, never
// an empty entry, and a ledger or usage ccusage would not count is kept,
// not counted.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	thread := func(messages string, more ...string) string {
		s := `{"id":"T-x","created":1773475199000,"messages":[` + messages + `]`
		for _, m := range more {
			s += "," + m
		}
		return s + "}"
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"content a string", []string{thread(`{"role":"user","messageId":0,"content":"fix the parser"}`)},
			[]string{`message {"role":"user","content":"fix the parser"}`}},
		{"content null", []string{thread(`{"role":"user","messageId":0,"content":null}`)},
			[]string{`event {"data":{"content":null},"name":"amp/user"}`}},
		{"a text that is a number", []string{thread(`{"role":"user","messageId":0,"content":[{"type":"text","text":"a"},{"type":"text","text":7}]}`)}, []string{
			`event {"data":{"type":"text","text":7},"name":"amp/text"}`,
			`message {"role":"user","content":"a"}`,
		}},
		{"texts and an image", []string{thread(`{"role":"user","messageId":0,"content":[{"type":"text","text":"see"},{"type":"image","source":{"type":"base64","mediaType":"image/png","data":"iVBO"}}]}`)},
			[]string{`message {"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBO"}}]}`}},
		{"a message that is a string", []string{thread(`"hello"`)},
			[]string{`event {"data":"hello","name":"amp/message"}`}},
		{"a role Amp does not write", []string{thread(`{"role":"system","messageId":0,"content":"x"}`)},
			[]string{`event {"data":{"role":"system","messageId":0,"content":"x"},"name":"amp/message"}`}},
		{"a tool result of another shape", []string{thread(`{"role":"user","messageId":0,"content":[{"type":"tool_result","toolUseID":5,"run":{"status":"done","result":"r"}}]}`)},
			[]string{`event {"data":{"type":"tool_result","toolUseID":5,"run":{"status":"done","result":"r"}},"name":"amp/tool_result"}`}},
		{"a tool still running", []string{thread(`{"role":"user","messageId":2,"content":[{"type":"tool_result","toolUseID":"tu1","run":{"status":"in-progress","progress":"half"}}]}`)},
			[]string{`event {"data":{"type":"tool_result","toolUseID":"tu1","run":{"status":"in-progress","progress":"half"}},"name":"amp/tool_run"}`}},
		{"a cancelled tool", []string{thread(`{"role":"user","messageId":2,"content":[{"type":"tool_result","toolUseID":"tu1","run":{"status":"cancelled"}}]}`)},
			[]string{`tool_result {"results":[{"tool_call_id":"tu1","content":null,"is_error":true,"status":"cancelled"}]}`}},
		{"a call without an id", []string{thread(`{"role":"assistant","messageId":1,"content":[{"type":"tool_use","name":"Read","input":{}}],"state":{"type":"complete"}}`)},
			[]string{`event {"data":{"type":"tool_use","name":"Read","input":{}},"name":"amp/tool_use"}`}},
		{"a call's other members", []string{thread(`{"role":"assistant","messageId":1,"content":[{"type":"tool_use","id":"tu1","name":"Read","input":{"path":"a"},"complete":true,"inputPartialJSON":"{\"pa"}],"state":{"type":"complete","stopReason":"tool_use"}}`)},
			[]string{`tool_call {"calls":[{"id":"tu1","type":"function","function":{"name":"Read","arguments":"{\"path\":\"a\"}"},"amp":{"inputPartialJSON":"{\"pa"}}]}`}},
		{"an error state", []string{thread(`{"role":"assistant","messageId":1,"content":[{"type":"text","text":"par"}],"state":{"type":"error","error":{"message":"overloaded"}}}`)}, []string{
			`message {"role":"assistant","content":"par"}`,
			`event {"data":{"state":{"type":"error","error":{"message":"overloaded"}}},"name":"amp/assistant"}`,
		}},
		{"usage without a timestamp: not counted", []string{thread(`{"role":"assistant","messageId":1,"content":[],"state":{"type":"complete"},"usage":{"model":"m","inputTokens":5}}`)},
			[]string{`event {"data":{"model":"m","inputTokens":5},"name":"amp/usage"}`}},
		{"usage with a timestamp ccusage does not read", []string{thread(`{"role":"assistant","messageId":1,"content":[],"state":{"type":"complete"},"usage":{"model":"m","inputTokens":5,"timestamp":"2026-03-14T08:00:09.12Z"}}`)},
			[]string{`event {"data":{"model":"m","inputTokens":5,"timestamp":"2026-03-14T08:00:09.12Z"},"name":"amp/usage"}`}},
		{"usage: a total and no output", []string{thread(`{"role":"assistant","messageId":1,"content":[],"state":{"type":"complete","stopReason":"end_turn"},"usage":{"model":"m","inputTokens":5,"totalTokens":345,"timestamp":"2026-03-14T08:00:09.120Z"}}`)},
			[]string{`event {"data":{"status":"ok","model":"m","usage":{"input_tokens":5,"output_tokens":340,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"stop_reason":"end_turn","message_usage":{"model":"m","inputTokens":5,"totalTokens":345,"timestamp":"2026-03-14T08:00:09.120Z"},"usage_id":"amp:T-x:1"},"name":"run"}`}},
		{"a ledger that is no list: the messages count", []string{thread(`{"role":"assistant","messageId":1,"content":[],"usage":{"model":"m","outputTokens":"7","inputTokens":2,"timestamp":"2026-03-14T08:00:09.120Z"}}`, `"usageLedger":{"events":"x"}`)}, []string{
			`event {"data":{"status":"ok","model":"m","usage":{"input_tokens":2,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"message_usage":{"model":"m","outputTokens":"7","inputTokens":2,"timestamp":"2026-03-14T08:00:09.120Z"},"usage_id":"amp:T-x:1"},"name":"run"}`,
			`event {"data":{"usageLedger":{"events":"x"}},"name":"amp/thread"}`,
		}},
		{"an empty ledger: nothing counts", []string{thread(`{"role":"assistant","messageId":1,"content":[],"usage":{"model":"m","inputTokens":2,"timestamp":"2026-03-14T08:00:09.120Z"}}`, `"usageLedger":{"events":[]}`)},
			[]string{`event {"data":{"model":"m","inputTokens":2,"timestamp":"2026-03-14T08:00:09.120Z"},"name":"amp/usage"}`}},
		{"ledger events ccusage does not count", []string{thread(``, `"usageLedger":{"events":["junk",{"id":"e2","timestamp":"2026-01-08T09:00:20.412Z","model":"m","tokens":null},{"timestamp":"2026-01-08T09:00:20.412Z","model":"m","tokens":{"input":3},"toMessageId":"1"}]}`)}, []string{
			`event {"data":"junk","name":"amp/ledger"}`,
			`event {"data":{"id":"e2","timestamp":"2026-01-08T09:00:20.412Z","model":"m","tokens":null},"name":"amp/ledger"}`,
			`event {"data":{"status":"ok","model":"m","usage":{"input_tokens":3,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"event":{"timestamp":"2026-01-08T09:00:20.412Z","model":"m","tokens":{"input":3},"toMessageId":"1"},"usage_id":"amp:T-x:#2"},"name":"run"}`,
		}},
		{"a fork's repeated message ids", []string{thread(`{"role":"user","messageId":0,"content":"copied"},{"role":"user","messageId":0,"content":"its own"}`)}, []string{
			`message {"role":"user","content":"copied"}`,
			`message {"role":"user","content":"its own"}`,
		}},
		{"a summary of another shape", []string{thread(`{"role":"info","messageId":3,"content":[{"type":"summary","summary":"plain"}]}`)},
			[]string{`event {"data":{"type":"summary","summary":"plain"},"name":"amp/summary"}`}},
		{"a title that is not a string, and members Amp does not write", []string{thread(``, `"title":7`, `"draft":"unsent words"`)},
			[]string{`event {"data":{"title":7,"draft":"unsent words"},"name":"amp/thread"}`}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}

// Where Amp keeps its threads, which files are threads, and the tape a
// thread goes to.
func TestSourceFolders(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := (Source{}).DefaultDirs(getenv, "/home/u"); len(got) != 1 || got[0] != "/home/u/.local/share/amp/threads" {
		t.Errorf("DefaultDirs without XDG_DATA_HOME = %v", got)
	}
	env["XDG_DATA_HOME"] = "/data"
	if got := (Source{}).DefaultDirs(getenv, "/home/u"); len(got) != 2 || got[0] != "/data/amp/threads" || got[1] != "/home/u/.local/share/amp/threads" {
		t.Errorf("DefaultDirs with XDG_DATA_HOME = %v", got)
	}
	env["XDG_DATA_HOME"] = "relative" // not absolute: ignored, as the XDG spec says
	if got := (Source{}).DefaultDirs(getenv, "/home/u"); len(got) != 1 {
		t.Errorf("DefaultDirs with a relative XDG_DATA_HOME = %v", got)
	}
	for path, want := range map[string]bool{
		"/t/T-019c8a12-4e6b-7d30-8f2a-3c9e1b7d5a42.json":        true,
		"/t/T-019c8a12-4e6b-7d30-8f2a-3c9e1b7d5a42.json.amptmp": false,
		"/t/history.jsonl": false,
		"/t/session.json":  false,
	} {
		if got := (Source{}).IsTranscript(path); got != want {
			t.Errorf("IsTranscript(%s) = %v", path, got)
		}
	}
	s := source.Session{Source: "amp", ID: "T-019c8a12-4e6b-7d30-8f2a-3c9e1b7d5a42"}
	if got := (Source{}).TapeName(s, false); got != "amp-1b7d5a42" {
		t.Errorf("TapeName = %s, want the last 8 hex digits", got)
	}
}
