package droid

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/importer/sourcetest"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden sessions (their settings read as lines of records too)
// and lines of odd shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		start("s1", `"title":"t"`)+"\n"+messageLine("m1", `{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"Read"},"x",7]}`)+"\n",
		`{"type":"message","id":"m","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","is_error":"yes"}]}}`+"\n"+`{"type":7}`+"\n",
		`{"type":"compaction_state","summaryText":"s"}`+"\n"+start("s2", `"sessionTitle":"New Session"`)+"\n")
}

// FuzzSettings: the same of the settings converter, on the golden
// sessions' files read as settings documents, and documents cut short.
func FuzzSettings(f *testing.F) {
	sourcetest.FuzzResume(f, settingsOnly{},
		"{\n  \"model\": \"m\",\n  \"tokenUsage\": {\n    \"inputTokens\": 5\n  }\n",
		"{\"tokenUsage\":{\"inputTokens\":1}}\n{\"tokenUsage\":{\"inputTokens\":2}}\n}\n",
		"{\n  \"a\": [\n    1\n  ]\n}\n}\n{\n")
}

// settingsOnly is the source whose converter reads every file as a
// settings document, whatever its path: the sourcetest checks convert at
// a transcript's path.
type settingsOnly struct{ Source }

func (settingsOnly) NewConverter(_ string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(settingsPath, state))
}

const settingsPath = "/h/.factory/sessions/-w/7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c.settings.json"

// start is a session_start record of the session id, with more members.
func start(id, more string) string {
	return `{"type":"session_start","id":"` + id + `",` + more + `}`
}

// record is a message record of the id whose message is m.
func messageLine(id, m string) string {
	return `{"type":"message","id":"` + id + `","timestamp":"2026-01-05T10:00:00.000Z","message":` + m + `}`
}

// Records of other shapes than the mapping reads keep their text: what it
// cannot read is an event of the record (or of the block), never an empty
// entry; and the mapping's choices on shapes it reads.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	user := func(content string) string { return messageLine("m", `{"role":"user","content":`+content+`}`) }
	asst := func(content string) string { return messageLine("m", `{"role":"assistant","content":`+content+`}`) }
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"content a string", []string{user(`"hi"`)},
			[]string{`message {"role":"user","content":"hi"}`}},
		{"content a number", []string{user(`7`)},
			[]string{`event {"data":{"message":{"role":"user","content":7}},"name":"droid/message"}`}},
		{"role a number", []string{messageLine("m", `{"role":1,"content":"hi"}`)},
			[]string{`event {"data":{"message":{"role":1,"content":"hi"}},"name":"droid/message"}`}},
		{"a role the mapping does not know", []string{messageLine("m", `{"role":"system","content":"hi"}`)},
			[]string{`event {"data":{"message":{"role":"system","content":"hi"}},"name":"droid/message"}`}},
		{"message a string", []string{`{"type":"message","id":"m","message":"hi"}`},
			[]string{`event {"data":{"message":"hi"},"name":"droid/message"}`}},
		{"no blocks", []string{user(`[]`)},
			[]string{`event {"data":{"message":{"role":"user","content":[]}},"name":"droid/message"}`}},
		{"texts, strings among them, and an image", []string{user(`["plain",{"type":"text","text":"typed"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AQID"}}]`)},
			[]string{`message {"role":"user","content":[{"type":"text","text":"plain"},{"type":"text","text":"typed"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AQID"}}]}`}},
		{"a user's blocks of other shapes are parts as written", []string{user(`[{"type":"text","text":5},{"type":"image","source":{"type":"url","url":"https://x"}},{"type":"document","source":{"type":"text","data":"note"}},7]`)},
			[]string{`message {"role":"user","content":[{"type":"text","text":5},{"type":"image","source":{"type":"url","url":"https://x"}},{"type":"document","source":{"type":"text","data":"note"}},7]}`}},
		{"a text with more than a text", []string{user(`[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]`)},
			[]string{`message {"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}`}},
		{"context Droid adds, apart from the prompt", []string{user(`[{"type":"text","text":" <system-reminder>date</system-reminder>"},{"type":"text","text":"fix it"}]`)},
			[]string{`message {"role":"user","content":" <system-reminder>date</system-reminder>"}`, `message {"role":"user","content":"fix it"}`}},
		{"results before the rest, a failed one, one with more", []string{user(`[{"type":"text","text":"and"},{"type":"tool_result","tool_use_id":"a","content":"ok","is_error":false},{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"no"}],"is_error":true},{"type":"tool_result","tool_use_id":"c","cache_control":{"type":"ephemeral"}}]`)},
			[]string{`tool_result {"results":[{"tool_call_id":"a","content":"ok"},{"tool_call_id":"b","content":[{"type":"text","text":"no"}],"is_error":true},{"tool_call_id":"c","content":null,"droid":{"cache_control":{"type":"ephemeral"}}}]}`, `message {"role":"user","content":"and"}`}},
		{"a result whose is_error is a string", []string{user(`[{"type":"tool_result","tool_use_id":"a","content":"x","is_error":"yes"}]`)},
			[]string{`message {"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x","is_error":"yes"}]}`}},
		{"thinking, texts and calls", []string{asst(`[{"type":"thinking","thinking":"hm","signature":"s","signatureProvider":"anthropic"},{"type":"text","text":"a"},{"type":"tool_use","id":"c1","name":"Read","input":{"file_path":"/a"}},{"type":"text","text":"b"},{"type":"tool_use","id":"c2","name":"LS","thought_signature":"t"}]`)},
			[]string{`event {"data":{"thinking":"hm","signature":"s","signatureProvider":"anthropic"},"name":"thinking"}`,
				`message {"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`,
				`tool_call {"calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"/a\"}"}},{"id":"c2","type":"function","function":{"name":"LS","arguments":"{}"},"droid":{"thought_signature":"t"}}]}`}},
		{"an assistant's other blocks", []string{asst(`[{"type":"redacted_thinking","data":"x"},{"type":"document","source":{}},{"type":"tool_use","id":3,"name":"Read"},{"type":"thinking","thinking":1},{"type":"a b"},"said",[1]]`)},
			[]string{`event {"data":{"data":"x"},"name":"droid/redacted_thinking"}`,
				`event {"data":{"source":{}},"name":"droid/document"}`,
				`event {"data":{"type":"tool_use","id":3,"name":"Read"},"name":"droid/block"}`,
				`event {"data":{"type":"thinking","thinking":1},"name":"droid/block"}`,
				`event {"data":{"type":"a b"},"name":"droid/block"}`,
				`event {"data":[1],"name":"droid/block"}`,
				`message {"role":"assistant","content":"said"}`}},
		{"a chat completion's reasoning", []string{messageLine("m", `{"role":"assistant","content":[],"chatCompletionReasoningField":"reasoning_content","chatCompletionReasoningContent":"think"}`)},
			[]string{`event {"data":{"thinking":"think","field":"reasoning_content"},"name":"thinking"}`}},
		{"OpenAI's reasoning", []string{messageLine("m", `{"role":"assistant","content":"done","openaiReasoningId":"rs","openaiReasoningSummary":[{"type":"summary_text","text":"why"}],"openaiEncryptedContent":"gA"}`)},
			[]string{`event {"data":{"id":"rs","summary":[{"type":"summary_text","text":"why"}],"encrypted_content":"gA"},"name":"reasoning"}`, `message {"role":"assistant","content":"done"}`}},
		{"a reasoning content that is not text", []string{messageLine("m", `{"role":"assistant","content":"x","chatCompletionReasoningContent":5}`)},
			[]string{`event {"data":{"content":5},"name":"reasoning"}`, `message {"role":"assistant","content":"x"}`}},
		{"a compaction", []string{`{"type":"compaction_state","id":"c","summaryText":"so far","removedCount":4}`},
			[]string{`anchor {"name":"compact","state":{"source":"droid","summary":"so far","compaction":{"removedCount":4}}}`}},
		{"a compaction without a summary", []string{`{"type":"compaction_state","id":"c","summaryText":null,"removedCount":4}`},
			[]string{`event {"data":{"summaryText":null,"removedCount":4},"name":"droid/compaction_state"}`}},
		{"a todo list", []string{`{"type":"todo_state","id":"t","timestamp":"2026-01-05T10:00:00Z","todos":"1. [pending] x","messageIndex":1}`},
			[]string{`event {"data":{"todos":"1. [pending] x","messageIndex":1},"name":"droid/todo_state"}`}},
		{"a type tape does not map", []string{`{"type":"agent_turn_outcome","turnId":"m","reason":"completed"}`},
			[]string{`event {"data":{"turnId":"m","reason":"completed"},"name":"droid/agent_turn_outcome"}`}},
		{"no type", []string{`{"id":"x","text":"hi"}`},
			[]string{`event {"data":{"id":"x","text":"hi"},"name":"droid/record"}`}},
		{"an id that is a number", []string{`{"type":"message","id":7,"message":{"role":"user","content":"hi"}}`},
			[]string{`event {"data":{"type":"message","id":7,"message":{"role":"user","content":"hi"}},"name":"droid/message"}`}},
		{"the session's name, else its first words", []string{start("s", `"title":"first words","sessionTitle":"New Session"`)},
			[]string{`event {"data":{"title":"first words","from":"session_start"},"name":"title"}`}},
		{"a session_start again: an event, and a title if it is a new one", []string{
			start("s", `"title":"a","sessionTitle":"Named"`), start("s", `"title":"a","sessionTitle":"Named"`), start("s", `"sessionTitle":"Renamed"`)},
			[]string{`event {"data":{"title":"Named","from":"session_start"},"name":"title"}`,
				`event {"data":{"type":"session_start","id":"s","title":"a","sessionTitle":"Named"},"name":"droid/session_start"}`,
				`event {"data":{"type":"session_start","id":"s","sessionTitle":"Renamed"},"name":"droid/session_start"}`,
				`event {"data":{"title":"Renamed","from":"session_start"},"name":"title"}`}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}

// convert converts lines at path, as one import of a quiet file, and
// returns what was made.
func convert(t *testing.T, path string, lines ...string) []source.Output {
	t.Helper()
	c, err := newConverter(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []source.Output
	for i, l := range lines {
		o, _ := c.Line(raw(i+1, l))
		out = append(out, o...)
	}
	return append(out, c.Flush()...)
}

// The metas of a message's entries: the first says what of the record and
// its message the mapping does not read; a message a person did not type
// is synthetic; a notice out of the model's context says so on each
// entry; the first entry after the session's anchor names its cwd.
func TestMessageMetas(t *testing.T) {
	t.Parallel()
	path := "/h/.factory/sessions/-w/7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c.jsonl"
	out := convert(t, path,
		start("7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c", `"cwd":"/w","callingSessionId":"p"`),
		`{"type":"message","id":"m1","parentId":"m0","isPinned":true,"message":{"role":"assistant","modelId":"glm","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"c","name":"Read"}]}}`,
		messageLine("m2", `{"role":"user","content":"Error: Connection error.","visibility":"user_only"}`),
		messageLine("m3", `{"role":"user","content":"lint","userMessageSource":"automation"}`),
		messageLine("m4", `{"role":"user","content":"typed","userMessageSource":"user"}`))
	var got []string
	for _, o := range out {
		got = append(got, o.Entry.ID+" "+string(o.Entry.Meta))
	}
	want := []string{
		`7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c {"source":{"file":"` + path + `","line":1}}`,
		`m1 {"source":{"file":"` + path + `","line":2,"uuid":"m1","parent_uuid":"m0"},"cwd":"/w","record":{"isPinned":true},"message":{"modelId":"glm"}}`,
		`m1/2 {"source":{"file":"` + path + `","line":2,"uuid":"m1","parent_uuid":"m0"}}`,
		`m2 {"source":{"file":"` + path + `","line":3,"uuid":"m2"},"message":{"visibility":"user_only"},"context":false,"synthetic":true}`,
		`m3 {"source":{"file":"` + path + `","line":4,"uuid":"m3"},"message":{"userMessageSource":"automation"},"synthetic":true}`,
		`m4 {"source":{"file":"` + path + `","line":5,"uuid":"m4"},"message":{"userMessageSource":"user"}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("made\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p := string(out[0].Entry.Payload); !strings.Contains(p, `"parent_session":"p"`) {
		t.Errorf("a subagent's anchor %s names no parent", p)
	}
}

// A transcript named by no UUID (a copy renamed by hand) is the session
// its session_start names; one named by a UUID is that one.
func TestSessionID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, want string }{
		{"/s/-w/7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c.jsonl", "7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c"},
		{"/s/-w/backup.jsonl", "0d6a5c1e-8f7e-4d6c-b5a4-3e2d1c0b9a87"},
		{"/s/-w/7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c.settings.json", "7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c"},
		{"/s/-w/backup.settings.json", "backup"},
	} {
		line := start("0d6a5c1e-8f7e-4d6c-b5a4-3e2d1c0b9a87", `"title":"t"`)
		if strings.HasSuffix(tc.path, settingsSuffix) {
			line = `{"model":"m"}`
		}
		if out := convert(t, tc.path, line); out[0].Session.ID != tc.want || out[0].Entry.ID != tc.want {
			t.Errorf("%s: session %q, anchor %q; want %q", tc.path, out[0].Session.ID, out[0].Entry.ID, tc.want)
		}
	}
}

// Where Droid keeps its sessions, and which files are read there.
func TestDefaultDirsAndTranscripts(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := (Source{}).DefaultDirs(getenv, "/home/u"); !slices.Equal(got, []string{filepath.Join("/home/u", ".factory", "sessions")}) {
		t.Errorf("default %v", got)
	}
	env["DROID_SESSIONS_DIR"] = " /a , ,/b"
	if got := (Source{}).DefaultDirs(getenv, "/home/u"); !slices.Equal(got, []string{"/a", "/b"}) {
		t.Errorf("DROID_SESSIONS_DIR %v", got)
	}
	for path, want := range map[string]bool{
		"/s/-w/x.jsonl": true, "/s/x.jsonl": true, "/s/-w/x.settings.json": true, "/s/a/b/c.settings.json": true,
		"/s/-w/x.json": false, "/s/-w/x.SETTINGS.JSON": false, "/s/sessions-index.json": false, "/s/-w/x.jsonl.bak": false,
	} {
		if got := (Source{}).IsTranscript(path); got != want {
			t.Errorf("IsTranscript(%s) = %v", path, got)
		}
	}
}
