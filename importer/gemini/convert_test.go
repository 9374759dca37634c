package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden recordings, a document cut short, and lines of odd
// shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		`{"odd":"seed"}`+"\n",
		"{\n  \"sessionId\": \"s\",\n  \"messages\": [\n    {\n      \"id\": \"m\",\n      \"type\": \"user\",\n      \"content\": \"hi\"\n    },\n    {\n      \"id\": \"n\",\n",
		`{"id":"g","type":"gemini","content":"a","tokens":{"input":5},"model":"m"}`+"\n"+`{"id":"g","type":"gemini","content":"a","tokens":{"input":5},"model":"m","toolCalls":[{"id":"c","name":"ls","args":{},"status":"success","result":[]}]}`+"\n"+`{"$rewindTo":"g"}`+"\n"+`{"$set":{"messages":[{"id":"g","type":"gemini","content":"a"}]}}`+"\n")
}

// shapeCase is a table case: lines, and the kind and payload of each
// entry they make.
type shapeCase struct {
	name  string
	lines []string
	want  []string
}

// A record of another shape than the mapping reads keeps its text: what
// it cannot read is an event of the whole record or of the member,
// never an empty entry.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	msg := func(members string) string {
		return `{"id":"m1","timestamp":"2026-05-10T14:20:05.000Z",` + members + `}`
	}
	for _, tc := range []shapeCase{
		{"content a string", []string{msg(`"type":"user","content":"fix the build"`)},
			[]string{`message {"content":"fix the build","role":"user"}`}},
		{"text parts join", []string{msg(`"type":"user","content":[{"text":"a"},"b",{"text":"c"}]`)},
			[]string{`message {"content":"abc","role":"user"}`}},
		{"an image part", []string{msg(`"type":"user","content":[{"text":"see"},{"inlineData":{"mimeType":"image/png","data":"AA=="}}]`)},
			[]string{`message {"content":[{"text":"see","type":"text"},{"image_url":{"url":"data:image/png;base64,AA=="},"type":"image_url"}],"role":"user"}`}},
		{"a part not read, as written", []string{msg(`"type":"user","content":[{"fileData":{"fileUri":"gs://b/x.pdf"}},{"text":"this"}]`)},
			[]string{`message {"content":[{"fileData":{"fileUri":"gs://b/x.pdf"}},{"text":"this","type":"text"}],"role":"user"}`}},
		{"a text part with another member", []string{msg(`"type":"user","content":[{"text":"a","videoMetadata":{}}]`)},
			[]string{`message {"content":[{"text":"a","videoMetadata":{}}],"role":"user"}`}},
		{"content a number", []string{msg(`"type":"user","content":7`)},
			[]string{`event {"data":{"id":"m1","timestamp":"2026-05-10T14:20:05.000Z","type":"user","content":7},"name":"gemini/user"}`}},
		{"content a list of numbers", []string{msg(`"type":"user","content":[1,2]`)},
			[]string{`event {"data":{"id":"m1","timestamp":"2026-05-10T14:20:05.000Z","type":"user","content":[1,2]},"name":"gemini/user"}`}},
		{"no content", []string{msg(`"type":"user"`)},
			[]string{`event {"data":{"id":"m1","timestamp":"2026-05-10T14:20:05.000Z","type":"user"},"name":"gemini/user"}`}},
		{"displayContent that differs", []string{msg(`"type":"user","content":[{"text":"x\n--- Content from referenced files ---"}],"displayContent":[{"text":"x @a.go"}]`)},
			[]string{`message {"content":"x\n--- Content from referenced files ---","display_content":"x @a.go","role":"user"}`}},
		{"displayContent the same", []string{msg(`"type":"user","content":"x","displayContent":[{"text":"x"}]`)},
			[]string{`message {"content":"x","role":"user"}`}},
		{"tool results that answer no call before", []string{msg(`"type":"user","content":[{"functionResponse":{"id":"c9","name":"ls","response":{"output":"a.go"}}}]`)},
			[]string{`tool_result {"results":[{"content":{"output":"a.go"},"name":"ls","tool_call_id":"c9"}]}`}},
		{"gemini content a string", []string{msg(`"type":"gemini","content":"done"`)},
			[]string{`message {"content":"done","role":"assistant"}`}},
		{"gemini content empty", []string{msg(`"type":"gemini","content":""`)}, nil},
		{"gemini content an object", []string{msg(`"type":"gemini","content":{"text":"hi","thought":true}`)},
			[]string{`event {"data":{"thinking":"hi"},"name":"thinking"}`}},
		{"gemini content a number", []string{msg(`"type":"gemini","content":false`)},
			[]string{`event {"data":{"content":false},"name":"gemini/content"}`}},
		{"thought parts and a function call", []string{msg(`"type":"gemini","content":[{"text":"plan","thought":true,"thoughtSignature":"c2ln"},{"text":"ok"},{"functionCall":{"id":"c1","name":"ls","args":{}}}]`)},
			[]string{`event {"data":{"signature":"c2ln","thinking":"plan"},"name":"thinking"}`,
				`message {"content":[{"text":"ok","type":"text"},{"functionCall":{"id":"c1","name":"ls","args":{}}}],"role":"assistant"}`}},
		{"thoughts a string", []string{msg(`"type":"gemini","content":"","thoughts":"hmm"`)},
			[]string{`event {"data":"hmm","name":"gemini/thoughts"}`}},
		{"a thought of another shape", []string{msg(`"type":"gemini","content":"","thoughts":["hmm"]`)},
			[]string{`event {"data":"hmm","name":"thinking"}`}},
		{"toolCalls an object", []string{msg(`"type":"gemini","content":"","toolCalls":{"id":"c"}`)},
			[]string{`event {"data":{"id":"c"},"name":"gemini/toolCalls"}`}},
		{"a call without a name", []string{msg(`"type":"gemini","content":"","toolCalls":[{"id":"c","args":{}}]`)},
			[]string{`event {"data":{"id":"c","args":{}},"name":"gemini/toolCall"}`}},
		{"a call with a status not a string", []string{msg(`"type":"gemini","content":"","toolCalls":[{"id":"c","name":"ls","status":3}]`)},
			[]string{`event {"data":{"id":"c","name":"ls","status":3},"name":"gemini/toolCall"}`}},
		{"a call still running", []string{msg(`"type":"gemini","content":"","toolCalls":[{"id":"c","name":"ls","args":{"dir":"."},"status":"executing"}]`)},
			[]string{`tool_call {"calls":[{"function":{"arguments":"{\"dir\":\".\"}","name":"ls"},"id":"c","type":"function"}]}`}},
		{"a result of several parts", []string{msg(`"type":"gemini","content":"","toolCalls":[{"id":"c","name":"read","args":{},"status":"success","result":[{"functionResponse":{"id":"c","name":"read","response":{"output":"img"}}},{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}]`)},
			[]string{`tool_call {"calls":[{"function":{"arguments":"{}","name":"read"},"id":"c","type":"function"}]}`,
				`tool_result {"results":[{"content":[{"functionResponse":{"id":"c","name":"read","response":{"output":"img"}}},{"inlineData":{"mimeType":"image/png","data":"AA=="}}],"tool_call_id":"c"}]}`}},
		{"tokens without a model", []string{msg(`"type":"gemini","content":"","tokens":{"input":5,"output":1}`)},
			[]string{`event {"data":{"model":null,"tokens":{"input":5,"output":1}},"name":"gemini/tokens"}`}},
		{"tokens of odd counts", []string{msg(`"type":"gemini","content":"","model":"m","tokens":{"input":"5","output":2.5,"cached":-1,"extra":1}`)},
			[]string{`event {"data":{"model":"m","status":"ok","usage":{"cache_read_input_tokens":0,"input_tokens":0,"output_tokens":2,"total_tokens":2},"usage_id":"gemini:af90c2:m1"},"name":"run"}`,
				`event {"data":{"input":"5","output":2.5,"cached":-1,"extra":1},"name":"gemini/tokens"}`}},
		{"cached more than the prompt", []string{msg(`"type":"gemini","content":"","model":"m","tokens":{"input":10,"tool":3,"cached":30,"output":1,"total":13}`)},
			[]string{`event {"data":{"model":"m","status":"ok","usage":{"cache_read_input_tokens":30,"input_tokens":13,"output_tokens":1,"total_tokens":44},"usage_id":"gemini:af90c2:m1"},"name":"run"}`}},
		{"the model of the record before", []string{`{"model":"gemini-2.5-pro"}`, msg(`"type":"gemini","content":"","tokens":{"input":10,"output":1}`)},
			[]string{`event {"data":{"model":"gemini-2.5-pro"},"name":"gemini/record"}`,
				`event {"data":{"model":"gemini-2.5-pro","status":"ok","usage":{"cache_read_input_tokens":0,"input_tokens":10,"output_tokens":1,"total_tokens":11},"usage_id":"gemini:af90c2:m1"},"name":"run"}`}},
		{"an error", []string{msg(`"type":"error","content":"[API Error: quota]"`)},
			[]string{`error {"kind":"gemini","message":"[API Error: quota]"}`}},
		{"an error of parts not text", []string{msg(`"type":"error","content":[{"inlineData":{}}]`)},
			[]string{`event {"data":{"id":"m1","timestamp":"2026-05-10T14:20:05.000Z","type":"error","content":[{"inlineData":{}}]},"name":"gemini/error"}`}},
		{"a type not mapped", []string{msg(`"type":"compression","content":"x"`)},
			[]string{`event {"data":{"id":"m1","timestamp":"2026-05-10T14:20:05.000Z","type":"compression","content":"x"},"name":"gemini/compression"}`}},
		{"an id not a string", []string{`{"id":5,"type":"user","content":"x"}`},
			[]string{`event {"data":{"id":5,"type":"user","content":"x"},"name":"gemini/record"}`}},
		{"no id, a type", []string{`{"type":"user","content":"x"}`},
			[]string{`message {"content":"x","role":"user"}`}},
		{"a record of no known shape", []string{`{"$checkpoint":{"tag":"t"}}`},
			[]string{`event {"data":{"$checkpoint":{"tag":"t"}},"name":"gemini/record"}`}},
		{"$rewindTo not a string", []string{`{"$rewindTo":7}`},
			[]string{`event {"data":{"$rewindTo":7},"name":"gemini/record"}`}},
		{"$set of what the mapping does not read", []string{`{"$set":{"lastUpdated":"2026-05-10T14:20:05.000Z","memoryScratchpad":{"version":1},"sessionId":"other"}}`},
			[]string{`event {"data":{"memoryScratchpad":{"version":1},"sessionId":"other"},"name":"gemini/set"}`}},
		{"$set messages not a list", []string{`{"$set":{"messages":"none"}}`},
			[]string{`event {"data":{"messages":"none"},"name":"gemini/set"}`}},
		{"a header's members not read", []string{`{"sessionId":"s","projectHash":5,"directories":"/a","memoryScratchpad":{"version":1},"startTime":"soon"}`},
			[]string{`event {"data":{"projectHash":5,"directories":"/a","memoryScratchpad":{"version":1},"startTime":"soon"},"name":"gemini/session"}`}},
		{"a second header", []string{`{"sessionId":"s","projectHash":"p"}`, `{"sessionId":"t","projectHash":"q","kind":"main"}`},
			[]string{`event {"data":{"sessionId":"t","projectHash":"q","kind":"main"},"name":"gemini/session"}`}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}

// A line that is not a JSON object is a bad line that says why; the
// lines after it are read.
func TestBadLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, reason string }{
		{`{"id":"m","type":"user","content":"hal`, "not a JSON record: unexpected end of JSON input"},
		{`[1,2]`, "not a JSON object"},
		{`"words"`, "not a JSON object"},
		{`}`, "not a JSON record"}, // no document before it
	} {
		_, errs := sourcetest.ConvertLines(t, Source{}, tc.line)
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.reason) {
			t.Errorf("%s: errors %v; want one that says %q", tc.line, errs, tc.reason)
		}
	}
}

// convert converts lines as ConvertAll does (each line its number and
// offset), and returns the outputs and the lines' errors.
func convert(t *testing.T, path string, state []byte, lines ...string) (*converter, []source.Output, []error) {
	t.Helper()
	c, err := newConverter(path, state)
	if err != nil {
		t.Fatal(err)
	}
	var outs []source.Output
	var errs []error
	offset := int64(0)
	for i, line := range lines {
		o, err := c.Line(tapelog.RawLine{No: i + 1, Offset: offset, Data: []byte(line)})
		outs = append(outs, o...)
		if err != nil {
			errs = append(errs, err)
		}
		offset += int64(len(line)) + 1
	}
	return c, outs, errs
}

// ids are the outputs' entry ids, an anchor's marked "^", a Replay
// "~".
func ids(outs []source.Output) string {
	var b []string
	for _, o := range outs {
		id := o.Entry.ID
		if o.Anchor {
			id = "^" + id
		}
		if o.Replay {
			id = "~" + id
		}
		b = append(b, id)
	}
	return strings.Join(b, " ")
}

// pretty is a document as Gemini CLI 0.38 wrote it: pretty-printed with
// two spaces, without a newline after its closing brace.
func pretty(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

// A document is held from its "{" until its last member, and mapped then,
// its entries' ids its messages' ids; its closing brace, should its
// newline come, makes nothing.
func TestDocumentIsHeldUntilItsLastMember(t *testing.T) {
	t.Parallel()
	doc := map[string]any{"sessionId": "s1", "messages": []any{
		map[string]any{"id": "u1", "timestamp": "2026-03-02T09:15:10Z", "type": "user", "content": "hi"},
		map[string]any{"id": "g1", "timestamp": "2026-03-02T09:15:12Z", "type": "gemini", "content": "hello", "model": "m", "tokens": map[string]any{"input": 3}},
	}, "summary": "greetings"}
	lines := pretty(t, doc)
	path := "/h/.gemini/tmp/p/chats/session-2026-03-02T09-15-s1.json"
	c, outs, errs := convert(t, path, nil, lines[:len(lines)-2]...)
	if len(outs) != 0 || len(errs) != 0 {
		t.Fatalf("before its last member: %s, %v", ids(outs), errs)
	}
	if line, offset, held := c.Held(); !held || line != 0 || offset != 0 {
		t.Fatalf("Held() = %d, %d, %v; want the document held from its first line", line, offset, held)
	}
	c, outs, errs = convert(t, path, nil, append(lines, "{\"id\":\"u2\",\"type\":\"user\",\"content\":\"next\"}")...)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if got, want := ids(outs), "^s1 "+hashID("s1/title", []byte(`"greetings"`))+" u1 g1 g1/usage/"+c.tag+" u2"; got != want {
		t.Fatalf("ids %s\nwant %s", got, want)
	}
	if line := source.LineOf(outs[3].Entry); line != 9 {
		t.Errorf("the gemini message is on line %d of its meta; want 9, where it starts", line)
	}
}

// A document cut short (Gemini CLI stopped mid-write) is held; once the
// file is quiet, Flush makes what is whole of it.
func TestDocumentCutShortIsFlushed(t *testing.T) {
	t.Parallel()
	lines := []string{"{", `  "sessionId": "s1",`, `  "messages": [`, "    {", `      "id": "u1",`, `      "type": "user",`, `      "content": "hi"`, "    },", "    {", `      "id": "g1",`}
	c, outs, errs := convert(t, "/x/chats/session-s1.json", nil, lines...)
	if len(outs) != 0 || len(errs) != 0 {
		t.Fatalf("%s, %v", ids(outs), errs)
	}
	if got := ids(c.Flush()); got != "^s1 u1" {
		t.Fatalf("Flush made %s; want the anchor and the whole message", got)
	}
	if _, _, held := c.Held(); held {
		t.Fatal("still held after Flush")
	}
}

// A document that is no JSON makes what decoded before the fault, and a
// bad line that names where it is.
func TestBrokenDocumentIsABadLine(t *testing.T) {
	t.Parallel()
	lines := []string{"{", `  "sessionId": "s1",`, `  "messages": [`, "    {", `      "id": "u1",`, `      "type": "user",`, `      "content": "hi"`, "    },", `    {"id": oops}`, "  ]"}
	_, outs, errs := convert(t, "/x/chats/session-s1.json", nil, lines...)
	if ids(outs) != "^s1 u1" || len(errs) != 1 || !strings.Contains(errs[0].Error(), "the one from line 1") || !strings.Contains(errs[0].Error(), "on line 9") {
		t.Fatalf("%s, %v; want the anchor, u1, and a bad line that names line 9", ids(outs), errs)
	}
}

// A message Gemini CLI writes again as it grows makes only what is new;
// an older message written again, and a $set's history, are marked
// Replay, for the driver to skip what the tape holds; a $set before any
// message is the history the session starts with: no anchor, and its
// messages synthetic.
func TestMessagesWrittenAgain(t *testing.T) {
	t.Parallel()
	g := `{"id":"g1","timestamp":"2026-05-10T14:20:11Z","type":"gemini","content":"looking","model":"m"`
	lines := []string{
		`{"sessionId":"s1","projectHash":"p"}`,
		`{"$set":{"messages":[{"id":"e1","type":"user","content":"setup"}]}}`,
		`{"id":"u1","timestamp":"2026-05-10T14:20:05Z","type":"user","content":"go"}`,
		g + `}`,
		g + `,"tokens":{"input":5}}`,
		g + `,"tokens":{"input":5},"toolCalls":[{"id":"c1","name":"ls","args":{},"status":"executing"}]}`,
		g + `,"tokens":{"input":5},"toolCalls":[{"id":"c1","name":"ls","args":{},"status":"success","result":[{"functionResponse":{"id":"c1","name":"ls","response":{"output":"a"}}}]}]}`,
		`{"id":"r1","type":"user","content":[{"functionResponse":{"id":"c1","name":"ls","response":{"output":"a"}}}]}`,
		`{"id":"u1","timestamp":"2026-05-10T14:20:05Z","type":"user","content":"go"}`,
		`{"$set":{"messages":[{"id":"u1","type":"user","content":"go"},{"id":"s9","type":"user","content":"summary"}]}}`,
		`{"$rewindTo":"u1"}`,
	}
	c, outs, errs := convert(t, "/x/chats/session-s1.jsonl", nil, lines...)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	tag := c.tag
	want := fmt.Sprintf("^s1 ~e1 u1 g1 g1/usage/%s g1/call/c1 g1/result/c1 ~u1 ^%s:10 ~s9 ^%s:11", tag, tag, tag)
	if got := ids(outs); got != want {
		t.Fatalf("ids %s\nwant %s", got, want)
	}
	var meta struct {
		Synthetic bool `json:"synthetic"`
	}
	if json.Unmarshal(outs[1].Entry.Meta, &meta); !meta.Synthetic {
		t.Errorf("the history the session starts with is not synthetic: %s", outs[1].Entry.Meta)
	}
	// Resumed from a state saved anywhere, the same.
	for cut := 1; cut < len(lines); cut++ {
		c, first, _ := convert(t, "/x/chats/session-s1.jsonl", nil, lines[:cut]...)
		state, err := c.State()
		if err != nil {
			t.Fatal(err)
		}
		c2, err := newConverter("/x/chats/session-s1.jsonl", state)
		if err != nil {
			t.Fatal(err)
		}
		rest := first
		for i, line := range lines[cut:] {
			o, err := c2.Line(tapelog.RawLine{No: cut + i + 1, Data: []byte(line)})
			if err != nil {
				t.Fatal(err)
			}
			rest = append(rest, o...)
		}
		if got := ids(rest); got != want {
			t.Fatalf("resumed after line %d: ids %s\nwant %s", cut, got, want)
		}
	}
}

// A date that is no date is a warning, not a bad line: the record takes
// the date before it.
func TestDateThatIsNoDateIsAWarning(t *testing.T) {
	t.Parallel()
	_, outs, errs := convert(t, "/x/chats/session-s1.jsonl", nil,
		`{"id":"u1","timestamp":"2026-05-10T14:20:05Z","type":"user","content":"go"}`,
		`{"id":"u2","timestamp":"yesterday","type":"user","content":"again"}`)
	var w source.LineWarning
	if len(errs) != 1 || !errors.As(errs[0], &w) || outs[len(outs)-1].Entry.Date != "2026-05-10T14:20:05Z" {
		t.Fatalf("errors %v, date %q; want a warning and the date before", errs, outs[len(outs)-1].Entry.Date)
	}
}

// The files under ~/.gemini/tmp that are recordings, and the sessions
// their places say.
func TestRecordingsAndTheirSessions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path      string
		recording bool
		session   source.Session
	}{
		{"/h/.gemini/tmp/p/chats/session-2026-05-10T14-20-c3d5e7f9.jsonl", true, source.Session{Source: "gemini", ID: "c3d5e7f9"}},
		{"/h/.gemini/tmp/p/chats/session-2026-03-02T09-15-a1f0c9d2.json", true, source.Session{Source: "gemini", ID: "a1f0c9d2"}},
		{"/h/.gemini/tmp/p/chats/d4e6f8a0-2b3c/e5f7a9b1-3c4d.jsonl", true, source.Session{Source: "gemini", ID: "d4e6f8a0-2b3c", Agent: "e5f7a9b1-3c4d"}},
		{"/h/.gemini/tmp/p/logs.json", false, source.Session{Source: "gemini", ID: "logs"}},
		{"/h/.gemini/tmp/p/chats/session-2026-05-10T14-20-c3d5e7f9.jsonl.tmp-42", false, source.Session{Source: "gemini", ID: "42"}},
		{"/h/.gemini/tmp/p/checkpoint-tag.json", false, source.Session{Source: "gemini", ID: "checkpoint-tag"}},
	} {
		if got := (Source{}).IsTranscript(tc.path); got != tc.recording {
			t.Errorf("IsTranscript(%s) = %v", tc.path, got)
		}
		if got := fileSession("gemini", tc.path, ""); got != tc.session {
			t.Errorf("fileSession(%s) = %+v; want %+v", tc.path, got, tc.session)
		}
	}
	home := (Source{}).DefaultDirs(func(string) string { return "" }, "/h")
	env := (Source{}).DefaultDirs(func(k string) string { return map[string]string{"GEMINI_CLI_HOME": "/g"}[k] }, "/h")
	if len(home) != 1 || home[0] != "/h/.gemini/tmp" || len(env) != 1 || env[0] != "/g/.gemini/tmp" {
		t.Errorf("DefaultDirs %v, with GEMINI_CLI_HOME %v", home, env)
	}
}
