package pi

import (
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden session files and lines of odd shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		`{"type":"title","v":1,"title":"t","pad":"  "}`+"\n"+`{"type":"title","title":"u"}`+"\n",
		`{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[7,{"type":"toolCall","id":1}],"usage":{"totalTokens":9}}}`+"\n"+`{"type":"message","id":"b","parentId":"x","message":"hi"}`+"\n",
		`{"id":1}`+"\n"+`{"type":"session"}`+"\n"+`{"type":"branch_summary","id":"c","parentId":null,"summary":[1]}`+"\n")
}

// shapeCase is a table case: lines, and the kind and payload of each
// entry they make.
type shapeCase struct {
	name  string
	lines []string
	want  []string
}

// A record whose members are of other shapes than Pi writes keeps its
// text: what the mapping cannot read is an event of the record (or the
// block), never an empty entry.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	msg := func(message string) string {
		return `{"type":"message","id":"e1","parentId":null,"timestamp":"2026-03-01T10:00:00.000Z","message":` + message + `}`
	}
	for _, tc := range []shapeCase{
		{"user content a string", []string{msg(`{"role":"user","content":"fix it"}`)},
			[]string{`message {"role":"user","content":"fix it"}`}},
		{"user content one text block", []string{msg(`{"role":"user","content":[{"type":"text","text":"修复"}]}`)},
			[]string{`message {"role":"user","content":"修复"}`}},
		{"user content two text blocks", []string{msg(`{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`)},
			[]string{`message {"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`}},
		{"user image a blob reference", []string{msg(`{"role":"user","content":[{"type":"image","data":"blob:sha256:ab","mimeType":"image/png"}]}`)},
			[]string{`message {"role":"user","content":[{"type":"image_url","image_url":{"url":"blob:sha256:ab"}}]}`}},
		{"user block of another kind", []string{msg(`{"role":"user","content":[{"type":"audio","data":"x"}]}`)},
			[]string{`event {"data":{"message":{"role":"user","content":[{"type":"audio","data":"x"}]}},"name":"pi/message"}`}},
		{"user text a number", []string{msg(`{"role":"user","content":[{"type":"text","text":42}]}`)},
			[]string{`event {"data":{"message":{"role":"user","content":[{"type":"text","text":42}]}},"name":"pi/message"}`}},
		{"message a string", []string{msg(`"loose words"`)},
			[]string{`event {"data":{"message":"loose words"},"name":"pi/message"}`}},
		{"message of an unknown role", []string{msg(`{"role":"narrator","content":"once"}`)},
			[]string{`event {"data":{"message":{"role":"narrator","content":"once"}},"name":"pi/message"}`}},
		{"assistant content a string", []string{msg(`{"role":"assistant","content":"done"}`)},
			[]string{`message {"role":"assistant","content":"done"}`}},
		{"assistant content an object", []string{msg(`{"role":"assistant","content":{"text":"x"}}`)},
			[]string{`event {"data":{"message":{"role":"assistant","content":{"text":"x"}}},"name":"pi/message"}`}},
		{"assistant model a number", []string{msg(`{"role":"assistant","content":[],"model":7}`)},
			[]string{`event {"data":{"message":{"role":"assistant","content":[],"model":7}},"name":"pi/message"}`}},
		{"assistant without content or usage", []string{msg(`{"role":"assistant","content":[]}`)},
			[]string{`event {"data":{"message":{"role":"assistant","content":[]}},"name":"pi/message"}`}},
		{"assistant blocks of odd shapes", []string{msg(`{"role":"assistant","content":["words",{"text":"no type"},{"type":"fallback","from":{"model":"a"}},{"type":"thinking","thinking":"hm","thinkingSignature":9},{"type":"toolCall","id":5,"name":"bash"}]}`)}, []string{
			`event {"data":"words","name":"pi/block"}`,
			`event {"data":{"text":"no type"},"name":"pi/block"}`,
			`event {"data":{"type":"fallback","from":{"model":"a"}},"name":"pi/fallback"}`,
			`event {"data":{"type":"thinking","thinking":"hm","thinkingSignature":9},"name":"pi/thinking"}`,
			`event {"data":{"type":"toolCall","id":5,"name":"bash"},"name":"pi/toolCall"}`,
		}},
		{"tool call arguments as JSON text", []string{msg(`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":"{\"command\":\"ls\"}"}]}`)},
			[]string{`tool_call {"calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]}`}},
		{"redacted thinking", []string{msg(`{"role":"assistant","content":[{"type":"thinking","thinking":"","thinkingSignature":"opaque","redacted":true}]}`)},
			[]string{`event {"name":"thinking","data":{"thinking":"","signature":"opaque","redacted":true}}`}},
		{"an aborted request", []string{msg(`{"role":"assistant","content":[],"stopReason":"aborted","errorMessage":"Request was aborted"}`)},
			[]string{`error {"kind":"aborted","message":"Request was aborted"}`}},
		{"usage of a total alone", []string{msg(`{"role":"assistant","content":[],"model":"m","usage":{"totalTokens":333}}`)},
			[]string{`event {"name":"run","data":{"status":"ok","model":"m","usage":{"input_tokens":0,"output_tokens":333,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"usage_id":"pi:rollout-s-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5:2026-03-01T10:00:00.000Z:m:0:333:0:0:"}}`}},
		{"usage of no tokens", []string{msg(`{"role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input":0,"output":0}}`)},
			[]string{`message {"role":"assistant","content":"ok"}`}},
		{"usage named by the last model_change", []string{
			`{"type":"model_change","id":"m1","parentId":null,"provider":"openai","modelId":"gpt-5"}`,
			`{"type":"message","id":"e1","parentId":"m1","timestamp":"2026-03-01T10:00:00.000Z","message":{"role":"assistant","content":[],"usage":{"input":5,"output":2,"cacheRead":1,"cacheWrite":3,"totalTokens":20}}}`}, []string{
			`event {"data":{"provider":"openai","modelId":"gpt-5"},"name":"pi/model_change"}`,
			`event {"name":"run","data":{"status":"ok","model":"gpt-5","usage":{"input_tokens":5,"output_tokens":2,"cache_read_input_tokens":1,"cache_creation_input_tokens":3,"total_tokens":20},"usage_id":"pi:rollout-s-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5:2026-03-01T10:00:00.000Z::5:2:3:1:"}}`,
		}},
		{"tool result id a number", []string{msg(`{"role":"toolResult","toolCallId":3,"content":"out"}`)},
			[]string{`event {"data":{"message":{"role":"toolResult","toolCallId":3,"content":"out"}},"name":"pi/message"}`}},
		{"shell output a number", []string{msg(`{"role":"bashExecution","command":"ls","output":4}`)},
			[]string{`event {"data":{"message":{"role":"bashExecution","command":"ls","output":4}},"name":"pi/message"}`}},
		{"a shell command left out of the context", []string{msg(`{"role":"bashExecution","command":"ls","output":"a","exitCode":0,"excludeFromContext":true}`)}, []string{
			`tool_call {"calls":[{"id":"e1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]}`,
			`tool_result {"results":[{"tool_call_id":"e1","content":"a","details":{"exitCode":0,"excludeFromContext":true}}]}`,
		}},
		{"a record without a type", []string{`{"id":"e1","parentId":null,"words":"kept"}`},
			[]string{`event {"data":{"id":"e1","parentId":null,"words":"kept"},"name":"pi/record"}`}},
		{"an id of another shape", []string{`{"type":"label","id":7,"parentId":null,"label":"x"}`},
			[]string{`event {"data":{"id":7,"label":"x"},"name":"pi/label"}`}},
		{"a compaction's summary a list", []string{`{"type":"compaction","id":"c1","parentId":null,"summary":["a"],"tokensBefore":9}`},
			[]string{`anchor {"name":"compact","state":{"source":"pi","compact":{"summary":["a"],"tokensBefore":9}}}`}},
		{"session_info without a name", []string{`{"type":"session_info","id":"s1","parentId":null}`},
			[]string{`event {"data":null,"name":"pi/session_info"}`}},
		{"an extension's message of another customType", []string{`{"type":"custom_message","id":"x1","parentId":null,"customType":{"a":"b"},"content":"c"}`},
			[]string{`event {"data":{"customType":{"a":"b"},"content":"c"},"name":"pi/custom_message"}`}},
		{"a second header", []string{`{"type":"session","version":3,"id":"s1","cwd":"/a"}`, `{"type":"session","version":3,"id":"s2","cwd":"/b"}`},
			[]string{`event {"data":{"version":3,"cwd":"/b"},"name":"pi/session"}`}},
		{"a title line of another shape", []string{`{"type":"title","v":1,"title":7}`},
			[]string{`event {"data":{"v":1,"title":7},"name":"pi/title"}`}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}

// convert converts lines of the file at path, and returns what each
// entry made is: "<id> <kind> <payload>", and its tape's name.
func convert(t *testing.T, path string, lines ...string) []string {
	t.Helper()
	conv, err := Source{}.NewConverter(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	emit := func(outs []source.Output) {
		for _, o := range outs {
			got = append(got, Source{}.TapeName(o.Session, false)+" "+o.Entry.ID+" "+o.Entry.Kind+" "+string(o.Entry.Payload))
		}
	}
	for i, line := range lines {
		outs, err := conv.Line(tapelog.RawLine{No: i + 1, Data: []byte(line)})
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		emit(outs)
	}
	emit(conv.Flush())
	return got
}

// A user who goes back and tries again starts a branch: an anchor
// "branch" before its first entry, naming where the path left and what it
// continues from; a branch_summary is that anchor. The last entry written
// again is no branch.
func TestBranches(t *testing.T) {
	t.Parallel()
	rec := func(id, parent, text string) string {
		return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-03-01T10:00:00.000Z","message":{"role":"user","content":"` + text + `"}}`
	}
	got := convert(t, "/s/--a--/2026-03-01T10-00-00-000Z_5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d.jsonl",
		`{"type":"session","version":3,"id":"5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/a"}`,
		rec("a1", "null", "one"),
		rec("a2", `"a1"`, "two"),
		rec("a2", `"a1"`, "two"), // written twice
		rec("a3", `"a1"`, "two again"),
		`{"type":"branch_summary","id":"a4","parentId":"a2","timestamp":"2026-03-01T10:00:00.000Z","fromId":"a3","summary":"tried again"}`,
		rec("a5", `"a4"`, "after the summary"),
		rec("a6", "null", "a new root"),
	)
	want := []string{
		`pi-7a9b1c2d 5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d anchor {"name":"session/start","state":{"source":"pi","session_id":"5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d","file":"/s/--a--/2026-03-01T10-00-00-000Z_5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d.jsonl","cwd":"/a","version":3}}`,
		`pi-7a9b1c2d a1 message {"role":"user","content":"one"}`,
		`pi-7a9b1c2d a2 message {"role":"user","content":"two"}`,
		`pi-7a9b1c2d a2 message {"role":"user","content":"two"}`,
		`pi-7a9b1c2d a3/branch anchor {"name":"branch","state":{"source":"pi","parent_id":"a1","left_id":"a2"}}`,
		`pi-7a9b1c2d a3 message {"role":"user","content":"two again"}`,
		`pi-7a9b1c2d a4 anchor {"name":"branch","state":{"source":"pi","parent_id":"a2","left_id":"a3","summary":"tried again","branch":{"fromId":"a3"}}}`,
		`pi-7a9b1c2d a5 message {"role":"user","content":"after the summary"}`,
		`pi-7a9b1c2d a6/branch anchor {"name":"branch","state":{"source":"pi","parent_id":null,"left_id":"a5"}}`,
		`pi-7a9b1c2d a6 message {"role":"user","content":"a new root"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("made\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A version 1 session and the file Pi rewrites when it migrates it (a
// random id for each entry, "version" added after the header's "id") make
// the same entries: their ids are their places.
func TestMigratedSessionKeepsItsIDs(t *testing.T) {
	t.Parallel()
	const path = "/s/--a--/2025-12-10T08-00-00-000Z_3a2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d.jsonl"
	v1 := []string{
		`{"type":"session","id":"3a2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d","timestamp":"2025-12-10T08:00:00.000Z","cwd":"/a"}`,
		`{"type":"message","timestamp":"2025-12-10T08:00:04.000Z","message":{"role":"user","content":"rename it"}}`,
		`{"type":"compaction","timestamp":"2025-12-10T08:30:00.000Z","summary":"renamed","firstKeptEntryIndex":1,"tokensBefore":9}`,
	}
	migrated := []string{
		`{"type":"session","id":"3a2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d","timestamp":"2025-12-10T08:00:00.000Z","cwd":"/a","version":3}`,
		`{"type":"message","timestamp":"2025-12-10T08:00:04.000Z","message":{"role":"user","content":"rename it"},"id":"9f2c41d0","parentId":null}`,
		`{"type":"compaction","timestamp":"2025-12-10T08:30:00.000Z","summary":"renamed","tokensBefore":9,"id":"07be55aa","parentId":"9f2c41d0","firstKeptEntryId":"9f2c41d0"}`,
		`{"type":"message","id":"5d1e0c2b","parentId":"07be55aa","timestamp":"2025-12-11T09:00:00.000Z","message":{"role":"user","content":"and the docs"}}`,
	}
	ids := func(lines []string) []string {
		var out []string
		for _, e := range convert(t, path, lines...) {
			out = append(out, strings.SplitN(e, " ", 3)[1])
		}
		return out
	}
	before, after := ids(v1), ids(migrated)
	if strings.Join(after[:len(before)], " ") != strings.Join(before, " ") {
		t.Errorf("the migrated file's ids %v, the version 1 file's %v", after, before)
	}
	if after[len(after)-1] != source.LineID(path, 4, 0) {
		t.Errorf("an entry appended after the migration: id %s, want its place", after[len(after)-1])
	}
}

// oh-my-pi's title line comes before the header: it is held until the
// header has started the tape, and then is a title event; a file that
// holds nothing else, once quiet, starts its tape from its name.
func TestTitleLineWaitsForTheHeader(t *testing.T) {
	t.Parallel()
	const path = "/s/--a--/2026-09-01T18-19-23-097Z_019a5e2b-3c4d-7e8f-9a0b-1c2d3e4f5a6b.jsonl"
	slot := `{"type":"title","v":1,"title":"发布","source":"auto","updatedAt":"2026-09-01T18:21:02.511Z","pad":"   "}`
	conv, err := Source{}.NewConverter(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := conv.Line(tapelog.RawLine{No: 1, Offset: 0, Data: []byte(slot)})
	if err != nil || len(outs) != 0 {
		t.Fatalf("the title line made %v, %v: want nothing yet", outs, err)
	}
	if line, offset, held := conv.Held(); !held || line != 0 || offset != 0 {
		t.Fatalf("Held() = %d, %d, %v: want the title line held", line, offset, held)
	}
	got := convert(t, path, slot)
	want := []string{
		`pi-3e4f5a6b 019a5e2b-3c4d-7e8f-9a0b-1c2d3e4f5a6b anchor {"name":"session/start","state":{"source":"pi","session_id":"019a5e2b-3c4d-7e8f-9a0b-1c2d3e4f5a6b","file":"` + path + `"}}`,
		`pi-3e4f5a6b ` + source.LineID(path, 1, 0) + `/` + source.ShortSum([]byte("发布")) + ` event {"name":"title","data":{"title":"发布","from":"title","record":{"v":1,"source":"auto","updatedAt":"2026-09-01T18:21:02.511Z"}}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("made\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Which session a file's path says it holds, and the id ccusage gives
// its usage.
func TestFileSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path, id, agent, usage string
	}{
		{"/h/.pi/agent/sessions/--a--/2026-03-01T10-00-00-000Z_5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d.jsonl", "5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d", "", "5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d"},
		{"/h/.omp/agent/sessions/--a--/2026-01-12T07-45-00-000Z_V1StGXR8_Z5jdHi6B-myT.jsonl", "V1StGXR8_Z5jdHi6B-myT", "", "V1StGXR8_Z5jdHi6B-myT"},
		{"/h/.omp/agent/sessions/--a--/2026-09-01T18-19-23-097Z_019a5e2b/Explore.jsonl", "019a5e2b", "Explore", "Explore"},
		{"/h/.omp/agent/sessions/--a--/2026-09-01T18-19-23-097Z_019a5e2b/Plan/__advisor.review.jsonl", "019a5e2b", "Plan/__advisor.review", "_advisor.review"},
		{"/x/notes.jsonl", "notes", "", "notes"},
	} {
		s, usage := fileSession(tc.path)
		if s.ID != tc.id || s.Agent != tc.agent || usage != tc.usage {
			t.Errorf("fileSession(%s) = %+v, %q; want id %q, agent %q, usage %q", tc.path, s, usage, tc.id, tc.agent, tc.usage)
		}
	}
}

// Where Pi and oh-my-pi keep their sessions, and which files there are
// sessions.
func TestDirsAndTranscripts(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	want := "/h/.pi/agent/sessions /h/.omp/agent/sessions /h/.coding-agent/sessions"
	if got := strings.Join(Source{}.DefaultDirs(getenv, "/h"), " "); got != want {
		t.Errorf("DefaultDirs = %s, want %s", got, want)
	}
	env["PI_CODING_AGENT_DIR"], env["OMP_CODING_AGENT_DIR"] = "~/pi", "/o"
	want = "/h/pi/sessions /o/sessions /h/.coding-agent/sessions"
	if got := strings.Join(Source{}.DefaultDirs(getenv, "/h"), " "); got != want {
		t.Errorf("DefaultDirs with the agents' variables = %s, want %s", got, want)
	}
	for path, want := range map[string]bool{
		"/h/.pi/agent/sessions/--a--/2026-03-01T10-00-00-000Z_x.jsonl":               true,
		"/h/.omp/agent/sessions/--a--/2026-09-01T18-19-23-097Z_x/Explore.jsonl":      true,
		"/h/.pi/agent/sessions/--a--/subagent-artifacts/run_worker_transcript.jsonl": false,
		"/h/.pi/agent/sessions/--a--/2026-09-01T18-19-23-097Z_x/Explore.in.md":       false,
	} {
		if got := (Source{}).IsTranscript(path); got != want {
			t.Errorf("IsTranscript(%s) = %v, want %v", path, got, want)
		}
	}
}
