package goose

import (
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden files and lines of odd shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		`{"table":"sessions","id":"s","name":7,"created_at":1e300,"model_config_json":{"model_name":" m "},"accumulated_input_tokens":"12x"}`+"\n"+
			`{"table":"messages","id":1,"role":"assistant","content_json":[{"type":"text","text":"Your context was compacted"}],"metadata_json":{"userVisible":false,"agentVisible":true}}`+"\n",
		`{"working_dir":"/w","description":"d"}`+"\n"+`{"role":"user","created":-5,"content":[{"type":"toolResponse","id":"c","toolResult":{"status":"success","value":7}}]}`+"\n",
		`[]`+"\n"+`{"table":{"a":1}}`+"\n"+`{"role":1,"content":{}}`+"\n")
}

// A line whose members are of other shapes than the mapping reads keeps
// its text, as an event of the line or inside the entry it makes.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	msg := func(role, content string) string {
		return `{"table":"messages","id":7,"message_id":"m1","session_id":"s1","role":"` + role + `","content_json":` + content + `,"created_timestamp":1764300000}`
	}
	for _, tc := range []struct {
		name        string
		lines, want []string
	}{
		{"a text", []string{msg("user", `[{"type":"text","text":"hi","annotations":{"audience":["user"]}}]`)},
			[]string{`message {"role":"user","content":"hi","block":{"annotations":{"audience":["user"]}}}`}},
		{"a text that is a number", []string{msg("user", `[{"type":"text","text":5}]`)},
			[]string{`event {"data":{"type":"text","text":5},"name":"goose/text"}`}},
		{"a role Goose does not write", []string{msg("tool", `[{"type":"text","text":"hi"}]`)},
			[]string{`message {"role":"assistant","content":"hi","goose_role":"tool"}`}},
		{"content that is not a list", []string{msg("user", `"hello"`)},
			[]string{`event {"data":{"id":7,"message_id":"m1","session_id":"s1","role":"user","content_json":"hello","created_timestamp":1764300000},"name":"goose/message"}`}},
		{"a tool call Goose could not read", []string{msg("assistant", `[{"type":"toolRequest","id":"c1","toolCall":{"status":"error","error":"bad json"}}]`)},
			[]string{`event {"data":{"type":"toolRequest","id":"c1","toolCall":{"status":"error","error":"bad json"}},"name":"goose/toolRequest"}`}},
		{"a frontend tool call", []string{msg("assistant", `[{"type":"frontendToolRequest","id":"c1","toolCall":{"status":"success","value":{"name":"ui","arguments":null}}}]`)},
			[]string{`tool_call {"calls":[{"id":"c1","type":"function","function":{"name":"ui","arguments":"{}"},"extra":{"type":"frontendToolRequest"}}]}`}},
		{"a result of the older list", []string{msg("user", `[{"type":"toolResponse","id":"c1","toolResult":{"status":"success","value":[{"type":"text","text":"ok"}]}}]`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c1","content":[{"type":"text","text":"ok"}]}]}`}},
		{"a result that says it failed", []string{msg("user", `[{"type":"toolResponse","id":"c1","toolResult":{"status":"success","value":{"content":[],"isError":true}}}]`)},
			[]string{`tool_result {"results":[{"tool_call_id":"c1","content":[],"is_error":true,"details":{"value":{"isError":true}}}]}`}},
		{"a result of a status Goose does not write", []string{msg("user", `[{"type":"toolResponse","id":"c1","toolResult":{"status":"pending"}}]`)},
			[]string{`event {"data":{"type":"toolResponse","id":"c1","toolResult":{"status":"pending"}},"name":"goose/toolResponse"}`}},
		{"a block of no type", []string{msg("user", `[{"text":"hi"}, 7]`)}, []string{
			`event {"data":{"text":"hi"},"name":"goose/content"}`,
			`event {"data":7,"name":"goose/content"}`,
		}},
		{"a compaction without its summary", []string{msg("assistant", `[{"type":"text","text":"Your context was compacted."}]`)[:0] +
			`{"table":"messages","message_id":"m2","role":"assistant","content_json":[{"type":"text","text":"Your context was compacted."}],"metadata_json":{"userVisible":false,"agentVisible":true}}`},
			[]string{`anchor {"name":"compact","state":{"source":"goose","continuation":"Your context was compacted."}}`}},
		{"a ledger row", []string{`{"table":"usage_ledger","id":3,"session_id":"s1","model":"m","input_tokens":5}`},
			[]string{`event {"data":{"id":3,"session_id":"s1","model":"m","input_tokens":5},"name":"goose/usage_ledger"}`}},
		{"a row of a table tape does not map", []string{`{"table":"threads","name":"t"}`},
			[]string{`event {"data":{"table":"threads","name":"t"},"name":"goose/row"}`}},
		{"a line of no table nor role", []string{`{"role":"user"}`, `{"x":"y"}`}, []string{
			`event {"data":{"role":"user"},"name":"goose/record"}`,
			`event {"data":{"x":"y"},"name":"goose/record"}`,
		}},
		{"a session's row again", []string{`{"table":"sessions","id":"s1","name":"a","created_at":"2025-11-28 10:00:00","model_config_json":{"model_name":"m"},"input_tokens":5}`,
			`{"table":"sessions","id":"s1","name":"b","created_at":"2025-11-28 10:00:00","model_config_json":{"model_name":"m"},"input_tokens":5}`}, []string{
			`event {"data":{"title":"a","from":"session"},"name":"title"}`,
			`event {"name":"run","data":{"status":"ok","model":"m","usage":{"input_tokens":5,"output_tokens":0,"total_tokens":5},"usage_id":"goose:s1@2025-11-28 10:00:00"}}`,
			`event {"data":{"id":"s1","name":"b","created_at":"2025-11-28 10:00:00","model_config_json":{"model_name":"m"},"input_tokens":5},"name":"goose/sessions"}`,
			`event {"data":{"title":"b","from":"session"},"name":"title"}`,
		}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}
