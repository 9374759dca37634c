package copilot

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden sessions (the legacy document read as lines too) and
// lines of odd shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		ev("session.shutdown", `{"modelMetrics":{"m":{"usage":{"inputTokens":9,"cacheReadTokens":4}}}}`)+"\n"+
			ev("session.shutdown", `{"modelMetrics":{"m":{"usage":{"inputTokens":12}},"m-1m":{"usage":{"outputTokens":-1}}}}`)+"\n",
		`{"type":"x","data":{"a`+ev("tool.execution_start", `{"toolCallId":"c","toolName":"t"}`)+"\n"+`{"type":7}`+"\n",
		ev("assistant.reasoning", `{"content":"same"}`)+"\n"+ev("assistant.message", `{"content":"","reasoningText":"same"}`)+"\n")
}

// ev is an events.jsonl line of an event of type typ whose data is data.
func ev(typ, data string) string {
	return `{"type":"` + typ + `","data":` + data + `,"id":"e-` + typ + `","timestamp":"2026-08-05T09:00:00.000Z","parentId":null}`
}

// evAt is ev with another id and timestamp.
func evAt(typ, data, id, date string) string {
	return `{"type":"` + typ + `","data":` + data + `,"id":"` + id + `","timestamp":"` + date + `"}`
}

// Events of other shapes than the mapping reads keep their text: what it
// cannot read is an event of the whole data (or the whole line), never an
// empty entry; and the mapping's choices on shapes it reads.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"content a number", []string{ev("user.message", `{"content":7}`)},
			[]string{`event {"data":{"content":7},"name":"copilot/user.message"}`}},
		{"a prompt, its attachments and what the model was sent", []string{ev("user.message", `{"content":"fix it","transformedContent":"<date/> fix it","attachments":[{"type":"file","path":"/a"}],"source":"skill-pdf"}`)},
			[]string{`message {"role":"user","content":"fix it","attachments":[{"type":"file","path":"/a"}],"transformed_content":"<date/> fix it"}`}},
		{"transformedContent the content", []string{ev("user.message", `{"content":"fix it","transformedContent":"fix it","attachments":[]}`)},
			[]string{`message {"role":"user","content":"fix it"}`}},
		{"source a number", []string{ev("user.message", `{"content":"fix it","source":1}`)},
			[]string{`event {"data":{"content":"fix it","source":1},"name":"copilot/user.message"}`}},
		{"reply content an object", []string{ev("assistant.message", `{"content":{"text":"hi"}}`)},
			[]string{`event {"data":{"content":{"text":"hi"}},"name":"copilot/assistant.message"}`}},
		{"toolRequests a string", []string{ev("assistant.message", `{"content":"x","toolRequests":"view"}`)},
			[]string{`event {"data":{"content":"x","toolRequests":"view"},"name":"copilot/assistant.message"}`}},
		{"a request's name a number", []string{ev("assistant.message", `{"content":"","toolRequests":[{"toolCallId":"c","name":5}]}`)},
			[]string{`event {"data":{"content":"","toolRequests":[{"toolCallId":"c","name":5}]},"name":"copilot/assistant.message"}`}},
		{"thinking alone", []string{ev("assistant.message", `{"content":"","reasoningText":"hmm"}`)},
			[]string{`event {"name":"thinking","data":{"thinking":"hmm"}}`}},
		{"nothing said", []string{ev("assistant.message", `{"content":"","toolRequests":[]}`)}, nil},
		{"a custom tool, arguments as text", []string{ev("assistant.message", `{"content":"","toolRequests":[{"toolCallId":"c","name":"apply_patch","arguments":"*** Begin Patch","type":"custom","toolTitle":"Patch","mcpServerName":"s"}]}`)},
			[]string{`tool_call {"calls":[{"id":"c","type":"custom","custom":{"name":"apply_patch","input":"*** Begin Patch"},"title":"Patch","mcp_server":"s"}]}`}},
		{"a thought said twice", []string{ev("assistant.reasoning", `{"reasoningId":"r","content":"think"}`), ev("assistant.message", `{"content":"done","reasoningText":"think"}`)}, []string{
			`event {"name":"thinking","data":{"thinking":"think"}}`,
			`message {"role":"assistant","content":"done"}`}},
		{"a start that repeats its request, one that does not, one nothing asked for", []string{
			ev("assistant.message", `{"content":"","toolRequests":[{"toolCallId":"a","name":"view","arguments":{"path":"x"}},{"toolCallId":"b","name":"view","arguments":{"path":"y"}}]}`),
			ev("tool.execution_start", `{"toolCallId":"a","toolName":"view","arguments":{"path":"x"},"turnId":"0"}`),
			ev("tool.execution_start", `{"toolCallId":"b","toolName":"view","arguments":{"path":"z"}}`),
			ev("tool.execution_start", `{"toolCallId":"c","toolName":"bash","arguments":{"command":"ls"}}`),
		}, []string{
			`tool_call {"calls":[{"id":"a","type":"function","function":{"name":"view","arguments":"{\"path\":\"x\"}"}},{"id":"b","type":"function","function":{"name":"view","arguments":"{\"path\":\"y\"}"}}]}`,
			`event {"data":{"toolCallId":"b","toolName":"view","arguments":{"path":"z"}},"name":"copilot/tool.execution_start"}`,
			`tool_call {"calls":[{"id":"c","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]}`}},
		{"a result that is a string", []string{ev("tool.execution_complete", `{"toolCallId":"c","success":true,"result":"done"}`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c","content":"done"}]}`}},
		{"a result without a string content", []string{ev("tool.execution_complete", `{"toolCallId":"c","success":true,"result":{"contents":[{"type":"text","text":"t"}]}}`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c","content":{"contents":[{"type":"text","text":"t"}]}}]}`}},
		{"an error without success", []string{ev("tool.execution_complete", `{"toolCallId":"c","error":{"message":"denied"}}`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c","is_error":true,"error":{"message":"denied"}}]}`}},
		{"success a string", []string{ev("tool.execution_complete", `{"toolCallId":"c","success":"false"}`)},
			[]string{`event {"data":{"toolCallId":"c","success":"false"},"name":"copilot/tool.execution_complete"}`}},
		{"a failed compaction", []string{ev("session.compaction_complete", `{"success":false,"error":"too long"}`)},
			[]string{`event {"data":{"success":false,"error":"too long"},"name":"copilot/session.compaction_complete"}`}},
		{"an error without a type", []string{ev("session.error", `{"message":"boom"}`)},
			[]string{`error {"kind":"session","message":"boom","data":{"message":"boom"}}`}},
		{"a title", []string{ev("session.title_changed", `{"title":"Fix the flaky test"}`)},
			[]string{`event {"name":"title","data":{"title":"Fix the flaky test","from":"session.title_changed"}}`}},
		{"data a string", []string{ev("session.info", `"words"`)},
			[]string{`event {"data":"words","name":"copilot/session.info"}`}},
		{"data null", []string{ev("session.idle", `null`)},
			[]string{`event {"data":null,"name":"copilot/session.idle"}`}},
		{"an id that is a number", []string{`{"type":"user.message","data":{"content":"hi"},"id":7}`},
			[]string{`event {"data":{"type":"user.message","data":{"content":"hi"},"id":7},"name":"copilot/record"}`}},
		{"no type", []string{`{"data":{"content":"hi"}}`},
			[]string{`event {"data":{"data":{"content":"hi"}},"name":"copilot/record"}`}},
		{"parentToolCallId a number", []string{ev("assistant.message", `{"content":"hi","parentToolCallId":3}`)},
			[]string{`event {"data":{"content":"hi","parentToolCallId":3},"name":"copilot/assistant.message"}`}},
		{"a second session.start", []string{ev("session.start", `{"sessionId":"a"}`), ev("session.start", `{"sessionId":"b"}`)},
			[]string{`event {"data":{"sessionId":"b"},"name":"copilot/session.start"}`}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}

// A session's shutdowns are read as ccusage 20.0.24 reads them: each
// model's usage so far (input without what the cache read or wrote), a
// run of what it added to the shutdown before, per model; a count that
// went back adds nothing; a shutdown without a timestamp of its own counts
// nothing and is no baseline; Copilot's long-context names are the model's.
func TestShutdownUsage(t *testing.T) {
	t.Parallel()
	usage := func(in, out, cr, cw int) string {
		return `{"usage":{"inputTokens":` + strconv.Itoa(in) + `,"outputTokens":` + strconv.Itoa(out) + `,"cacheReadTokens":` + strconv.Itoa(cr) + `,"cacheWriteTokens":` + strconv.Itoa(cw) + `}}`
	}
	lines := []string{
		evAt("session.shutdown", `{"modelMetrics":{"m":`+usage(100, 10, 20, 30)+`,"z-1m":`+usage(5, 1, 0, 0)+`}}`, "s1", "2026-05-01T10:00:00Z"),
		`{"type":"session.shutdown","data":{"modelMetrics":{"m":` + usage(900, 90, 20, 30) + `}},"id":"s2"}`,
		evAt("session.shutdown", `{"modelMetrics":{"m":`+usage(150, 8, 20, 30)+`,"z":`+usage(5, 1, 0, 0)+`,"empty":`+usage(0, 0, 0, 0)+`}}`, "s3", "2026-05-02T10:00:00Z"),
	}
	got, errs := sourcetest.ConvertLines(t, Source{}, lines...)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var runs []string
	for _, e := range got {
		if strings.Contains(e, `"name":"run"`) {
			runs = append(runs, e)
		}
	}
	id := "copilot:019a2d7a-41c4-78b1-b7cc-a45d62a89cd5:"
	want := []string{
		`event {"name":"run","data":{"status":"ok","model":"m","usage":{"input_tokens":50,"output_tokens":10,"cache_creation_input_tokens":30,"cache_read_input_tokens":20,"reasoning_output_tokens":0},"usage_id":"` + id + `s1:m"}}`,
		`event {"name":"run","data":{"status":"ok","model":"z","usage":{"input_tokens":5,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"reasoning_output_tokens":0},"usage_id":"` + id + `s1:z"}}`,
		`event {"name":"run","data":{"status":"ok","model":"m","usage":{"input_tokens":50,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"reasoning_output_tokens":0},"usage_id":"` + id + `s3:m"}}`,
	}
	if strings.Join(runs, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs\n%s\nwant\n%s", strings.Join(runs, "\n"), strings.Join(want, "\n"))
	}
}

// A line that holds a torn event and then the whole one (github/copilot-cli
// issue 4098) makes the whole one's entries, with a warning; a line that
// is torn and nothing more is a bad line.
func TestTornEventBeforeWholeOne(t *testing.T) {
	t.Parallel()
	whole := ev("user.message", `{"content":"run all the tests"}`)
	got, errs := sourcetest.ConvertLines(t, Source{}, `{"type":"user.message","data":{"content":"run all the te`+whole, `{"type":"user.message","data":{"content":"cut`)
	if len(got) != 1 || got[0] != `message {"role":"user","content":"run all the tests"}` {
		t.Errorf("made %q", got)
	}
	var w source.LineWarning
	if len(errs) != 2 || !errors.As(errs[0], &w) || !strings.Contains(errs[0].Error(), "56 bytes of a torn event") || errors.As(errs[1], &w) {
		t.Errorf("errors %v; want a warning of the torn bytes, then a bad line", errs)
	}
}

// docPath is where a legacy document is read from.
const docPath = "/h/.copilot/history-session-state/session_3c5a7e91-2b4d-4f60-8a1c-9e7d5b3f1a20_1759958416398.json"

// convertDoc converts lines of a legacy document as one import of a quiet
// file does, resuming from a checkpoint wherever nothing is held when
// resume is set, and returns the entries (kind, id, date, payload).
func convertDoc(t *testing.T, lines []string, resume bool) []string {
	t.Helper()
	conv, err := Source{}.NewConverter(docPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	var outs []source.Output
	for i, line := range lines {
		o, err := conv.Line(tapelog.RawLine{No: i + 1, Data: []byte(line)})
		var w source.LineWarning
		if err != nil && !errors.As(err, &w) {
			t.Fatalf("line %d: %v", i+1, err)
		}
		outs = append(outs, o...)
		if _, _, held := conv.Held(); resume && !held {
			state, err := conv.State()
			if err != nil {
				t.Fatal(err)
			}
			if conv, err = (Source{}).NewConverter(docPath, state); err != nil {
				t.Fatal(err)
			}
		}
	}
	outs = append(outs, conv.Flush()...)
	var got []string
	for _, o := range outs {
		sourcetest.CheckOutput(t, Source{}, o)
		got = append(got, o.Entry.Kind+" "+o.Entry.ID+" "+o.Entry.Date+" "+string(o.Entry.Payload))
	}
	return got
}

// A legacy document is held until the line that closes it, and read
// whole then: the same whether it is on one line or many, and whether a
// checkpoint falls between its lines or not; a document its quiet file
// never closes is kept as text.
func TestLegacyDocument(t *testing.T) {
	t.Parallel()
	doc := []string{`{`, `  "sessionId": "3c5a7e91-2b4d-4f60-8a1c-9e7d5b3f1a20",`, `  "startTime": "2025-10-08T21:10:16.398Z",`,
		`  "chatMessages": [`, `    {"role": "user", "content": "hi"},`,
		`    {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},`,
		`    {"role": "tool", "tool_call_id": "c1", "content": "a.go"},`, `    {"role": "system", "content": 5},`,
		`    "loose words"`, `  ],`, `  "timeline": [{"type": "user", "text": "hi", "timestamp": "2025-10-08T21:10:20.000Z"}],`,
		`  "selectedModel": "claude-sonnet-4.5"`, `}`}
	many, resumed := convertDoc(t, doc, false), convertDoc(t, doc, true)
	one := convertDoc(t, []string{strings.Join(doc, "")}, false)
	const id = "3c5a7e91-2b4d-4f60-8a1c-9e7d5b3f1a20"
	want := []string{
		`anchor ` + id + ` 2025-10-08T21:10:16.398Z {"name":"session/start","state":{"source":"copilot","session_id":"` + id + `","file":"` + docPath + `","history":{"selectedModel":"claude-sonnet-4.5","sessionId":"` + id + `","startTime":"2025-10-08T21:10:16.398Z"}}}`,
		`message ` + id + `/chat/0 2025-10-08T21:10:16.398000Z {"role":"user","content":"hi"}`,
		`message ` + id + `/chat/1 2025-10-08T21:10:16.398001Z {"role":"assistant","content":""}`,
		`tool_call ` + id + `/chat/1/2 2025-10-08T21:10:16.398001Z {"calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]}`,
		`tool_result ` + id + `/chat/2 2025-10-08T21:10:16.398002Z {"results":[{"tool_call_id":"c1","content":"a.go"}]}`,
		`event ` + id + `/chat/3 2025-10-08T21:10:16.398003Z {"data":{"role":"system","content":5},"name":"copilot/chat_message"}`,
		`event ` + id + `/chat/4 2025-10-08T21:10:16.398004Z {"data":"loose words","name":"copilot/chat_message"}`,
		`event ` + id + `/timeline/0 2025-10-08T21:10:20.000Z {"data":{"type":"user","text":"hi","timestamp":"2025-10-08T21:10:20.000Z"},"name":"copilot/timeline"}`,
	}
	for name, got := range map[string][]string{"many lines": many, "resumed": resumed, "one line": one} {
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	cut := convertDoc(t, doc[:4], false)
	if len(cut) != 2 || !strings.Contains(cut[1], `"name":"copilot/history"`) || !strings.Contains(cut[1], `\"startTime\": \"2025-10-08T21:10:16.398Z\",`) {
		t.Errorf("a document never closed made\n%s", strings.Join(cut, "\n"))
	}
}

// Where sessions live, and which files of those folders are sessions.
func TestDefaultDirsAndTranscripts(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{nil, "/h/.copilot/session-state /h/.copilot/history-session-state"},
		{map[string]string{"COPILOT_HOME": "/c"}, "/c/session-state /c/history-session-state"},
		{map[string]string{"XDG_STATE_HOME": "/s"}, "/h/.copilot/session-state /h/.copilot/history-session-state /s/.copilot/session-state /s/.copilot/history-session-state"},
	} {
		if got := strings.Join(Source{}.DefaultDirs(env(tc.vars), "/h"), " "); got != tc.want {
			t.Errorf("DefaultDirs with %v = %s, want %s", tc.vars, got, tc.want)
		}
	}
	for path, want := range map[string]bool{
		"/h/.copilot/session-state/0f3c9a12-5b7d-4e21-9c3a-7d5e1f2a4b6c/events.jsonl":               true,
		"/h/.copilot/session-state/7b1e4d20-6a3f-4c8e-9d2b-1f5a8c3e7d90.jsonl":                      true,
		"/h/.copilot/history-session-state/session_3c5a7e91_1759958416398.json":                     true,
		"/backup/0f3c9a12-5b7d-4e21-9c3a-7d5e1f2a4b6c/events.jsonl":                                 true,
		"/h/.copilot/session-state/0f3c9a12-5b7d-4e21-9c3a-7d5e1f2a4b6c/workspace.yaml":             false,
		"/h/.copilot/session-state/0f3c9a12-5b7d-4e21-9c3a-7d5e1f2a4b6c/files/events.jsonl":         false,
		"/h/.copilot/session-state/0f3c9a12-5b7d-4e21-9c3a-7d5e1f2a4b6c/checkpoints/001-fix.md":     false,
		"/h/.copilot/otel/copilot-otel.jsonl":                                                       false,
		"/h/.copilot/session-state/0f3c9a12-5b7d-4e21-9c3a-7d5e1f2a4b6c/rewind-snapshots/old.jsonl": false,
	} {
		if got := (Source{}).IsTranscript(path); got != want {
			t.Errorf("IsTranscript(%s) = %v, want %v", path, got, want)
		}
	}
}

// A number no float64 holds makes a bad line (nothing could read the
// entry that kept it); the same digits in a string, a small exponent, or
// a number that only underflows do not.
func TestHugeNumber(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("9", 400)
	for text, want := range map[string]bool{
		`{"a":1e700}`:                        true,
		`{"a":[1,-2.5E+309]}`:                true,
		`{"a":` + long + `}`:                 true,
		`{"a":"1e700","b":"` + long + `"}`:   false,
		`{"a\"":"x\"1e700","b":1e-700}`:      false,
		`{"a":1e30,"b":"2026-08-05","c":12}`: false,
		`{"t":"\\\\","n":1E999}`:             true,
	} {
		if got := hugeNumber([]byte(text)); got != want {
			t.Errorf("hugeNumber(%.40s) = %v, want %v", text, got, want)
		}
	}
	_, errs := sourcetest.ConvertLines(t, Source{}, ev("session.info", `{"n":1e700}`))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "too large") {
		t.Errorf("errors %v; want the line reported", errs)
	}
}

// TestTornLineTriesBounded: a line of nothing but {"type": is tried at
// its last wholeEventTries places, not at each: a whole event past them
// is not looked for, and the line is a bad line.
func TestTornLineTriesBounded(t *testing.T) {
	t.Parallel()
	whole := `{"type":"session.info","data":{},"id":"e","timestamp":"2026-08-05T00:00:00Z"}`
	near := `{"type":` + strings.Repeat(`{"type":`, wholeEventTries-2) + whole
	if at, ok := lastWholeEvent([]byte(near)); !ok || near[at:] != whole {
		t.Errorf("the whole event %d tries back: at %d, %v", wholeEventTries-1, at, ok)
	}
	// A whole event whose text holds more {"type": than the tries: found
	// by an unbounded search, not by this one.
	items := strings.TrimSuffix(strings.Repeat(`{"type":1},`, wholeEventTries), ",")
	far := `{"type":"torn` + `{"type":"session.info","data":{"a":[` + items + `]},"id":"e"}`
	if !json.Valid([]byte(far[len(`{"type":"torn`):])) {
		t.Fatal("the test's whole event is not JSON")
	}
	if _, ok := lastWholeEvent([]byte(far)); ok {
		t.Error("found a whole event past the tries it may make")
	}
}
