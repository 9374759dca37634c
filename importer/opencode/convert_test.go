package opencode

import (
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden mirror files and rows of odd shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		`{"table":"session","id":"ses_1","title":7}`+"\n"+`{"table":"message","id":"m","data":{"role":"assistant","tokens":{"input":1e300}}}`+"\n",
		`{"table":"part","id":"p","data":{"type":"tool","callID":"c","tool":"t","state":{"status":"error"}}}`+"\n"+`{"table":"part","data":null}`+"\n",
		`[]`+"\n"+`{"table":{"a":1}}`+"\n")
}

// A row whose members are of other shapes than the mapping reads keeps
// its text, as an event of the row or inside the entry it makes.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	part := func(data string) string {
		return `{"table":"part","id":"p1","message_id":"m1","session_id":"s1","time_created":1764300000000,"time_updated":1764300000000,"data":` + data + `}`
	}
	message := func(data string) string {
		return `{"table":"message","id":"m1","session_id":"s1","time_created":1764300000000,"time_updated":1764300000000,"data":` + data + `}`
	}
	for _, tc := range []struct {
		name        string
		lines, want []string
	}{
		{"a text part before any message: the reply's", []string{part(`{"type":"text","text":"hi"}`)},
			[]string{`message {"role":"assistant","content":"hi"}`}},
		{"a user's text", []string{message(`{"role":"user"}`), part(`{"type":"text","text":"hi","synthetic":true}`)}, []string{
			`event {"data":{"role":"user"},"name":"opencode/message"}`,
			`message {"role":"user","content":"hi","part":{"synthetic":true}}`,
		}},
		{"a text that is a number", []string{part(`{"type":"text","text":5}`)},
			[]string{`event {"data":{"type":"text","text":5},"name":"opencode/text"}`}},
		{"a tool's state a string", []string{part(`{"type":"tool","callID":"c1","tool":"bash","state":"running"}`)},
			[]string{`event {"data":{"type":"tool","callID":"c1","tool":"bash","state":"running"},"name":"opencode/tool"}`}},
		{"a tool still running", []string{part(`{"type":"tool","callID":"c1","tool":"bash","state":{"status":"running","input":{"command":"ls"},"title":"ls"}}`)},
			[]string{`tool_call {"calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"},"extra":{"state":{"status":"running","title":"ls"}}}]}`}},
		{"a tool that failed", []string{part(`{"type":"tool","callID":"c1","tool":"bash","state":{"status":"error","input":{},"error":"exit 1","time":{"start":1,"end":1764300005000}}}`)}, []string{
			`tool_call {"calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]}`,
			`tool_result {"results":[{"tool_call_id":"c1","content":"exit 1","is_error":true,"details":{"status":"error","time":{"start":1,"end":1764300005000}}}]}`,
		}},
		{"a reply of no tokens", []string{message(`{"role":"assistant","tokens":{"input":0,"output":0}}`)},
			[]string{`event {"data":{"role":"assistant","tokens":{"input":0,"output":0}},"name":"opencode/message"}`}},
		{"a reply that failed", []string{message(`{"role":"assistant","modelID":"m","error":{"name":"APIError"},"tokens":{"input":0,"output":0}}`)},
			[]string{`event {"name":"run","data":{"status":"error","model":"m","usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"usage_id":"opencode:m1","message":{"role":"assistant","modelID":"m","error":{"name":"APIError"},"tokens":{"input":0,"output":0}}}}`}},
		{"a message's data not JSON", []string{message(`"{not json"`)},
			[]string{`event {"data":"{not json","name":"opencode/message"}`}},
		{"a part of a type tape does not map", []string{part(`{"type":"patch","files":[]}`)},
			[]string{`event {"data":{"type":"patch","files":[]},"name":"opencode/patch"}`}},
		{"a member the mirror does not write", []string{`{"table":"part","id":"p1","data":{"type":"text","text":"hi"},"channel":"tui"}`}, []string{
			`message {"role":"assistant","content":"hi"}`,
			`event {"data":{"channel":"tui"},"name":"opencode/part"}`,
		}},
		{"a row of a table tape does not map", []string{`{"table":"todo","content":"write the test"}`},
			[]string{`event {"data":{"table":"todo","content":"write the test"},"name":"opencode/row"}`}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}

// A session's row written again (its title changed) is an event of its
// own id, not the first anchor's, which the tape would take for it and
// skip.
func TestSessionRowAgainHasItsOwnID(t *testing.T) {
	c, err := newConverter("opencode", "/m/ses_1.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for i, line := range []string{
		`{"table":"session","id":"ses_1","title":"New session","time_created":1,"time_updated":1}`,
		`{"table":"session","id":"ses_1","title":"修复 the parser","time_created":1,"time_updated":2}`,
	} {
		outs, err := c.Line(tapelog.RawLine{No: i + 1, Data: []byte(line)})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			if ids[o.Entry.ID] {
				t.Errorf("line %d makes a second entry of id %s: %s", i+1, o.Entry.ID, o.Entry.Payload)
			}
			ids[o.Entry.ID] = true
		}
	}
	if len(ids) != 4 { // the anchor, two titles, the row again
		t.Errorf("%d entries, want 4: %v", len(ids), ids)
	}
}
