package crush

import (
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden mirror files and rows of odd shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		`{"table":"sessions","id":"s1","title":7,"prompt_tokens":1e300,"cost":"x"}`+"\n"+`{"table":"messages","id":"m","parts":[{"type":"finish","data":{"reason":9}}],"role":"assistant"}`+"\n",
		`{"table":"messages","id":"m","role":"tool","parts":[{"type":"tool_result","data":{"tool_call_id":"c","content":null}},7,null]}`+"\n"+`{"table":"files","data":null}`+"\n",
		`[]`+"\n"+`{"table":{"a":1}}`+"\n")
}

// A row whose members are of other shapes than the mapping reads keeps
// its text, as an event of the row or inside the entry it makes.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	msg := func(role, parts string) string {
		return `{"table":"messages","id":"m1","session_id":"s1","role":"` + role + `","parts":` + parts + `,"model":"","created_at":1764300000,"updated_at":1764300000}`
	}
	for _, tc := range []struct {
		name        string
		lines, want []string
	}{
		{"a user's text and Crush's own finish", []string{msg("user", `[{"type":"text","data":{"text":"hi"}},{"type":"finish","data":{"reason":"stop","time":0}}]`)},
			[]string{`message {"role":"user","content":"hi"}`}},
		{"a user's finish that says something", []string{msg("user", `[{"type":"finish","data":{"reason":"canceled","time":5}}]`)},
			[]string{`event {"data":{"reason":"canceled","time":5},"name":"crush/finish"}`}},
		{"a message of no parts", []string{msg("assistant", `[]`)},
			[]string{`event {"data":{"role":"assistant","parts":[],"model":""},"name":"crush/message"}`}},
		{"parts that are not JSON, kept as a string", []string{msg("assistant", `"[{\"type\":\"te"`)},
			[]string{`event {"data":{"role":"assistant","parts":"[{\"type\":\"te","model":""},"name":"crush/message"}`}},
		{"a text that is a number", []string{msg("assistant", `[{"type":"text","data":{"text":5}}]`)},
			[]string{`event {"data":{"text":5},"name":"crush/text"}`}},
		{"a part that is not an object", []string{msg("assistant", `["text",{"type":"text","data":"hi"}]`)}, []string{
			`event {"data":"text","name":"crush/part"}`,
			`event {"data":{"type":"text","data":"hi"},"name":"crush/part"}`,
		}},
		{"a part with a member Crush does not write", []string{msg("user", `[{"type":"text","data":{"text":"hi"},"cache":true}]`)},
			[]string{`event {"data":{"type":"text","data":{"text":"hi"},"cache":true},"name":"crush/part"}`}},
		{"a call still streaming", []string{msg("assistant", `[{"type":"tool_call","data":{"id":"c1","name":"bash","input":"{\"comm","provider_executed":false,"finished":false}}]`)},
			[]string{`tool_call {"calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"comm"},"extra":{"finished":false}}]}`}},
		{"a call its provider ran", []string{msg("assistant", `[{"type":"tool_call","data":{"id":"c1","name":"web_search","input":"{}","provider_executed":true,"finished":true}}]`)},
			[]string{`tool_call {"calls":[{"id":"c1","type":"function","function":{"name":"web_search","arguments":"{}"},"extra":{"provider_executed":true}}]}`}},
		{"a call of input not a string", []string{msg("assistant", `[{"type":"tool_call","data":{"id":"c1","name":"bash","input":{"command":"ls"}}}]`)},
			[]string{`event {"data":{"id":"c1","name":"bash","input":{"command":"ls"}},"name":"crush/tool_call"}`}},
		{"a result that failed, with an image", []string{msg("tool", `[{"type":"tool_result","data":{"tool_call_id":"c1","name":"view","content":"","data":"iVBOR","mime_type":"image/png","metadata":"","is_error":true}}]`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c1","content":"","is_error":true,"details":{"name":"view","data":"iVBOR","mime_type":"image/png"}}]}`}},
		{"a shell command that failed", []string{msg("user", `[{"type":"shell_command","data":{"command":"make","output":"no rule","exit_code":2}}]`)}, []string{
			`tool_call {"calls":[{"id":"shell:m1","type":"function","function":{"name":"shell","arguments":"{\"command\":\"make\"}"}}]}`,
			`tool_result {"results":[{"tool_call_id":"shell:m1","content":"no rule","is_error":true,"details":{"exit_code":2}}]}`,
		}},
		{"a reply that failed", []string{`{"table":"messages","id":"m1","role":"assistant","model":"m","provider":"p","parts":[{"type":"finish","data":{"reason":"error","time":1764300005,"message":"Overloaded"}}]}`},
			[]string{`event {"data":{"status":"error","model":"m","provider":"p","finish":{"reason":"error","time":1764300005,"message":"Overloaded"}},"name":"run"}`}},
		{"a summary", []string{`{"table":"messages","id":"m9","role":"assistant","is_summary_message":1,"parts":[{"type":"text","data":{"text":"sum"}}]}`}, []string{
			`anchor {"name":"compact","state":{"source":"crush","session_id":"unknown","message_id":"m9"}}`,
			`message {"role":"assistant","content":"sum"}`,
		}},
		{"the summary a session names (Crush before 0.13)", []string{
			`{"table":"sessions","id":"s1","title":"t","summary_message_id":"m9"}`,
			`{"table":"messages","id":"m9","role":"assistant","parts":[{"type":"text","data":{"text":"sum"}}]}`}, []string{
			`event {"data":{"title":"t","from":"session"},"name":"title"}`,
			`anchor {"name":"compact","state":{"source":"crush","session_id":"s1","message_id":"m9"}}`,
			`message {"role":"assistant","content":"sum"}`,
		}},
		{"a session's usage, written again with a new title only", []string{
			`{"table":"sessions","id":"s1","title":"t","prompt_tokens":10,"completion_tokens":2,"cost":0.5,"updated_at":1764300000,"last_model":"m"}`,
			`{"table":"sessions","id":"s1","title":"u","prompt_tokens":10,"completion_tokens":2,"cost":0.5,"updated_at":1764300009}`}, []string{
			`event {"data":{"title":"t","from":"session"},"name":"title"}`,
			`event {"data":{"status":"ok","model":"m","usage":{"input_tokens":10,"output_tokens":2},"usage_id":"crush:s1","cost_usd":0.5},"name":"run"}`,
			`event {"data":{"id":"s1","title":"u","prompt_tokens":10,"completion_tokens":2,"cost":0.5,"updated_at":1764300009},"name":"crush/session"}`,
			`event {"data":{"title":"u","from":"session"},"name":"title"}`,
		}},
		{"a column the mirror does not know", []string{`{"table":"messages","id":"m1","role":"user","parts":[{"type":"text","data":{"text":"hi"}}],"channel":"tui"}`}, []string{
			`message {"role":"user","content":"hi"}`,
			`event {"data":{"channel":"tui"},"name":"crush/messages"}`,
		}},
		{"a version of a file", []string{`{"table":"files","id":"f1","session_id":"s1","path":"/a.go","content":"package a","version":1,"created_at":1764300000}`},
			[]string{`event {"data":{"path":"/a.go","content":"package a","version":1},"name":"crush/file"}`}},
		{"a row of a table tape does not map", []string{`{"table":"read_files","path":"/a.go","read_at":1}`},
			[]string{`event {"data":{"table":"read_files","path":"/a.go","read_at":1},"name":"crush/row"}`}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}
