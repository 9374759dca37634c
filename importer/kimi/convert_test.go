package kimi

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden transcripts and lines of odd shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		`{"type":"metadata","protocol_version":"1.5","created_at":1785722400000}`+"\n"+`{"type":"turn.prompt","input":[{"type":"text","text":"hi"}],"time":1}`+"\n"+`{"type":"context.append_message","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`+"\n",
		`{"timestamp":1.5,"message":{"type":"SubagentEvent","payload":{"task_tool_call_id":"t","event":{"type":"StatusUpdate","payload":{"token_usage":{"total":9}}}}}}`+"\n"+`[1]`+"\n",
		`{"type":"metadata"}`+"\n"+`{"type":"metadata","protocol_version":"1.0"}`+"\n"+`{"timestamp":"x","message":{"type":"CompactionEnd","payload":null}}`+"\n")
}

// shapeCase is a table case: lines, and the kind and payload of each
// entry they make.
type shapeCase struct {
	name  string
	lines []string
	want  []string
}

// A Kimi record whose members are of other shapes than the mapping reads
// keeps its text: a part it does not know is kept as written in the
// message, and a record it cannot read is kept whole, as an event, never
// an empty entry.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	cli := func(typ, payload string) string {
		return `{"timestamp": 1766217600.5, "message": {"type": "` + typ + `", "payload": ` + payload + `}}`
	}
	code := func(typ, members string) string {
		return `{"type":"` + typ + `","agentId":"main",` + members + `,"time":1785722400000}`
	}
	for _, tc := range []shapeCase{
		{"user_input a number", []string{cli("TurnBegin", `{"user_input": 7}`)},
			[]string{`event {"data":{"user_input":7},"name":"kimi/TurnBegin"}`}},
		{"a text part's text a number", []string{cli("TurnBegin", `{"user_input": [{"type": "text", "text": "see"}, {"type": "text", "text": 42}]}`)},
			[]string{`message {"role":"user","content":[{"type":"text","text":"see"},{"type":"text","text":42}]}`}},
		{"a part not an object", []string{cli("TurnBegin", `{"user_input": ["loose words"]}`)},
			[]string{`message {"role":"user","content":["loose words"]}`}},
		{"an image with an id", []string{cli("TurnBegin", `{"user_input": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AA==", "id": "img-1"}}]}`)},
			[]string{`message {"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA==","id":"img-1"}}]}`}},
		{"a content part of an unknown kind", []string{cli("ContentPart", `{"type": "audio_url", "audio_url": {"url": "https://x/a.mp3", "id": null}}`)},
			[]string{`event {"data":{"type":"audio_url","audio_url":{"url":"https://x/a.mp3","id":null}},"name":"kimi/ContentPart"}`}},
		{"a think part without its encrypted", []string{cli("ContentPart", `{"type": "think", "think": "hmm"}`)},
			[]string{`event {"data":{"thinking":"hmm"},"name":"thinking"}`}},
		{"a tool call without arguments", []string{cli("ToolCall", `{"type": "function", "id": "c1", "function": {"name": "Glob", "arguments": null}, "extras": null}`)},
			[]string{`tool_call {"calls":[{"id":"c1","type":"function","function":{"name":"Glob","arguments":"{}"}}]}`}},
		{"a tool call's arguments an object", []string{cli("ToolCall", `{"type": "function", "id": "c1", "function": {"name": "Glob", "arguments": {"p": 1}}}`)},
			[]string{`event {"data":{"type":"function","id":"c1","function":{"name":"Glob","arguments":{"p":1}}},"name":"kimi/ToolCall"}`}},
		{"a tool call with extras", []string{cli("ToolCall", `{"type": "function", "id": "c1", "function": {"name": "Glob", "arguments": "{}"}, "extras": {"server": "fs"}}`)},
			[]string{`tool_call {"calls":[{"id":"c1","type":"function","function":{"name":"Glob","arguments":"{}"},"extras":{"server":"fs"}}]}`}},
		{"a result's is_error a string", []string{cli("ToolResult", `{"tool_call_id": "c1", "return_value": {"is_error": "no", "output": "ok", "message": "", "display": []}}`)},
			[]string{`event {"data":{"tool_call_id":"c1","return_value":{"is_error":"no","output":"ok","message":"","display":[]}},"name":"kimi/ToolResult"}`}},
		{"a result of parts, with extras", []string{cli("ToolResult", `{"tool_call_id": "c1", "return_value": {"is_error": false, "output": [{"type": "text", "text": "a"}], "message": "", "display": [], "extras": {"k": "v"}}}`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c1","content":[{"type":"text","text":"a"}],"extras":{"k":"v"}}]}`}},
		{"a payload null", []string{cli("CompactionBegin", `null`)},
			[]string{`event {"data":{},"name":"kimi/CompactionBegin"}`}},
		{"a message with a member more", []string{`{"timestamp": 1.5, "message": {"type": "TurnEnd", "payload": {}, "seq": 3}}`},
			[]string{`event {"data":{"timestamp":1.5,"message":{"type":"TurnEnd","payload":{},"seq":3}},"name":"kimi/TurnEnd"}`}},
		{"a record with a member more", []string{`{"timestamp": 1.5, "message": {"type": "TurnEnd", "payload": {}}, "pid": 7}`},
			[]string{`event {"data":{"timestamp":1.5,"message":{"type":"TurnEnd","payload":{}},"pid":7},"name":"kimi/record"}`}},
		{"an object of neither shape", []string{`{"hello": "world"}`},
			[]string{`event {"data":{"hello":"world"},"name":"kimi/record"}`}},
		{"a StatusUpdate of no usage", []string{cli("StatusUpdate", `{"context_usage": 0.1, "token_usage": {"input_other": 0, "output": 0}}`)},
			[]string{`event {"data":{"context_usage":0.1,"token_usage":{"input_other":0,"output":0}},"name":"kimi/StatusUpdate"}`}},
		{"a SubagentEvent whose event is a string", []string{cli("SubagentEvent", `{"task_tool_call_id": "t1", "event": "x"}`)},
			[]string{`event {"data":{"task_tool_call_id":"t1","event":"x"},"name":"kimi/SubagentEvent"}`}},
		{"a prompt's input a string", []string{code("turn.prompt", `"input":"fix it","origin":"user"`)},
			[]string{`event {"data":{"input":"fix it","origin":"user"},"name":"kimi/turn.prompt"}`}},
		{"an agentId not a string", []string{`{"type":"turn.prompt","agentId":7,"input":[]}`},
			[]string{`event {"data":{"agentId":7,"input":[]},"name":"kimi/turn.prompt"}`}},
		{"a context message of an unknown role", []string{code("context.append_message", `"message":{"role":"developer","content":[{"type":"text","text":"x"}],"toolCalls":[]}`)},
			[]string{`event {"data":{"message":{"role":"developer","content":[{"type":"text","text":"x"}],"toolCalls":[]}},"name":"kimi/context.append_message"}`}},
		{"a context message's call without a name", []string{code("context.append_message", `"message":{"role":"assistant","content":[],"toolCalls":[{"type":"function","id":"c1","arguments":"{}"}]}`)},
			[]string{`event {"data":{"message":{"role":"assistant","content":[],"toolCalls":[{"type":"function","id":"c1","arguments":"{}"}]}},"name":"kimi/context.append_message"}`}},
		{"a system message", []string{code("context.append_message", `"message":{"role":"system","content":[{"type":"text","text":"be brief"}],"toolCalls":[]}`)},
			[]string{`system {"content":"be brief"}`}},
		{"a tool message", []string{code("context.append_message", `"message":{"role":"tool","content":[{"type":"text","text":"ok"}],"toolCalls":[],"toolCallId":"c1","isError":true}`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c1","content":[{"type":"text","text":"ok"}],"is_error":true}]}`}},
		{"a loop event of an unknown type", []string{code("context.append_loop_event", `"event":{"type":"step.retry","attempt":2}`)},
			[]string{`event {"data":{"attempt":2},"name":"kimi/step.retry"}`}},
		{"a tool.call's args a string", []string{code("context.append_loop_event", `"event":{"type":"tool.call","toolCallId":"c1","name":"Bash","args":"{\"command\":\"ls\"}"}`)},
			[]string{`tool_call {"calls":[{"id":"c1","type":"function","function":{"name":"Bash","arguments":"{\"command\":\"ls\"}"}}]}`}},
		{"a tool.result without output", []string{code("context.append_loop_event", `"event":{"type":"tool.result","toolCallId":"c1","result":{"isError":true}}`)},
			[]string{`event {"data":{"toolCallId":"c1","result":{"isError":true}},"name":"kimi/tool.result"}`}},
		{"a compaction whose summary is a message", []string{code("context.apply_compaction", `"summary":{"role":"user","content":[{"type":"text","text":"so far"}]},"count":3`)},
			[]string{`anchor {"name":"compact","state":{"source":"kimi","summary":"so far","compaction":{"count":3}}}`}},
		{"a compaction whose summary is a number", []string{code("context.apply_compaction", `"summary":7,"compactedCount":3`)},
			[]string{`anchor {"name":"compact","state":{"source":"kimi","compaction":{"summary":7,"compactedCount":3}}}`}},
		{"a context cleared", []string{code("context.clear", `"reason":"user"`)},
			[]string{`anchor {"name":"clear","state":{"source":"kimi","clear":{"reason":"user"}}}`}},
		{"a usage.record without a scope", []string{code("usage.record", `"model":"k2","usage":{"inputOther":5,"output":1,"inputCacheRead":0,"inputCacheCreation":0}`)},
			[]string{`event {"data":{"model":"k2","usage":{"inputOther":5,"output":1,"inputCacheRead":0,"inputCacheCreation":0}},"name":"kimi/usage.record"}`}},
		{"a metadata line later", []string{cli("TurnEnd", `{}`), `{"type":"metadata","protocol_version":"1.2"}`},
			[]string{`event {"data":{},"name":"kimi/TurnEnd"}`, `event {"data":{"protocol_version":"1.2"},"name":"kimi/metadata"}`}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}

// convert converts lines at path, one pass, as one import does.
func convert(t *testing.T, path string, lines ...string) (outs []source.Output, errs []error) {
	t.Helper()
	c, err := Source{}.NewConverter(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range lines {
		o, err := c.Line(tapelog.RawLine{No: i + 1, Data: []byte(line)})
		if err != nil {
			errs = append(errs, err)
		}
		outs = append(outs, o...)
	}
	return append(outs, c.Flush()...), errs
}

// Usage counts as ccusage 20.0.24 counts Kimi's: a count is a whole
// number (a string, a fraction or a negative is 0); a total larger than
// the counts' sum gives the rest to the output when it is 0, else to the
// reasoning; no count, no run; a subagent's StatusUpdate copied into its
// parent's file, and a usage.record of a scope other than "turn", are not
// counted; the same record written twice has one usage_id.
func TestUsageAsCcusageCountsIt(t *testing.T) {
	t.Parallel()
	status := func(ts, usage string) string {
		return `{"timestamp": ` + ts + `, "message": {"type": "StatusUpdate", "payload": {"token_usage": ` + usage + `, "message_id": "m1"}}}`
	}
	for _, tc := range []struct {
		name string
		line string
		want string // the run's usage, "" for none
	}{
		{"counts", status("1766217600.5", `{"input_other": 10, "output": 2, "input_cache_read": 30, "input_cache_creation": 4}`),
			`{"input_tokens":10,"output_tokens":2,"cache_read_input_tokens":30,"cache_creation_input_tokens":4,"total_tokens":46}`},
		{"odd counts are 0", status("1766217600.5", `{"input_other": "10", "output": 2.0, "input_cache_read": -3, "input_cache_creation": 4}`),
			`{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":4,"total_tokens":4}`},
		{"a total alone is output", status("1766217600.5", `{"total": 432}`),
			`{"input_tokens":0,"output_tokens":432,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"total_tokens":432}`},
		{"a larger total's rest is reasoning", status("1766217600.5", `{"input_other": 10, "output": 5, "total": 100}`),
			`{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"reasoning_output_tokens":85,"total_tokens":100}`},
		{"no count", status("1766217600.5", `{"input_other": 0, "output": 0}`), ""},
		{"a subagent's copied StatusUpdate", `{"timestamp": 1.5, "message": {"type": "SubagentEvent", "payload": {"task_tool_call_id": "t1", "event": {"type": "StatusUpdate", "payload": {"token_usage": {"input_other": 9, "output": 9}}}}}}`, ""},
		{"a turn's usage.record", `{"type":"usage.record","model":"kimi-code/k2","usage":{"inputOther":1,"output":2,"inputCacheRead":3,"inputCacheCreation":4},"usageScope":"turn","time":1785722400000}`,
			`{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4,"total_tokens":10}`},
		{"a session's usage.record", `{"type":"usage.record","model":"k2","usage":{"inputOther":1,"output":2},"usageScope":"session","time":1785722400000}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outs, errs := convert(t, "/h/.kimi/sessions/ab/7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5/wire.jsonl", tc.line)
			var got []string
			for _, o := range outs {
				if r, ok := runUsage(o); ok {
					got = append(got, r)
				}
			}
			if len(errs) > 0 || strings.Join(got, "\n") != tc.want {
				t.Errorf("runs %q (errors %v), want %q", got, errs, tc.want)
			}
		})
	}
	twice := status("1766217600.5", `{"input_other": 10, "output": 2}`)
	outs, _ := convert(t, "/h/.kimi/sessions/ab/s1/wire.jsonl", twice, twice, status("1766217601.5", `{"input_other": 10, "output": 2}`))
	var ids []string
	for _, o := range outs {
		if id := usageIDOf(o); id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) != 3 || ids[0] != ids[1] || ids[1] == ids[2] {
		t.Errorf("usage ids %q: want the same record's twice the same, another date's another", ids)
	}
}

// runUsage is the usage of a run event, as written.
func runUsage(o source.Output) (string, bool) {
	p := string(o.Entry.Payload)
	if !strings.Contains(p, `"name":"run"`) {
		return "", false
	}
	i := strings.Index(p, `"usage":`)
	j := strings.Index(p, `,"usage_id"`)
	return p[i+len(`"usage":`) : j], true
}

func usageIDOf(o source.Output) string {
	p := string(o.Entry.Payload)
	i := strings.Index(p, `"usage_id":"`)
	if i < 0 {
		return ""
	}
	rest := p[i+len(`"usage_id":"`):]
	return rest[:strings.IndexByte(rest, '"')]
}

// A Kimi Code prompt is one message: its copy into the model's context,
// the context.append_message after it, makes no entry; a context message
// that says more, or another text, is a message of its own.
func TestPromptCopiedIntoTheContextIsOneMessage(t *testing.T) {
	t.Parallel()
	prompt := `{"type":"turn.prompt","agentId":"main","input":[{"type":"text","text":"改成 pnpm"}],"origin":"user","time":1785722400000}`
	copyOf := `{"type":"context.append_message","agentId":"main","message":{"role":"user","content":[{"type":"text","text":"改成 pnpm"}],"toolCalls":[],"origin":{"kind":"user"},"id":"m1"},"time":1785722400001}`
	other := `{"type":"context.append_message","agentId":"main","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"}],"toolCalls":[],"origin":"injection"},"time":1785722400002}`
	got, errs := sourcetest.ConvertLines(t, Source{}, prompt, copyOf, other, copyOf)
	want := []string{
		`message {"role":"user","content":"改成 pnpm"}`,
		`message {"role":"user","content":"<system-reminder>x</system-reminder>"}`,
		`message {"role":"user","content":"改成 pnpm"}`, // a copy of no prompt pending
	}
	if len(errs) > 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("made\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	outs, _ := convert(t, sourcetest.Path, prompt, other)
	if m := string(outs[2].Entry.Meta); !strings.Contains(m, `"synthetic":true`) || !strings.Contains(m, `"origin":"injection"`) {
		t.Errorf("an injected context message's meta %s: want its origin, and synthetic", m)
	}
}

// A Kimi CLI subagent: before 1.25 its events, copied into its parent's
// wire.jsonl, make its own tape, whose first anchor names the parent and
// the Task call; from 1.25 (an agent_id) they make nothing, for its own
// wire.jsonl holds them.
func TestSubagentEventsInTheParentsFile(t *testing.T) {
	t.Parallel()
	path := "/h/.kimi/sessions/ab/7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5/wire.jsonl"
	before := `{"timestamp": 1.5, "message": {"type": "SubagentEvent", "payload": {"task_tool_call_id": "Task:2", "event": {"type": "TurnBegin", "payload": {"user_input": "find callers"}}}}}`
	from := `{"timestamp": 2.5, "message": {"type": "SubagentEvent", "payload": {"parent_tool_call_id": "tool_1", "agent_id": "a3f9c21b0", "subagent_type": "explore", "event": {"type": "TurnBegin", "payload": {"user_input": "find callers"}}}}}`
	outs, errs := convert(t, path, before, from)
	if len(errs) > 0 || len(outs) != 3 {
		t.Fatalf("made %d entries (errors %v), want the session's anchor, the subagent's, and its message", len(outs), errs)
	}
	child := source.Session{Source: "kimi", ID: "7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5", Agent: "Task:2"}
	if outs[1].Session != child || !outs[1].Anchor || !strings.Contains(string(outs[1].Entry.Payload), `"parent_session":"7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5","parent_tool_call_id":"Task:2"`) {
		t.Errorf("the subagent's anchor: %+v %s", outs[1].Session, outs[1].Entry.Payload)
	}
	if outs[2].Session != child || outs[2].Entry.Kind != tapelog.KindMessage {
		t.Errorf("the subagent's message: %+v %s", outs[2].Session, outs[2].Entry.Payload)
	}
	if name := (Source{}).TapeName(child, false); name != "kimi-7d2e4f60-agent-Task2" {
		t.Errorf("tape %q", name)
	}
}

// The metadata line opens a file: the first anchor, made with the first
// record, says its protocol_version; a file of nothing else (an agent
// Kimi Code opened that did nothing) makes no tape; records without a time
// (Kimi Code's migration of a Kimi CLI session) take its created_at.
func TestMetadataLine(t *testing.T) {
	t.Parallel()
	path := "/h/.kimi-code/sessions/wd_app_0a1b2c3d4e5f/ses_7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5/agents/main/wire.jsonl"
	meta := `{"type":"metadata","protocol_version":"1.0","created_at":1766217624000}`
	if outs, errs := convert(t, path, meta); len(outs) != 0 || len(errs) != 0 {
		t.Errorf("a metadata line alone made %d entries, errors %v", len(outs), errs)
	}
	outs, _ := convert(t, path, meta, `{"type":"context.append_message","message":{"role":"user","content":[{"type":"text","text":"hi"}],"toolCalls":[]}}`)
	if len(outs) != 2 {
		t.Fatalf("made %d entries, want the anchor and a message", len(outs))
	}
	want := `{"name":"session/start","state":{"source":"kimi","session_id":"ses_7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5","file":"` + path +
		`","agent":"kimi-code","work_dir_key":"wd_app_0a1b2c3d4e5f","migrated_from":"7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5","protocol_version":"1.0"}}`
	if got := string(outs[0].Entry.Payload); got != want {
		t.Errorf("anchor\n%s\nwant\n%s", got, want)
	}
	for _, o := range outs {
		if o.Entry.Date != "2025-12-20T08:00:24.000Z" {
			t.Errorf("entry %s dated %q, want the metadata's created_at", o.Entry.ID, o.Entry.Date)
		}
	}
}

// A record's date: Kimi CLI's timestamp in seconds, Kimi Code's time in
// milliseconds, both to the millisecond, truncated as ccusage truncates;
// a value that is no date is the date of the line before, and a warning.
func TestDates(t *testing.T) {
	t.Parallel()
	outs, errs := convert(t, sourcetest.Path,
		`{"timestamp": 1766217600.9999, "message": {"type": "TurnEnd", "payload": {}}}`,
		`{"type":"turn.ended","time":1785722400123}`,
		`{"type":"turn.ended","time":"yesterday"}`,
		`{"type":"turn.ended"}`,
		`{"type":"turn.ended","time":-5}`)
	var dates []string
	for _, o := range outs[1:] {
		dates = append(dates, o.Entry.Date)
	}
	want := []string{"2025-12-20T08:00:00.999Z", "2026-08-03T02:00:00.123Z", "2026-08-03T02:00:00.123Z", "2026-08-03T02:00:00.123Z", "2026-08-03T02:00:00.123Z"}
	if strings.Join(dates, " ") != strings.Join(want, " ") {
		t.Errorf("dates %q, want %q", dates, want)
	}
	if outs[1].Entry.ID != source.LineID(sourcetest.Path, 1, 0) {
		t.Errorf("id %s, want source.LineID's", outs[1].Entry.ID)
	}
	for _, ms := range []int64{0, 1766217600999, 1785722400123, maxMillis, 951782400000} {
		if got, want := formatMillis(ms), time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z"); got != want {
			t.Errorf("formatMillis(%d) = %s, want %s", ms, got, want)
		}
	}
	var w source.LineWarning
	if len(errs) != 2 || !errors.As(errs[0], &w) || !strings.Contains(errs[0].Error(), `"time" "yesterday" is not a date; imported with the date of the line before`) {
		t.Errorf("warnings %v, want two, for the lines 3 and 5", errs)
	}
	if m := string(outs[3].Entry.Meta); !strings.Contains(m, `"timestamp":"yesterday"`) {
		t.Errorf("meta %s: want the time as written", m)
	}
}

// Where Kimi's files live, which are transcripts, and the sessions and
// tapes their paths name.
func TestPaths(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{nil, "/home/u/.kimi/sessions /home/u/.kimi-code/sessions"},
		{map[string]string{"KIMI_SHARE_DIR": "/s", "KIMI_CODE_HOME": "/c"}, "/s/sessions /c/sessions"},
		{map[string]string{"KIMI_DATA_DIR": "/a, /b/,", "KIMI_SHARE_DIR": "/s"}, "/a/sessions /b/sessions"},
	} {
		if got := strings.Join(Source{}.DefaultDirs(env(tc.vars), "/home/u"), " "); got != filepath.FromSlash(tc.want) {
			t.Errorf("DefaultDirs with %v = %s, want %s", tc.vars, got, tc.want)
		}
	}
	for _, tc := range []struct {
		path, session, agent, tape string
	}{
		{"/h/.kimi/sessions/5f0e/7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5/wire.jsonl", "7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5", "", "kimi-7d2e4f60"},
		{"/h/.kimi/sessions/5f0e/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f/subagents/a3f9c21b0/wire.jsonl", "1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f", "a3f9c21b0", "kimi-1f0c9a3e-agent-a3f9c21b0"},
		{"/h/.kimi-code/sessions/wd_app_0a1b/session_2728744d-1865-4af1-b3da-97d5bf22a979/agents/main/wire.jsonl", "session_2728744d-1865-4af1-b3da-97d5bf22a979", "", "kimi-2728744d"},
		{"/h/.kimi-code/sessions/wd_app_0a1b/session_2728744d-1865-4af1-b3da-97d5bf22a979/agents/agent-12/wire.jsonl", "session_2728744d-1865-4af1-b3da-97d5bf22a979", "agent-12", "kimi-2728744d-agent-12"},
		{"/elsewhere/copy.jsonl", "copy", "", "kimi-copy"},
	} {
		p := placeOf(tc.path)
		if p.session.ID != tc.session || p.session.Agent != tc.agent || (Source{}).TapeName(p.session, false) != tc.tape {
			t.Errorf("%s: session %+v, tape %s; want %s, %s, %s", tc.path, p.session, (Source{}).TapeName(p.session, false), tc.session, tc.agent, tc.tape)
		}
		long := (Source{}).TapeName(p.session, true)
		if err := tapelog.ValidateTapeName(long); err != nil || !strings.HasPrefix(long, tc.tape+"-") {
			t.Errorf("long name %q: %v", long, err)
		}
	}
	for path, want := range map[string]bool{"/s/a/b/wire.jsonl": true, "/s/a/b/context.jsonl": false, "/s/a/b/context_1.jsonl": false, "/s/a/b/state.json": false} {
		if got := (Source{}).IsTranscript(path); got != want {
			t.Errorf("IsTranscript(%s) = %v", path, got)
		}
	}
}
