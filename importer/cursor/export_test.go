package cursor

import (
	"fmt"
	"strings"
)

// BenchID is the chat id of BenchSession's mirror file.
const BenchID = "00000000-0000-4000-8000-000000000000"

// BenchSession is a generated mirror file of the editor's chat of about
// size bytes: the chat's line, then turns of a prompt, a reply that
// thinks, reads a file, runs a command, and answers with a code block.
func BenchSession(size int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"table":"cursorDiskKV","key":"composerData:%s","db":"/home/u/.config/Cursor/User/globalStorage/state.vscdb","workspace":"/home/u/app","data":{"_v":10,"composerId":%q,"name":"修复 parseConfig","createdAt":1772445600000,"lastUpdatedAt":1772449200000,"status":"completed","modelConfig":{"modelName":"claude-4.5-sonnet"},"createdOnBranch":"main"}}`+"\n", BenchID, BenchID)
	file := strings.Repeat(`\\tif err := s.flush(ctx); err != nil {\\n\\t\\treturn fmt.Errorf(\\\"flush %s: %w\\\", s.name, err)\\n\\t}\\n`, 40)
	out := strings.Repeat(`ok  \\tu/app/store\\t0.412s\\n--- PASS: TestFlush (0.02s) 修复\\n`, 20)
	text := strings.Repeat("Close now waits for the flush goroutine; 我会在 Close 里等待它结束。 ", 6)
	for turn := 0; b.Len() < size; turn++ {
		at := func(k int) string {
			return fmt.Sprintf("2026-03-02T%02d:%02d:%02d.000Z", 10+turn/3600%10, turn/60%60, (turn+k)%60)
		}
		bubble := func(k int, data string) {
			id := fmt.Sprintf("%08d-%04d-4000-8000-000000000000", turn, k)
			fmt.Fprintf(&b, `{"table":"cursorDiskKV","key":"bubbleId:%s:%s","data":{"_v":3,"bubbleId":%q,"createdAt":%q,%s}}`+"\n", BenchID, id, id, at(k), data)
		}
		call := func(k int) string { return fmt.Sprintf("toolu_%08d_%d", turn, k) }
		bubble(0, fmt.Sprintf(`"type":1,"text":"Turn %d: fix the flaky TestFlush, 修复这个测试","richText":"{\"root\":{}}","isAgentic":true`, turn))
		bubble(1, `"type":2,"text":"I will read the file, then run the test.","thinking":{"text":"The test races on Close; read it, then run it.","signature":"EqQBCkYIBxgCKkA"},"tokenCount":{"inputTokens":0,"outputTokens":0}`)
		bubble(2, `"type":2,"text":"","capabilityType":15,"toolFormerData":{"tool":40,"toolCallId":"`+call(0)+`","status":"completed","name":"read_file_v2","params":"{\"targetFile\":\"/home/u/app/store/flush.go\"}","result":"{\"contents\":\"`+file+`\"}"}`)
		bubble(3, `"type":2,"text":"","capabilityType":15,"toolFormerData":{"tool":15,"toolCallId":"`+call(1)+`","status":"completed","name":"run_terminal_command_v2","params":"{\"command\":\"go test ./store\"}","result":"{\"output\":\"`+out+`\",\"exitCode\":0}"}`)
		bubble(4, `"type":2,"text":"`+text+`","codeBlocks":[{"content":"func (s *Store) Close() error {\n\treturn s.wait()\n}","languageId":"go"}]`)
	}
	return []byte(b.String())
}
