package qwen

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden transcripts and lines of odd shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		`{"type":"system","subtype":"parent_session","uuid":"p1","systemPayload":{"parentSessionId":"x"}}`+"\n"+`{"type":"user","uuid":"u1","message":{"role":"user","parts":[{"text":"hi"}]}}`+"\n",
		`{"type":"assistant","uuid":"a1","message":{"parts":[{"functionCall":{"name":"f","args":7}}]},"usageMetadata":{"promptTokenCount":"9","totalTokenCount":5}}`+"\n"+`[1]`+"\n",
		`{"type":"system","subtype":"rewind"}`+"\n"+`{"type":"user","isSidechain":true,"agentId":"a-1","message":{"parts":"x"}}`+"\n")
}

// shapeCase is a table case: lines, and the kind and payload of each
// entry they make.
type shapeCase struct {
	name  string
	lines []string
	want  []string
}

// A Qwen Code record whose members are of other shapes than the mapping
// reads keeps its text: a part it does not know is kept as written in the
// message, and a record it cannot read is kept whole, as an event, never
// an empty entry.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	rec := func(typ, members string) string {
		return `{"uuid":"r1","sessionId":"s1","timestamp":"2026-05-05T10:00:00.000Z","type":"` + typ + `",` + members + `}`
	}
	user := func(parts string) string { return rec("user", `"message":{"role":"user","parts":`+parts+`}`) }
	model := func(parts string) string {
		return rec("assistant", `"model":"m","message":{"role":"model","parts":`+parts+`}`)
	}
	for _, tc := range []shapeCase{
		{"message a string", []string{rec("user", `"message":"fix it"`)},
			[]string{`event {"data":{"uuid":"r1","sessionId":"s1","timestamp":"2026-05-05T10:00:00.000Z","type":"user","message":"fix it"},"name":"qwen/user"}`}},
		{"parts a string", []string{user(`"fix it"`)},
			[]string{`event {"data":{"uuid":"r1","sessionId":"s1","timestamp":"2026-05-05T10:00:00.000Z","type":"user","message":{"role":"user","parts":"fix it"}},"name":"qwen/user"}`}},
		{"message with content, not parts", []string{rec("user", `"message":{"content":"fix it"}`)},
			[]string{`event {"data":{"uuid":"r1","sessionId":"s1","timestamp":"2026-05-05T10:00:00.000Z","type":"user","message":{"content":"fix it"}},"name":"qwen/user"}`}},
		{"text a number", []string{user(`[{"text":"see"},{"text":42}]`)},
			[]string{`message {"role":"user","content":[{"type":"text","text":"see"},{"text":42}]}`}},
		{"part not an object", []string{user(`["loose words"]`)},
			[]string{`message {"role":"user","content":["loose words"]}`}},
		{"a part of an unknown kind", []string{model(`[{"executableCode":{"language":"PYTHON","code":"print(1)"}}]`)},
			[]string{`message {"role":"assistant","content":[{"executableCode":{"language":"PYTHON","code":"print(1)"}}]}`}},
		{"text and a call in one part", []string{model(`[{"text":"a","functionCall":{"name":"f"}}]`)},
			[]string{`message {"role":"assistant","content":[{"text":"a","functionCall":{"name":"f"}}]}`}},
		{"a call without a name", []string{model(`[{"functionCall":{"id":"c1","args":{"q":"x"}}}]`)},
			[]string{`message {"role":"assistant","content":[{"functionCall":{"id":"c1","args":{"q":"x"}}}]}`}},
		{"a call without an id, args absent", []string{model(`[{"functionCall":{"name":"list"}}]`)},
			[]string{`tool_call {"calls":[{"id":"` + source.LineID(sourcetest.Path, 1, 0) + `:call0","type":"function","function":{"name":"list","arguments":"{}"}}]}`}},
		{"a signature on a call", []string{model(`[{"functionCall":{"id":"c1","name":"f","args":{}},"thoughtSignature":"sig"}]`)},
			[]string{`tool_call {"calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`}},
		{"a thought without text", []string{model(`[{"thought":true,"thoughtSignature":"sig"}]`)},
			[]string{`event {"data":{"thinking":"","signature":"sig"},"name":"thinking"}`}},
		{"thought not a boolean", []string{model(`[{"text":"hmm","thought":"yes"}]`)},
			[]string{`message {"role":"assistant","content":[{"text":"hmm","thought":"yes"}]}`}},
		{"a response with more than id, name and response", []string{rec("tool_result", `"message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":"ok"},"parts":[{"text":"more"}]}}]}`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c1","name":"f","content":{"id":"c1","name":"f","response":{"output":"ok"},"parts":[{"text":"more"}]}}]}`}},
		{"a response of output and more", []string{rec("tool_result", `"message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":"ok","llmContent":"ok!"}}}]}`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c1","name":"f","content":{"output":"ok","llmContent":"ok!"}}]}`}},
		{"a response's id a number", []string{rec("tool_result", `"message":{"role":"user","parts":[{"functionResponse":{"id":7,"response":{"output":"ok"}}}]}`)},
			[]string{`message {"role":"user","content":[{"functionResponse":{"id":7,"response":{"output":"ok"}}}]}`}},
		{"a tool's image beside its response", []string{rec("tool_result", `"message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"Binary content"}}},{"inlineData":{"mimeType":"image/png","data":"AA=="}}]},"toolCallResult":{"callId":"c1","status":"success"}`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c1","name":"read_file","content":"Binary content"}]}`,
				`message {"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}`}},
		{"a status of error for another call", []string{rec("tool_result", `"message":{"role":"user","parts":[{"functionResponse":{"id":"c1","response":{"output":"ok"}}},{"functionResponse":{"id":"c2","response":{"output":"no"}}}]},"toolCallResult":{"callId":"c2","status":"error"}`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c1","content":"ok"},{"tool_call_id":"c2","content":"no","is_error":true}]}`}},
		{"an assistant record without parts", []string{rec("assistant", `"model":"m","message":{"role":"model","parts":[]}`)},
			[]string{`event {"data":{"model":"m","message":{"role":"model","parts":[]}},"name":"qwen/assistant"}`}},
		{"usage of the development shape", []string{rec("assistant", `"model":"m","usageMetadata":{"input":10,"output":2,"total":12}`)},
			[]string{`event {"data":{"input":10,"output":2,"total":12},"name":"qwen/usage"}`}},
		{"usage counts as text", []string{rec("assistant", `"model":"m","usageMetadata":{"promptTokenCount":"10","candidatesTokenCount":2.0}`)},
			[]string{`event {"data":{"promptTokenCount":"10","candidatesTokenCount":2.0},"name":"qwen/usage"}`}},
		{"usage a string", []string{rec("assistant", `"model":"m","usageMetadata":"lots"`)},
			[]string{`event {"data":"lots","name":"qwen/usage"}`}},
		{"a total larger than its parts, the output 0", []string{rec("assistant", `"model":"m","usageMetadata":{"promptTokenCount":100,"totalTokenCount":130}`)},
			[]string{`event {"data":{"status":"ok","model":"m","usage":{"input_tokens":100,"output_tokens":30,"cache_read_input_tokens":0,"reasoning_output_tokens":0,"total_tokens":130},"usage_id":"qwen:r1"},"name":"run"}`}},
		{"a total larger than its parts, with output", []string{rec("assistant", `"model":"m","usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"totalTokenCount":130}`)},
			[]string{`event {"data":{"status":"ok","model":"m","usage":{"input_tokens":100,"output_tokens":10,"cache_read_input_tokens":0,"reasoning_output_tokens":20,"total_tokens":130},"usage_id":"qwen:r1"},"name":"run"}`}},
		{"usage of a user record", []string{rec("user", `"usageMetadata":{"promptTokenCount":5}`)},
			[]string{`event {"data":{"promptTokenCount":5},"name":"qwen/usage"}`}},
		{"a model that is a number, with usage", []string{rec("assistant", `"model":5,"message":{"role":"model","parts":[{"text":"hi"}]},"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1}`)}, []string{
			`event {"data":{"uuid":"r1","sessionId":"s1","timestamp":"2026-05-05T10:00:00.000Z","type":"assistant","model":5,"message":{"role":"model","parts":[{"text":"hi"}]},"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1}},"name":"qwen/assistant"}`,
			`event {"data":{"status":"ok","model":"","usage":{"input_tokens":5,"output_tokens":1,"cache_read_input_tokens":0,"reasoning_output_tokens":0,"total_tokens":6},"usage_id":"qwen:r1"},"name":"run"}`}},
		{"cwd a number", []string{rec("user", `"cwd":7,"message":{"role":"user","parts":[{"text":"hi"}]}`)},
			[]string{`event {"data":{"uuid":"r1","sessionId":"s1","timestamp":"2026-05-05T10:00:00.000Z","type":"user","cwd":7,"message":{"role":"user","parts":[{"text":"hi"}]}},"name":"qwen/user"}`}},
		{"no type", []string{`{"uuid":"r1","note":"words"}`},
			[]string{`event {"data":{"uuid":"r1","note":"words"},"name":"qwen/record"}`}},
		{"type a number", []string{`{"uuid":"r1","type":3,"note":"words"}`},
			[]string{`event {"data":{"uuid":"r1","type":3,"note":"words"},"name":"qwen/record"}`}},
		{"a system payload and no message", []string{rec("tool_result", `"systemPayload":{"displayText":"shown"}`)},
			[]string{`event {"data":{"systemPayload":{"displayText":"shown"}},"name":"qwen/tool_result"}`}},
		{"a title that is a number", []string{rec("system", `"subtype":"custom_title","systemPayload":{"customTitle":9}`)},
			[]string{`event {"data":{"systemPayload":{"customTitle":9}},"name":"qwen/system/custom_title"}`}},
		{"a compression payload a string", []string{rec("system", `"subtype":"chat_compression","systemPayload":"squeezed"`)},
			[]string{`event {"data":{"systemPayload":"squeezed"},"name":"qwen/system/chat_compression"}`}},
		{"a compressed history that starts with the model", []string{rec("system", `"subtype":"chat_compression","systemPayload":{"compressedHistory":[{"role":"model","parts":[{"text":"sum"}]}]}`)},
			[]string{`anchor {"name":"compact","state":{"source":"qwen","compressed_history":[{"role":"model","parts":[{"text":"sum"}]}]}}`}},
		{"a system record without a subtype", []string{rec("system", `"systemPayload":{"a":"b"}`)},
			[]string{`event {"data":{"systemPayload":{"a":"b"}},"name":"qwen/system"}`}},
		{"a key written twice: the last counts", []string{`{"uuid":"r1","type":"user","type":"assistant","message":{"role":"model","parts":[{"text":"hi"}]}}`},
			[]string{`message {"role":"assistant","content":"hi"}`}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}

// Lines that are not JSON objects are bad lines, and say why.
func TestBadLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, want string }{
		{`{"type":"user"`, "not a JSON record: unexpected end of JSON input"},
		{`[1,2]`, "not a JSON object"},
		{`"words"`, "not a JSON object"},
		{`null`, "not a JSON object"},
		{`words`, "not a JSON record: invalid character 'w'"},
		{`{"type":"user",}`, "not a JSON record: invalid character '}'"},
	} {
		_, errs := sourcetest.ConvertLines(t, Source{}, tc.line)
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.want) {
			t.Errorf("%s: errors %v, want one that starts %q", tc.line, errs, tc.want)
		}
	}
}

// convert converts lines of the transcript at path, flushed, and returns
// every output.
func convert(t *testing.T, path string, lines ...string) []source.Output {
	t.Helper()
	c, err := Source{}.NewConverter(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var outs []source.Output
	for i, l := range lines {
		o, err := c.Line(tapelog.RawLine{No: i + 1, Data: []byte(l)})
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		outs = append(outs, o...)
	}
	return append(outs, c.Flush()...)
}

// startState is the state of the first anchor of outs.
func startState(t *testing.T, outs []source.Output) map[string]any {
	t.Helper()
	var p struct {
		State map[string]any `json:"state"`
	}
	if len(outs) == 0 || !outs[0].Anchor || json.Unmarshal(outs[0].Entry.Payload, &p) != nil {
		t.Fatalf("no first anchor in %v", outs)
	}
	return p.State
}

// usageIDs are the usage ids of the run events of outs.
func usageIDs(t *testing.T, outs []source.Output) []string {
	t.Helper()
	var ids []string
	for _, o := range outs {
		var p struct {
			Name string `json:"name"`
			Data struct {
				UsageID string `json:"usage_id"`
			} `json:"data"`
		}
		if json.Unmarshal(o.Entry.Payload, &p) == nil && p.Name == "run" {
			ids = append(ids, p.Data.UsageID)
		}
	}
	return ids
}

const assistantLine = `{"uuid":"a1","parentUuid":"u1","sessionId":"%s","timestamp":"2026-05-05T10:00:01.000Z","type":"assistant","model":"m","message":{"role":"model","parts":[{"text":"done"}]},"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":5,"cachedContentTokenCount":80}%s}`

// A /branch fork copies its parent's records, uuids and all, with its own
// sessionId and forkedFrom: its tape names the parent, and the usage of a
// copied record has the usage id of the record it copies, so that tape
// usage counts it once (ccusage, whose key is the session, counts it
// twice: docs/IMPORT.md).
func TestForkCountsCopiedUsageOnce(t *testing.T) {
	t.Parallel()
	const parent, fork = "11111111-2222-4333-8444-555555555555", "66666666-7777-4888-9999-aaaaaaaaaaaa"
	line := func(sess, extra string) string {
		return strings.Replace(strings.Replace(assistantLine, "%s", sess, 1), "%s", extra, 1)
	}
	orig := convert(t, "/q/projects/p/chats/"+parent+".jsonl", line(parent, ""))
	copied := convert(t, "/q/projects/p/chats/"+fork+".jsonl", line(fork, `,"forkedFrom":{"sessionId":"`+parent+`","messageUuid":"a1"}`))
	if got := startState(t, copied)["parent_session"]; got != parent {
		t.Errorf("the fork's first anchor names parent %v, want %s", got, parent)
	}
	if a, b := usageIDs(t, orig), usageIDs(t, copied); len(a) != 1 || len(b) != 1 || a[0] != b[0] {
		t.Errorf("usage ids %v and %v: want one each, the same", a, b)
	}
}

// A background subagent's transcript is a session of its own, whose
// parent is the session it ran in; its usage counts (ccusage reads only
// the chats/ folders: docs/IMPORT.md).
func TestSubagentIsItsOwnSession(t *testing.T) {
	t.Parallel()
	const sess = "11111111-2222-4333-8444-555555555555"
	path := "/q/projects/p/subagents/" + sess + "/agent-explore-7f3c.jsonl"
	outs := convert(t, path, strings.Replace(strings.Replace(assistantLine, "%s", sess, 1), "%s", `,"agentId":"explore-7f3c","agentName":"Explore","isSidechain":true`, 1))
	want := source.Session{Source: "qwen", ID: sess, Agent: "explore-7f3c"}
	for _, o := range outs {
		if o.Session != want {
			t.Fatalf("session %+v, want %+v", o.Session, want)
		}
	}
	st := startState(t, outs)
	if st["parent_session"] != sess || st["agent_id"] != "explore-7f3c" || st["agent_name"] != "Explore" {
		t.Errorf("first anchor state %v", st)
	}
	if ids := usageIDs(t, outs); len(ids) != 1 {
		t.Errorf("usage ids %v, want one", ids)
	}
	if got := (Source{}).TapeName(want, false); got != "qwen-11111111-agent-lore7f3c" {
		t.Errorf("tape %s", got)
	}
}

// A sidechain record in a session's own file (a subagent's record written
// beside the session's) goes to the subagent's tape.
func TestSidechainRecordGoesToItsAgent(t *testing.T) {
	t.Parallel()
	const sess = "11111111-2222-4333-8444-555555555555"
	outs := convert(t, "/q/projects/p/chats/"+sess+".jsonl",
		`{"uuid":"u1","sessionId":"`+sess+`","type":"user","message":{"role":"user","parts":[{"text":"go"}]}}`,
		`{"uuid":"u2","sessionId":"`+sess+`","type":"user","agentId":"explore-1","isSidechain":true,"message":{"role":"user","parts":[{"text":"look"}]}}`)
	var agents []string
	for _, o := range outs {
		agents = append(agents, o.Session.Agent)
	}
	if got := strings.Join(agents, ","); got != ",,explore-1,explore-1" {
		t.Errorf("the entries' agents are %q, want the session's anchor and message, then the agent's", got)
	}
}

// The system records a transcript opens with are held until the
// conversation starts: the first anchor names the parent a parent_session
// record gives, a checkpoint while they are held resumes before them, and
// they are imported once the file is quiet even if nothing follows.
func TestOpeningSystemRecordsAreHeld(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"uuid":"s1","type":"system","subtype":"session_source","timestamp":"2026-05-06T10:00:00.000Z","systemPayload":{"sourceType":"acp"}}`,
		`{"uuid":"s2","type":"system","subtype":"parent_session","timestamp":"2026-05-06T10:00:01.000Z","systemPayload":{"parentSessionId":"p-0"}}`,
		`{"uuid":"u1","type":"user","timestamp":"2026-05-06T10:00:02.000Z","message":{"role":"user","parts":[{"text":"hi"}]}}`,
	}
	c, err := newConverter("/q/projects/p/chats/33333333-4444-4555-8666-777777777777.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := c.State()
	for i, l := range lines[:2] {
		if o, err := c.Line(tapelog.RawLine{No: i + 1, Offset: int64(100 * i), Data: []byte(l)}); err != nil || o != nil {
			t.Fatalf("line %d: %v, %v: want it held", i+1, o, err)
		}
	}
	if line, offset, ok := c.Held(); !ok || line != 0 || offset != 0 {
		t.Fatalf("Held() = %d, %d, %v: want the lines from the first held", line, offset, ok)
	}
	if st, _ := c.State(); string(st) != string(fresh) {
		t.Errorf("state while held %s, want the state before the first held line %s", st, fresh)
	}
	outs, err := c.Line(tapelog.RawLine{No: 3, Offset: 200, Data: []byte(lines[2])})
	if err != nil || len(outs) != 4 {
		t.Fatalf("the conversation's first line made %d entries (%v): want the anchor, the two held and its own", len(outs), err)
	}
	if got := startState(t, outs)["parent_session"]; got != "p-0" {
		t.Errorf("parent %v", got)
	}
	if _, _, ok := c.Held(); ok {
		t.Error("still held")
	}
	quiet := convert(t, "/q/projects/p/chats/33333333-4444-4555-8666-777777777777.jsonl", lines[:2]...)
	if len(quiet) != 3 {
		t.Errorf("a quiet file of two system records made %d entries, want the anchor and both", len(quiet))
	}
}

// A transcript's session and agent come from its path; a file not named
// by an id takes the first record's sessionId.
func TestFileSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path string
		want source.Session
	}{
		{"/h/.qwen/projects/-h-app/chats/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f.jsonl", source.Session{Source: "qwen", ID: "1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f"}},
		{"/h/.qwen/projects/-h-app/chats/archive/1f0c9a3e5b7d4c2a9e8f0a1b2c3d4e5f.jsonl", source.Session{Source: "qwen", ID: "1f0c9a3e5b7d4c2a9e8f0a1b2c3d4e5f"}},
		{"/h/.qwen/projects/-h-app/subagents/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f/agent-explore-7f3c.jsonl", source.Session{Source: "qwen", ID: "1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f", Agent: "explore-7f3c"}},
		{"/tmp/copy.jsonl", source.Session{Source: "qwen"}},
	} {
		if got := fileSession(tc.path); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.path, got, tc.want)
		}
	}
	outs := convert(t, "/tmp/copy.jsonl", `{"uuid":"u1","sessionId":"abc","type":"user","message":{"role":"user","parts":[{"text":"hi"}]}}`)
	if outs[0].Session.ID != "abc" {
		t.Errorf("a copy's session %q, want the first record's", outs[0].Session.ID)
	}
}

// Which files under a folder are transcripts, and where Qwen Code keeps
// them.
func TestWhereTranscriptsAre(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"/p/-h-app/chats/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f.jsonl":                    true,
		"/p/-h-app/chats/archive/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f.jsonl":            true,
		"/p/-h-app/subagents/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f/agent-x.jsonl":        true,
		"/p/-h-app/chats/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f.runtime.json":             false,
		"/p/-h-app/subagents/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f/agent-x.meta.json":    false,
		"/p/-h-app/subagents/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f/agent-x.jsonl.stream": false,
		"/p/-h-app/memory/notes.jsonl":                                                  false,
		"/t/5f2a/chats/session-2025-11-08T23-19-1f0c9a3e.json":                          true, // a document of Qwen Code before December 2025
		"/t/5f2a/logs.json":                                      false,
		"/t/5f2a/chats/checkpoint-x.json":                        false,
		"/p/-h-app/archive/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c.jsonl": false,
	} {
		if got := (Source{}).IsTranscript(path); got != want {
			t.Errorf("IsTranscript(%s) = %v", path, got)
		}
	}
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	check := func(base string) {
		t.Helper()
		got := (Source{}).DefaultDirs(getenv, "/home/u")
		if len(got) != 2 || got[0] != filepath.FromSlash(base+"/projects") || got[1] != filepath.FromSlash(base+"/tmp") {
			t.Errorf("DefaultDirs with %v = %v, want %s/projects and %s/tmp", env, got, base, base)
		}
	}
	check("/home/u/.qwen")
	env["QWEN_HOME"] = "/cfg/qwen"
	check("/cfg/qwen")
	env["QWEN_RUNTIME_DIR"] = "/rt"
	check("/rt")
	env["QWEN_RUNTIME_DIR"] = "~/rt"
	check("/home/u/rt")
}
