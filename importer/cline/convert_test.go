package cline

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// FuzzConverter: a checkpoint anywhere changes nothing, and every entry
// is one a tape takes, on the golden task files and on documents of odd
// shapes, whole, torn and pretty-printed. `go test ./importer/cline -fuzz
// FuzzConverter -fuzztime 60s`.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		`[{"ts":1768004321987,"type":"say","say":"task","text":"hi"},{"ts":1768004322000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":3,\"cost\":0}"}]`,
		`[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"<read_file>\n<path>a</path>\n</read_file>"}]}`,
		"{\n  \"model_usage\": [\n    {\"ts\": 1, \"model_id\": \"m\"}\n  ]\n}",
		"[\n{\"role\":\"user\",\"content\":\"a\"},\n{\"role\":", `[{"odd":"seed"}`+"\n"+`[1,2]`)
}

// A document of one line, the last of its file, is read when it is whole;
// one that ends before it is whole is held (Held names its line, State is
// the state before it) and read by the next import, or, once the file is
// quiet, what is whole of it (Flush); one that is not JSON is a bad line,
// its items before the fault imported.
func TestDocuments(t *testing.T) {
	const path = "/h/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1768004321987/ui_messages.json"
	whole := `[{"ts":1768004321987,"type":"say","say":"task","text":"修复"},{"ts":1768004322000,"type":"say","say":"error","text":"boom"}]`
	kinds := func(outs []source.Output) string {
		var k []string
		for _, o := range outs {
			k = append(k, o.Entry.Kind+":"+o.Entry.ID)
		}
		return strings.Join(k, " ")
	}
	newConv := func(state []byte) *converter {
		c, err := newConverter(path, state)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	c := newConv(nil)
	outs, err := c.LastLine(tapelog.RawLine{No: 1, Data: []byte(whole)})
	if err != nil || kinds(outs) != "anchor:1768004321987 event:1768004321987/title event:ui:1768004322000" {
		t.Fatalf("a whole document: %s, %v", kinds(outs), err)
	}
	if _, _, held := c.Held(); held {
		t.Error("a whole document is held")
	}

	c = newConv(nil)
	torn := whole[:len(whole)-30]
	if outs, err := c.LastLine(tapelog.RawLine{No: 1, Data: []byte(torn)}); err != nil || len(outs) != 0 {
		t.Fatalf("a torn document made %s, %v", kinds(outs), err)
	}
	line, offset, held := c.Held()
	state, _ := c.State()
	if !held || line != 0 || offset != 0 || !strings.Contains(string(state), `"started":false`) {
		t.Fatalf("a torn document: held %v at line %d, offset %d, state %s", held, line, offset, state)
	}
	if outs := c.Flush(); kinds(outs) != "anchor:1768004321987 event:1768004321987/title" {
		t.Errorf("a torn document flushed: %s", kinds(outs))
	}

	c = newConv(nil)
	bad := strings.Replace(whole, `"say":"error"`, `"say":error"`, 1)
	outs, err = c.LastLine(tapelog.RawLine{No: 1, Data: []byte(bad)})
	if err == nil || !strings.Contains(err.Error(), "not a JSON document") || kinds(outs) != "anchor:1768004321987 event:1768004321987/title" {
		t.Errorf("a document that is not JSON: %s, %v", kinds(outs), err)
	}

	// Pretty-printed, as Cline writes task_metadata.json: held from its
	// first line to its last, which has no newline.
	c = newConv(nil)
	pretty := strings.Split("[\n  {\n    \"ts\": 1768004321987,\n    \"type\": \"say\",\n    \"say\": \"info\"\n  }\n]", "\n")
	for i, l := range pretty[:len(pretty)-1] {
		if outs, err := c.Line(tapelog.RawLine{No: i + 1, Data: []byte(l)}); err != nil || len(outs) != 0 {
			t.Fatalf("line %d of a pretty document made %s, %v", i+1, kinds(outs), err)
		}
	}
	if line, _, held := c.Held(); !held || line != 0 {
		t.Errorf("a pretty document's lines: held %v from line %d", held, line+1)
	}
	outs, err = c.LastLine(tapelog.RawLine{No: len(pretty), Data: []byte(pretty[len(pretty)-1])})
	if err != nil || kinds(outs) != "anchor:1768004321987 event:ui:1768004321987" {
		t.Errorf("a pretty document: %s, %v", kinds(outs), err)
	}

	// A document written with a newline after it is read at that line.
	c = newConv(nil)
	if outs, err := c.Line(tapelog.RawLine{No: 1, Data: []byte(whole)}); err != nil || len(outs) != 3 {
		t.Errorf("a document with its newline: %s, %v", kinds(outs), err)
	}
}

// The tool calls the agents had a model write as XML in its text: the
// first of a message is found, with its parameters, and the text around
// it; what is not such a call is left as text.
func TestFindXMLCall(t *testing.T) {
	for _, tc := range []struct {
		text, before, name, after string
		params                    []param
	}{
		{"Reading.\n\n<read_file>\n<path>a.go</path>\n</read_file>", "Reading.\n\n", "read_file", "", []param{{"path", "a.go"}}},
		{"<execute_command>\n<command>ls</command>\n<requires_approval>false</requires_approval>\n</execute_command>\nthen more",
			"", "execute_command", "\nthen more", []param{{"command", "ls"}, {"requires_approval", "false"}}},
		{"<write_to_file><path>x.md</path><content>a </content> b</content></write_to_file>", "", "write_to_file", "",
			[]param{{"path", "x.md"}, {"content", "a </content> b"}}},
		{"<thinking>hmm</thinking><attempt_completion><result>done</result></attempt_completion>", "<thinking>hmm</thinking>",
			"attempt_completion", "", []param{{"result", "done"}}},
		{"<plan_mode_respond></plan_mode_respond>", "", "plan_mode_respond", "", nil},
		{"<read_file><path>a</path>", "", "", "", nil},                       // not closed
		{"<read_file>stray text<path>a</path></read_file>", "", "", "", nil}, // text among the parameters
		{"<not_a_tool><path>a</path></not_a_tool>", "", "", "", nil},         // no tool of the agents'
		{"a < b and <read_file> is how you read", "", "", "", nil},           // words about a tool
		{"<read_file><path>a</path></read_file><read_file><path>b</path></read_file>", "", "read_file", "<read_file><path>b</path></read_file>", []param{{"path", "a"}}},
	} {
		before, name, params, after, ok := findXMLCall(tc.text)
		if ok != (tc.name != "") || name != tc.name || before != tc.before || after != tc.after || !slices.Equal(params, tc.params) {
			t.Errorf("findXMLCall(%q) = %q, %q, %v, %q, %v", tc.text, before, name, params, after, ok)
		}
	}
}

// The tasks folders: the three extensions' in each editor's storage, and
// the Cline CLI's, which its variables move.
func TestDefaultDirs(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	dirs := Source{}.DefaultDirs(env(nil), "/h")
	for _, want := range []string{
		"/h/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks",
		"/h/.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
		"/h/.config/VSCodium/User/globalStorage/kilocode.kilo-code/tasks",
		"/h/.vscode-server/data/User/globalStorage/saoudrizwan.claude-dev/tasks",
		"/h/.cline/data/tasks",
	} {
		if !slices.Contains(dirs, filepath.FromSlash(want)) {
			t.Errorf("DefaultDirs lacks %s: %v", want, dirs)
		}
	}
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"CLINE_DATA_DIR": "/d"}, "/d/tasks"},
		{map[string]string{"CLINE_DIR": "/c"}, "/c/data/tasks"},
		{map[string]string{"XDG_CONFIG_HOME": "/x"}, "/x/Windsurf/User/globalStorage/saoudrizwan.claude-dev/tasks"},
		{map[string]string{"XDG_CONFIG_HOME": "rel"}, "/h/.config/Windsurf/User/globalStorage/saoudrizwan.claude-dev/tasks"},
	} {
		if dirs := (Source{}).DefaultDirs(env(tc.vars), "/h"); !slices.Contains(dirs, filepath.FromSlash(tc.want)) {
			t.Errorf("DefaultDirs with %v lacks %s: %v", tc.vars, tc.want, dirs)
		}
	}
}

// A task's files are transcripts, in a task folder of a tasks folder,
// read history_item.json first; the agent and editor are the path's; a
// task's tape takes the last digits of Cline's ids, the first of UUIDs.
func TestFilesAgentsAndTapeNames(t *testing.T) {
	const task = "/h/.config/Cursor/User/globalStorage/RooVeterinaryInc.roo-cline/tasks/7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5/"
	for name, want := range map[string]bool{
		"ui_messages.json": true, "api_conversation_history.json": true, "task_metadata.json": true, "history_item.json": true,
		"claude_messages.json": true, "context_history.json": false, "settings.json": false, "ui_messages.json.tmp.123": false,
		".ui_messages.json.new_1_x.tmp": false,
	} {
		if got := (Source{}).IsTranscript(task + name); got != want {
			t.Errorf("IsTranscript(%s) = %v", name, got)
		}
	}
	if (Source{}).IsTranscript("/h/ui_messages.json") {
		t.Error("a ui_messages.json in no task folder is a transcript")
	}
	var ranked []string
	for _, n := range []string{"ui_messages.json", "api_conversation_history.json", "history_item.json", "task_metadata.json"} {
		ranked = append(ranked, n)
	}
	slices.SortFunc(ranked, func(a, b string) int { return Source{}.FileRank(a) - Source{}.FileRank(b) })
	if want := []string{"history_item.json", "task_metadata.json", "api_conversation_history.json", "ui_messages.json"}; !slices.Equal(ranked, want) {
		t.Errorf("files by rank: %v, want %v", ranked, want)
	}
	for _, tc := range []struct{ path, agent, editor string }{
		{task + "ui_messages.json", "roo", "Cursor"},
		{"/h/.vscode-server/data/User/globalStorage/kilocode.kilo-code/tasks/x/ui_messages.json", "kilo", ".vscode-server"},
		{"/h/.cline/data/tasks/1768004321987/ui_messages.json", "cline", ""},
		{"/elsewhere/tasks/1/ui_messages.json", "", ""},
	} {
		if agent, editor := placeOf(tc.path); agent != tc.agent || editor != tc.editor {
			t.Errorf("placeOf(%s) = %q, %q", tc.path, agent, editor)
		}
	}
	for id, want := range map[string]string{"1768004321987": "cline-04321987", "7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5": "cline-7d2e4f60"} {
		if got := (Source{}).TapeName(source.Session{Source: "cline", ID: id}, false); got != want {
			t.Errorf("TapeName(%s) = %s, want %s", id, got, want)
		}
	}
}

// A request's counts: Cline's as written (tokensIn is the input not
// cached); Roo Code's and Kilo Code's, when tokensIn holds the cached
// tokens, less them.
func TestRequestCounts(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`{"tokensIn":4,"tokensOut":9,"cacheWrites":100,"cacheReads":2000,"cost":0.1}`, `{"input_tokens":4,"output_tokens":9,"cache_creation_input_tokens":100,"cache_read_input_tokens":2000}`},
		{`{"apiProtocol":"anthropic","tokensIn":2104,"tokensOut":9,"cacheWrites":100,"cacheReads":2000}`, `{"input_tokens":4,"output_tokens":9,"cache_creation_input_tokens":100,"cache_read_input_tokens":2000}`},
		{`{"apiProtocol":"anthropic","tokensIn":4,"tokensOut":9,"cacheWrites":100,"cacheReads":2000}`, `{"input_tokens":4,"output_tokens":9,"cache_creation_input_tokens":100,"cache_read_input_tokens":2000}`},
		{`{"apiProtocol":"openai","tokensIn":9000,"tokensOut":9,"cacheReads":8000}`, `{"input_tokens":1000,"output_tokens":9,"cache_creation_input_tokens":0,"cache_read_input_tokens":8000}`},
		{`{"tokensIn":1.5,"tokensOut":-3,"cost":0}`, `{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}`},
	} {
		doc, _ := json.Marshal([]any{map[string]any{"ts": 1768004321987, "type": "say", "say": "api_req_started", "text": tc.text}})
		got, errs := sourcetest.ConvertLines(t, Source{}, string(doc))
		if len(errs) > 0 || len(got) != 1 || !strings.Contains(got[0], `"usage":`+tc.want) {
			t.Errorf("%s made %v, %v; want usage %s", tc.text, got, errs, tc.want)
		}
	}
}

// TestOddShapesKeepTheirText: items of shapes the mapping does not read
// as it expects are kept, as events or as written, never dropped; a
// request that has not ended, and an echo, make nothing.
func TestOddShapesKeepTheirText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"a request that has not ended, an echo",
			[]string{`[{"ts":1768004321987,"type":"say","say":"api_req_started","text":"{\"request\":\"<task>hi</task>\"}"},{"ts":1768004321988,"type":"ask","ask":"followup","text":"{\"question\":\"which?\"}"}]`},
			nil},
		{"a request's count of another form, a modelInfo with more",
			[]string{`[{"ts":1768004321987,"type":"say","say":"api_req_started","text":"{\"tokensIn\":3,\"tokensOut\":\"many\",\"cost\":0.5,\"cancelReason\":\"streaming_failed\"}","modelInfo":{"modelId":"m","providerId":"p","mode":"plan","effort":"high"}}]`},
			[]string{`event {"name":"run","data":{"status":"error","model":"m","provider":"p","mode":"plan","usage":{"input_tokens":3,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"usage_id":"cline:x:ui:1768004321987","cost_usd":0.5,"cline":{"tokensOut":"many","cancelReason":"streaming_failed"},"message":{"modelInfo":{"modelId":"m","providerId":"p","mode":"plan","effort":"high"}}}}`}},
		{"a request's text that is not JSON",
			[]string{`[{"ts":1768004321987,"type":"say","say":"subagent_usage","text":"many tokens"}]`},
			[]string{`event {"data":{"text":"many tokens"},"name":"cline/say/subagent_usage"}`}},
		{"messages of the model's of other shapes",
			[]string{`[{"role":"user","content":7},{"role":"system","content":"be brief"},{"role":"assistant"}]`},
			[]string{`event {"data":{"role":"user","content":7},"name":"cline/api_message"}`, `event {"data":{"role":"system","content":"be brief"},"name":"cline/api_message"}`,
				`event {"data":{"role":"assistant"},"name":"cline/api_message"}`}},
		{"blocks of other shapes",
			[]string{`[{"role":"assistant","content":[{"type":"tool_use","id":"t1","input":{}},{"type":"text","text":"x","signature":"s"},"a bare string",{"type":"server_tool_use","id":"s1"},{"no":"type"}]}]`},
			[]string{`event {"data":{"type":"tool_use","id":"t1","input":{}},"name":"cline/block"}`, `event {"data":{"id":"s1"},"name":"cline/server_tool_use"}`,
				`event {"data":{"no":"type"},"name":"cline/block"}`,
				`message {"role":"assistant","content":[{"type":"text","text":"x","signature":"s"},{"type":"text","text":"a bare string"}]}`}},
		{"a result whose is_error is no boolean, an image by URL",
			[]string{`[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":"yes"},{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}]`},
			[]string{`message {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":"yes"},{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}`}},
		{"a call in XML not closed, a result of no call",
			[]string{`[{"role":"assistant","content":"<read_file>\n<path>a.go</path>\n"},{"role":"user","content":[{"type":"text","text":"[read_file for 'a.go'] Result:"},{"type":"text","text":"package a"}]}]`},
			[]string{`message {"role":"assistant","content":"<read_file>\n<path>a.go</path>\n"}`,
				`message {"role":"user","content":[{"type":"text","text":"[read_file for 'a.go'] Result:"},{"type":"text","text":"package a"}]}`}},
		{"a call in XML that the next message answers for another tool",
			[]string{`[{"role":"assistant","content":"Reading.\n<read_file>\n<path>a.go</path>\n</read_file>"},{"role":"user","content":[{"type":"text","text":"[write_to_file for 'b.go'] Result:"},{"type":"text","text":"done"}]}]`},
			[]string{`message {"role":"assistant","content":"Reading."}`,
				`tool_call {"calls":[{"id":"api:09c17888:call","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}}]}`,
				`message {"role":"user","content":[{"type":"text","text":"[write_to_file for 'b.go'] Result:"},{"type":"text","text":"done"}]}`}},
		{"a summary that is an image",
			[]string{`[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}],"isSummary":true,"condenseId":"c1"}]`},
			[]string{`anchor {"name":"compact","state":{"source":"cline","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}}`}},
		{"items that are no objects",
			[]string{`[1,"two",null]`},
			[]string{`event {"data":1,"name":"cline/item"}`, `event {"data":"two","name":"cline/item"}`, `event {"data":null,"name":"cline/item"}`}},
		{"task_metadata.json of other shapes",
			[]string{`{"files_in_context":"none","model_usage":[{"ts":1768004321987,"model_id":"m"}],"environment_history":[]}`},
			[]string{`event {"data":{"files_in_context":"none"},"name":"cline/task_metadata"}`, `event {"data":{"ts":1768004321987,"model_id":"m"},"name":"cline/model_usage"}`}},
		{"an object of no task file",
			[]string{`{"something":"else"}`},
			[]string{`event {"data":{"something":"else"},"name":"cline/document"}`}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}
