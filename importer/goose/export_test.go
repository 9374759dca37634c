package goose

import (
	"fmt"
	"strings"
)

// BenchSession is a generated mirror file of about size bytes: a
// session's row, then turns of a prompt, a reply that thinks and reads a
// file, the file's content, a reply that runs a command, its output, and
// an answer.
func BenchSession(size int) []byte {
	var b strings.Builder
	const sid = "20251128_00000000-0000-4000-8000-000000000000"
	fmt.Fprintf(&b, `{"table":"sessions","id":%q,"name":"修复 parseConfig","working_dir":"/home/u/app","created_at":"2025-11-28 10:00:00","accumulated_input_tokens":9000,"model_config_json":{"model_name":"claude-sonnet-4-5"},"schema_version":16,"db":"/h/sessions.db"}`+"\n", sid)
	file := strings.Repeat(`\tif err := s.flush(ctx); err != nil {\n\t\treturn fmt.Errorf(\"flush %s: %w\", s.name, err)\n\t}\n`, 40)
	out := strings.Repeat(`ok  \tu/app/store\t0.412s\n--- PASS: TestFlush (0.02s) 修复\n`, 20)
	text := strings.Repeat("Close now waits for the flush goroutine; 我会在 Close 里等待它结束。 ", 6)
	const meta = `"timestamp":"2025-11-28 10:00:00","tokens":null,"metadata_json":{"userVisible":true,"agentVisible":true}`
	for turn, row := 0, 0; b.Len() < size; turn++ {
		at := 1764324000 + turn*60
		msg := func(role, content string) {
			row++
			fmt.Fprintf(&b, `{"table":"messages","id":%d,"message_id":"msg_%08d-0000-4000-8000-000000000000","session_id":%q,"role":%q,"content_json":[%s],"created_timestamp":%d,%s}`+"\n",
				row, row, sid, role, content, at, meta)
		}
		call := func(id int, name, args string) string {
			return fmt.Sprintf(`{"type":"toolRequest","id":"toolu_%08d","toolCall":{"status":"success","value":{"name":%q,"arguments":%s}}}`, id, name, args)
		}
		result := func(id int, text string) string {
			return fmt.Sprintf(`{"type":"toolResponse","id":"toolu_%08d","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"%s"}],"isError":false}}}`, id, text)
		}
		msg("user", fmt.Sprintf(`{"type":"text","text":"Turn %d: fix the flaky TestFlush, 修复这个测试"}`, turn))
		msg("assistant", `{"type":"thinking","thinking":"The test races on Close; read it, then run it.","signature":"sig"},`+
			call(2*turn, "developer__text_editor", `{"command":"view","path":"/home/u/app/store/flush.go"}`))
		msg("user", result(2*turn, file))
		msg("assistant", call(2*turn+1, "developer__shell", `{"command":"go test ./store"}`))
		msg("user", result(2*turn+1, out))
		msg("assistant", `{"type":"text","text":"`+text+`"}`)
	}
	return []byte(b.String())
}
