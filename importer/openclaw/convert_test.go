package openclaw

import (
	"encoding/json"
	"slices"
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
		`{"type":"session","version":3,"id":"s1","timestamp":"2026-03-08T23:40:00.000Z","cwd":"/w"}`+"\n"+
			`{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"toolCall","name":"x","arguments":7}],"usage":{"input":-5,"output":1},"timestamp":1e300}}`+"\n",
		`{"type":"message","message":{"role":"toolResult","content":"x","details":{"status":"failed"}}}`+"\n"+`{"type":"compaction","summary":7}`+"\n",
		`{"id":1}`+"\n"+`{"type":"session","id":{"a":1}}`+"\n"+`[]`+"\n")
}

// shapeCase is a table case: lines, and the kind and payload of each
// entry they make.
type shapeCase struct {
	name  string
	lines []string
	want  []string
}

// A record whose members are of other shapes than the mapping reads keeps
// its text: a string content is the text, a part of another shape is kept
// in the list as written, and what the mapping cannot read is an event of
// the record, never an empty entry.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	line := func(members string) string {
		return `{"type":"message","id":"m1","parentId":null,"timestamp":"2026-03-08T23:40:01.000Z",` + members + `}`
	}
	message := func(msg string) string { return line(`"message":` + msg) }
	for _, tc := range []shapeCase{
		{"user content a string", []string{message(`{"role":"user","content":"fix the parser","timestamp":1773013201000}`)},
			[]string{`message {"role":"user","content":"fix the parser"}`}},
		{"user content parts, texts only", []string{message(`{"role":"user","content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]}`)},
			[]string{`message {"role":"user","content":"one\ntwo"}`}},
		{"a text that is a number", []string{message(`{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":42}]}`)},
			[]string{`message {"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":42}]}`}},
		{"a text part with a member pi does not write", []string{message(`{"role":"user","content":[{"type":"text","text":"a","lang":"en"}]}`)},
			[]string{`message {"role":"user","content":[{"type":"text","text":"a","lang":"en"}]}`}},
		{"user content null", []string{message(`{"role":"user","content":null}`)},
			[]string{`event {"data":{"message":{"role":"user","content":null}},"name":"openclaw/message"}`}},
		{"user content a number", []string{message(`{"role":"user","content":3}`)},
			[]string{`event {"data":{"message":{"role":"user","content":3}},"name":"openclaw/message"}`}},
		{"a role pi does not write", []string{message(`{"role":"compactionSummary","summary":"s","tokensBefore":3}`)},
			[]string{`event {"data":{"message":{"role":"compactionSummary","summary":"s","tokensBefore":3}},"name":"openclaw/message"}`}},
		{"message a string", []string{message(`"hello"`)},
			[]string{`event {"data":{"message":"hello"},"name":"openclaw/message"}`}},
		{"a member of the message pi does not write", []string{message(`{"role":"user","content":"hi","__openclaw":{"seq":2}}`)},
			[]string{`message {"role":"user","content":"hi","extra":{"__openclaw":{"seq":2}}}`}},
		{"a member of the record pi does not write", []string{line(`"message":{"role":"user","content":"hi"},"provenance":"telegram"`)}, []string{
			`message {"role":"user","content":"hi"}`,
			`event {"data":{"provenance":"telegram"},"name":"openclaw/message"}`,
		}},
		{"assistant content a string", []string{message(`{"role":"assistant","content":"done","stopReason":"stop"}`)},
			[]string{`message {"role":"assistant","content":"done"}`}},
		{"a call without an id, its arguments a string", []string{message(`{"role":"assistant","content":[{"type":"toolCall","name":"read","arguments":"{\"path\":\"a\"}"}]}`)},
			[]string{`tool_call {"calls":[{"id":"m1:call0","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}}]}`}},
		{"a call of Anthropic's shape", []string{message(`{"role":"assistant","content":[{"type":"tool_use","id":"tu1","name":"read","input":{"path":"a"}}]}`)},
			[]string{`tool_call {"calls":[{"id":"tu1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}}]}`}},
		{"a call with input beside its arguments", []string{message(`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"},"input":{"command":"ls -a"}}]}`)},
			[]string{`tool_call {"calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"},"extra":{"input":{"command":"ls -a"}}}]}`}},
		{"a call whose name is a number", []string{message(`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":5,"arguments":{}}]}`)},
			[]string{`message {"role":"assistant","content":[{"type":"toolCall","id":"c1","name":5,"arguments":{}}]}`}},
		{"an assistant's model a number, with usage", []string{message(`{"role":"assistant","content":[],"model":5,"usage":{"input":10,"output":1}}`)}, []string{
			`event {"data":{"message":{"role":"assistant","content":[],"model":5,"usage":{"input":10,"output":1}}},"name":"openclaw/message"}`,
			`event {"data":{"status":"ok","model":"","usage":{"input_tokens":10,"output_tokens":1,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"usage_id":"openclaw:2026-03-08T23:40:01.000Z::10:1:0:0"},"name":"run"}`,
		}},
		{"an empty reply", []string{message(`{"role":"assistant","content":[],"stopReason":"stop","usage":{"input":0,"output":0}}`)},
			[]string{`event {"data":{"role":"assistant","content":[],"stopReason":"stop","usage":{"input":0,"output":0}},"name":"openclaw/assistant"}`}},
		{"a count that is a string, a message timestamp that is a date", []string{message(`{"role":"assistant","content":"ok","model":"m","usage":{"input":"10","output":3},"timestamp":"2026-03-07T10:00:00Z"}`)}, []string{
			`message {"role":"assistant","content":"ok"}`,
			`event {"data":{"status":"ok","model":"m","usage":{"input_tokens":0,"output_tokens":3,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"usage_id":"openclaw:2026-03-07T10:00:00.000Z:m:0:3:0:0"},"name":"run"}`,
		}},
		{"a tool result's content a string, failed by its details", []string{message(`{"role":"toolResult","toolCallId":"c1","toolName":"exec","content":"boom","details":{"status":"failed","exitCode":2},"isError":false}`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c1","name":"exec","content":"boom","details":{"status":"failed","exitCode":2},"is_error":true}]}`}},
		{"a tool result whose isError is a string", []string{message(`{"role":"toolResult","toolCallId":"c1","content":"x","isError":"yes"}`)},
			[]string{`event {"data":{"message":{"role":"toolResult","toolCallId":"c1","content":"x","isError":"yes"}},"name":"openclaw/message"}`}},
		{"an extension's message of January 2026", []string{message(`{"role":"hookMessage","customType":"memory","content":"remember","display":false}`)},
			[]string{`message {"role":"user","content":"remember"}`}},
		{"an id that is a number", []string{`{"type":"message","id":7,"message":{"role":"user","content":"hi"}}`},
			[]string{`event {"data":{"type":"message","id":7,"message":{"role":"user","content":"hi"}},"name":"openclaw/message"}`}},
		{"no type", []string{`{"id":"x1","message":{"role":"user","content":"hi"}}`},
			[]string{`event {"data":{"id":"x1","message":{"role":"user","content":"hi"}},"name":"openclaw/record"}`}},
		{"a compaction's summary a number", []string{`{"type":"compaction","id":"c","summary":7,"tokensBefore":3}`},
			[]string{`event {"data":{"summary":7,"tokensBefore":3},"name":"openclaw/compaction"}`}},
		{"a branch summary", []string{`{"type":"branch_summary","id":"b","parentId":"a","fromId":"z","summary":"went back"}`},
			[]string{`event {"data":{"fromId":"z","summary":"went back"},"name":"openclaw/branch_summary"}`}},
		{"a custom message's content a number", []string{`{"type":"custom_message","id":"c","customType":"x","content":5,"display":true}`},
			[]string{`event {"data":{"customType":"x","content":5,"display":true},"name":"openclaw/custom_message"}`}},
		{"a session_info without a name", []string{`{"type":"session_info","id":"i"}`},
			[]string{`event {"data":{},"name":"openclaw/session_info"}`}},
		{"a second header", []string{`{"type":"session","version":3,"id":"s1","cwd":"/a"}`, `{"type":"session","version":3,"id":"s2","cwd":"/b"}`},
			[]string{`event {"data":{"version":3,"cwd":"/b"},"name":"openclaw/session"}`}},
		{"a header with a member pi does not write", []string{`{"type":"session","version":3,"id":"s1","cwd":"/a","cwdHash":"x"}`, message(`{"role":"user","content":"hi"}`)},
			[]string{`message {"role":"user","content":"hi"}`}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}

// convert converts lines as one import of the transcript at path does.
func convert(t *testing.T, path string, lines ...string) []source.Output {
	t.Helper()
	c, err := newConverter(path, nil)
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
	return outs
}

// The session is the header's id, else the file's name; the first anchor
// names the OpenClaw agent, the parent a fork's or a successor's header
// names, and keeps a first layout's model; the header's unknown members
// are kept in it.
func TestFirstAnchor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path, header string
		tape         string
		state        map[string]any
	}{
		{"/h/.openclaw/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl",
			`{"type":"session","version":3,"id":"6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14","timestamp":"2026-03-08T23:40:00.000Z","cwd":"/w","cwdHash":"x"}`,
			"openclaw-6f1c2a9e", map[string]any{"openclaw_agent": "main", "cwd": "/w", "format_version": 3.0, "extra": map[string]any{"cwdHash": "x"}}},
		{"/h/.openclaw/agents/ops/sessions/2026-04-02T09-00-00-000Z_9b2e7d41-6c8a-4f13-b5e0-7a4d2c9f8e63.jsonl",
			`{"type":"session","version":3,"id":"9b2e7d41-6c8a-4f13-b5e0-7a4d2c9f8e63","parentSession":"/h/.openclaw/agents/ops/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl"}`,
			"openclaw-9b2e7d41", map[string]any{"openclaw_agent": "ops", "parent_session": "6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14"}},
		{"/h/.clawdbot/sessions/7a9c1e3b-5d2f-4a8e-b6c4-1f3e5a7c9b2d.jsonl",
			`{"type":"session","id":"7a9c1e3b-5d2f-4a8e-b6c4-1f3e5a7c9b2d","provider":"anthropic","modelId":"claude-opus-4-5","thinkingLevel":"off","branchedFrom":"/p/1111aaaa.jsonl"}`,
			"openclaw-7a9c1e3b", map[string]any{"model": "claude-opus-4-5", "provider": "anthropic", "thinking_level": "off", "parent_session": "1111aaaa"}},
		{"/h/.openclaw/agents/main/sessions/5e0f7b93-2a4c-4d6e-8f1a-3b5c7d9e1f20.jsonl.deleted.2026-03-10T04-00-00.000Z",
			`{"type":"message","message":{"role":"user","content":"no header"}}`,
			"openclaw-5e0f7b93", map[string]any{"openclaw_agent": "main"}},
	} {
		outs := convert(t, tc.path, tc.header)
		if len(outs) == 0 || !outs[0].Anchor {
			t.Fatalf("%s: no first anchor: %v", tc.path, outs)
		}
		if got := (Source{}).TapeName(outs[0].Session, false); got != tc.tape {
			t.Errorf("%s: tape %s, want %s", tc.path, got, tc.tape)
		}
		var p struct {
			State map[string]any `json:"state"`
		}
		if err := json.Unmarshal(outs[0].Entry.Payload, &p); err != nil {
			t.Fatal(err)
		}
		for k, v := range tc.state {
			if got, _ := json.Marshal(p.State[k]); string(got) != string(source.MustJSON(v)) {
				t.Errorf("%s: state %s = %s, want %s", tc.path, k, got, source.MustJSON(v))
			}
		}
	}
}

// The copies of a transcript (OpenClaw's archive on a reset, a
// compaction's checkpoint copy) make the entries the transcript makes,
// ids and all, whatever the first layout's lines without ids; a fork's
// copy of an assistant message counts its usage under the same usage_id.
func TestCopiesMakeTheSameEntries(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"type":"session","id":"5e0f7b93-2a4c-4d6e-8f1a-3b5c7d9e1f20","timestamp":"2025-12-14T08:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","timestamp":"2025-12-14T08:00:01.000Z","message":{"role":"user","content":"hi"}}`,
		`{"type":"message","timestamp":"2025-12-14T08:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"model":"m","usage":{"input":5,"output":2,"cacheRead":0,"cacheWrite":0},"timestamp":1765699202000}}`,
	}
	dir := "/h/.openclaw/agents/main/sessions/"
	ids := func(outs []source.Output) []string {
		var s []string
		for _, o := range outs {
			if o.Anchor {
				s = append(s, o.Entry.ID) // its state names the file
			} else {
				s = append(s, o.Entry.ID+" "+string(o.Entry.Payload))
			}
		}
		return s
	}
	want := ids(convert(t, dir+"5e0f7b93-2a4c-4d6e-8f1a-3b5c7d9e1f20.jsonl", lines...))
	for _, name := range []string{
		"5e0f7b93-2a4c-4d6e-8f1a-3b5c7d9e1f20.jsonl.reset.2026-03-10T04-00-00.000Z",
		"5e0f7b93-2a4c-4d6e-8f1a-3b5c7d9e1f20.checkpoint.0d6a4c2e-8f1b-4a3c-9e5d-7b1f3a5c9e2d.jsonl",
	} {
		got := ids(convert(t, dir+name, lines...))
		if !slices.Equal(got, want) {
			t.Errorf("%s made\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	fork := convert(t, dir+"2026-04-02T09-00-00-000Z_9b2e7d41-6c8a-4f13-b5e0-7a4d2c9f8e63.jsonl",
		`{"type":"session","version":3,"id":"9b2e7d41-6c8a-4f13-b5e0-7a4d2c9f8e63","parentSession":"`+dir+`5e0f7b93-2a4c-4d6e-8f1a-3b5c7d9e1f20.jsonl"}`, lines[2])
	run := fork[len(fork)-1].Entry.Payload
	if !strings.Contains(want[len(want)-1], `"usage_id":"openclaw:2025-12-14T08:00:02.000Z:m:5:2:0:0"`) || !strings.Contains(string(run), `"usage_id":"openclaw:2025-12-14T08:00:02.000Z:m:5:2:0:0"`) {
		t.Errorf("the fork's run %s and the original's %s do not share the usage_id of the message's time, model and counts", run, want[len(want)-1])
	}
}

// A run is dated as ccusage dates the usage: by the message's timestamp,
// else by the line's, in milliseconds or as a date; a message timestamp
// neither reads is the line's date. Its model is the message's, else the
// last model change's or model snapshot's, else a first layout header's.
func TestRunDateAndModel(t *testing.T) {
	t.Parallel()
	header := `{"type":"session","id":"s1","timestamp":"2026-03-08T23:00:00.000Z","provider":"p","modelId":"from-header"}`
	assistant := func(lineTS, msgTS, model string) string {
		m := `{"role":"assistant","content":"x","usage":{"input":1,"output":1}` + model
		if msgTS != "" {
			m += `,"timestamp":` + msgTS
		}
		return `{"type":"message","id":"a","timestamp":` + lineTS + `,"message":` + m + `}}`
	}
	for _, tc := range []struct {
		name   string
		lines  []string
		date   string
		model  string
		warned bool
	}{
		{"message milliseconds", []string{assistant(`"2026-03-09T00:00:03.100Z"`, `1773014398000`, `,"model":"m"`)}, "2026-03-08T23:59:58.000Z", "m", false},
		{"a fraction of a millisecond", []string{assistant(`"2026-03-09T00:00:03.100Z"`, `1773014398000.7`, `,"modelId":"mid"`)}, "2026-03-08T23:59:58.000Z", "mid", false},
		{"message date with an offset", []string{assistant(`"2026-03-09T00:00:03.100Z"`, `"2026-03-09T01:00:00+02:00"`, "")}, "2026-03-08T23:00:00.000Z", "from-header", false},
		{"no message timestamp", []string{assistant(`"2026-03-09T00:00:03.100Z"`, ``, "")}, "2026-03-09T00:00:03.100Z", "from-header", false},
		{"the line's in milliseconds", []string{assistant(`1773014398000`, `null`, "")}, "2026-03-08T23:59:58.000Z", "from-header", true},
		{"a message timestamp that is no date", []string{assistant(`"2026-03-09T00:00:03.100Z"`, `"soon"`, "")}, "2026-03-09T00:00:03.100Z", "from-header", false},
		{"after a model snapshot", []string{`{"type":"custom","customType":"model-snapshot","data":{"modelId":"snap"}}`, assistant(`"2026-03-09T00:00:03.100Z"`, ``, `,"model":""`)}, "2026-03-09T00:00:03.100Z", "snap", false},
		{"after a model change", []string{`{"type":"model_change","provider":"p","modelId":"changed"}`, assistant(`"2026-03-09T00:00:03.100Z"`, ``, "")}, "2026-03-09T00:00:03.100Z", "changed", false},
	} {
		c, err := newConverter("/x/s1.jsonl", nil)
		if err != nil {
			t.Fatal(err)
		}
		var outs []source.Output
		warned := false
		for i, l := range append([]string{header}, tc.lines...) {
			o, err := c.Line(tapelog.RawLine{No: i + 1, Data: []byte(l)})
			var w source.LineWarning
			switch {
			case err != nil && !errorsAs(err, &w):
				t.Fatalf("%s: line %d: %v", tc.name, i+1, err)
			case err != nil:
				warned = true
			}
			outs = append(outs, o...)
		}
		run := outs[len(outs)-1]
		var p struct {
			Data struct{ Model string } `json:"data"`
		}
		if err := json.Unmarshal(run.Entry.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if run.Entry.Date != tc.date || p.Data.Model != tc.model || warned != tc.warned {
			t.Errorf("%s: run dated %s, model %q, warned %v; want %s, %q, %v", tc.name, run.Entry.Date, p.Data.Model, warned, tc.date, tc.model, tc.warned)
		}
	}
}

func errorsAs(err error, w *source.LineWarning) bool {
	lw, ok := err.(source.LineWarning)
	if ok {
		*w = lw
	}
	return ok
}

func TestDefaultDirs(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	all := func(home string) []string {
		var dirs []string
		for _, d := range []string{".openclaw", ".clawdbot", ".moldbot", ".moltbot"} {
			dirs = append(dirs, home+"/"+d+"/agents", home+"/"+d+"/sessions")
		}
		return dirs
	}
	for _, tc := range []struct {
		name   string
		getenv func(string) string
		want   []string
	}{
		{"home", env(), all("/h")},
		{"OPENCLAW_STATE_DIR", env("OPENCLAW_STATE_DIR", "/s", "CLAWDBOT_STATE_DIR", "/c"), []string{"/s/agents", "/s/sessions"}},
		{"CLAWDBOT_STATE_DIR", env("CLAWDBOT_STATE_DIR", "~/old"), []string{"/h/old/agents", "/h/old/sessions"}},
		{"OPENCLAW_HOME", env("OPENCLAW_HOME", "~/other"), all("/h/other")},
		{"blank", env("OPENCLAW_STATE_DIR", "  "), all("/h")},
	} {
		if got := (Source{}).DefaultDirs(tc.getenv, "/h"); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestIsTranscript(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"/h/.openclaw/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl":                                          true,
		"/h/.openclaw/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14-topic-42.jsonl":                                 true,
		"/h/.openclaw/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl.reset.2026-03-10T04-00-00.000Z":           true,
		"/h/.openclaw/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl.deleted.2026-03-10T04-00-00Z":             true,
		"/h/.openclaw/agents/main/sessions/6f1c2a9e.checkpoint.0d6a4c2e-8f1b-4a3c-9e5d-7b1f3a5c9e2d.jsonl":                      true,
		"/h/.clawdbot/sessions/7a9c1e3b-5d2f-4a8e-b6c4-1f3e5a7c9b2d.jsonl":                                                      true,
		"/h/.openclaw/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.trajectory.jsonl":                               false,
		"/h/.openclaw/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl.bak.2026-03-10T04-00-00.000Z":             false,
		"/h/.openclaw/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl.bak-4242-1773014398000":                   false,
		"/h/.openclaw/agents/main/sessions/sessions.json":                                                                       false,
		"/h/.openclaw/agents/main/agent/models.jsonl":                                                                           false,
		"/h/.openclaw/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl.reset.latest":                             false,
		"/h/.openclaw/agents/main/sessions/archive/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl":                                  false,
		"/h/.openclaw/agents/main/sessions/2026-04-02T09-00-00-000Z_9b2e7d41-6c8a-4f13-b5e0-7a4d2c9f8e63.jsonl":                 true,
		"/h/.openclaw/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl.deleted.2026-03-10T04-00-00.000Z.partial": false,
	} {
		if got := (Source{}).IsTranscript(path); got != want {
			t.Errorf("IsTranscript(%s) = %v, want %v", path, got, want)
		}
	}
}

func TestFileSessionID(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl":                                "6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14",
		"6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14-topic-42.jsonl":                       "6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14-topic-42",
		"6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl.reset.2026-03-10T04-00-00.000Z": "6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14",
		"6f1c2a9e.checkpoint.0d6a4c2e-8f1b-4a3c-9e5d-7b1f3a5c9e2d.jsonl":            "6f1c2a9e",
		"2026-04-02T09-00-00-000Z_9b2e7d41-6c8a-4f13-b5e0-7a4d2c9f8e63.jsonl":       "9b2e7d41-6c8a-4f13-b5e0-7a4d2c9f8e63",
		"probe_session.jsonl": "probe_session",
		"/h/.openclaw/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl":            "6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14",
		"/h/.openclaw/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.trajectory.jsonl": "6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.trajectory",
	} {
		if got := fileSessionID(name); got != want {
			t.Errorf("fileSessionID(%s) = %q, want %q", name, got, want)
		}
	}
}
