package crush

import (
	"fmt"
	"strings"
)

// BenchID is the session id of BenchSession's mirror file.
const BenchID = "00000000-0000-4000-8000-000000000000"

// BenchSession is a generated mirror file of about size bytes: a
// session's row, then turns of a prompt, a reply that thinks, reads a
// file and runs a command, the tools' two results, and an answer.
func BenchSession(size int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"table":"sessions","id":%q,"title":"修复 parseConfig","message_count":0,"prompt_tokens":52000,"completion_tokens":900,"cost":0.31,"updated_at":1764300000,"created_at":1764300000,"db":"/home/u/app/.crush/crush.db","project":"/home/u/app","last_model":"claude-sonnet-4-5","last_provider":"anthropic"}`+"\n", BenchID)
	file := strings.Repeat(`\tif err := s.flush(ctx); err != nil {\n\t\treturn fmt.Errorf(\"flush %s: %w\", s.name, err)\n\t}\n`, 40)
	out := strings.Repeat(`ok  \tu/app/store\t0.412s\n--- PASS: TestFlush (0.02s) 修复\n`, 20)
	text := strings.Repeat("Close now waits for the flush goroutine; 我会在 Close 里等待它结束。 ", 6)
	stop := `{"type":"finish","data":{"reason":"stop","time":0}}`
	for turn := 0; b.Len() < size; turn++ {
		at := 1764300000 + int64(turn)*60
		id := func(k int) string { return fmt.Sprintf("%08d-%04d-4000-8000-000000000000", turn, k) }
		msg := func(k int, role, parts, model string, t int64) {
			fmt.Fprintf(&b, `{"table":"messages","id":%q,"session_id":%q,"role":%q,"parts":[%s],"model":%q,"created_at":%d,"updated_at":%d,"is_summary_message":0}`+"\n",
				id(k), BenchID, role, parts, model, t, t)
		}
		call := func(k int) string { return fmt.Sprintf("toolu_%08d_%d", turn, k) }
		msg(0, "user", fmt.Sprintf(`{"type":"text","data":{"text":"Turn %d: fix the flaky TestFlush, 修复这个测试"}},%s`, turn, stop), "", at)
		msg(1, "assistant", `{"type":"reasoning","data":{"thinking":"The test races on Close; read it, then run it.","signature":"EqQBCkYIBxgCKkA","started_at":1,"finished_at":2}},`+
			`{"type":"tool_call","data":{"id":"`+call(0)+`","name":"view","input":"{\"file_path\":\"/home/u/app/store/flush.go\"}","provider_executed":false,"finished":true}},`+
			`{"type":"tool_call","data":{"id":"`+call(1)+`","name":"bash","input":"{\"command\":\"go test ./store\"}","provider_executed":false,"finished":true}},`+
			`{"type":"finish","data":{"reason":"tool_use","time":2}}`, "claude-sonnet-4-5", at+1)
		msg(2, "tool", `{"type":"tool_result","data":{"tool_call_id":"`+call(0)+`","name":"view","content":"`+file+`","data":"","mime_type":"","metadata":"{\"file_path\":\"/home/u/app/store/flush.go\"}","is_error":false}},`+stop, "", at+2)
		msg(3, "tool", `{"type":"tool_result","data":{"tool_call_id":"`+call(1)+`","name":"bash","content":"`+out+`","data":"","mime_type":"","metadata":"","is_error":false}},`+stop, "", at+3)
		msg(4, "assistant", `{"type":"text","data":{"text":"`+text+`"}},{"type":"finish","data":{"reason":"end_turn","time":5}}`, "claude-sonnet-4-5", at+4)
	}
	return []byte(b.String())
}
