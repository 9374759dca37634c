package opencode

import (
	"fmt"
	"strings"
)

// BenchSession is a generated mirror file of about size bytes: a session's
// row, then turns of a prompt, a reply that thinks, reads a file and runs
// a command, and answers.
func BenchSession(size int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"table":"session","id":"ses_00000000-0000-4000-8000-000000000000","title":"修复 parseConfig","directory":"/home/u/app","time_created":1764300000000,"time_updated":1764300000000,"db":"/h/opencode.db"}`+"\n")
	file := strings.Repeat(`\tif err := s.flush(ctx); err != nil {\n\t\treturn fmt.Errorf(\"flush %s: %w\", s.name, err)\n\t}\n`, 40)
	out := strings.Repeat(`ok  \tu/app/store\t0.412s\n--- PASS: TestFlush (0.02s) 修复\n`, 20)
	text := strings.Repeat("Close now waits for the flush goroutine; 我会在 Close 里等待它结束。 ", 6)
	for turn := 0; b.Len() < size; turn++ {
		at := 1764300000000 + int64(turn)*60000
		id := func(kind string, k int) string {
			return fmt.Sprintf("%s_%08d-%04d-4000-8000-000000000000", kind, turn, k)
		}
		row := func(table, rid, parent, data string, t int64) {
			key := "session_id"
			if table == "part" {
				key = "message_id"
			}
			fmt.Fprintf(&b, `{"table":%q,"id":%q,%q:%q,"time_created":%d,"time_updated":%d,"data":%s}`+"\n", table, rid, key, parent, t, t, data)
		}
		u, a := id("msg", 0), id("msg", 1)
		row("message", u, "ses_00000000-0000-4000-8000-000000000000", `{"role":"user","time":{"created":1}}`, at)
		row("part", id("prt", 0), u, fmt.Sprintf(`{"type":"text","text":"Turn %d: fix the flaky TestFlush, 修复这个测试"}`, turn), at)
		row("message", a, "ses_00000000-0000-4000-8000-000000000000", `{"role":"assistant","time":{"created":1,"completed":2},"modelID":"claude-sonnet-4-5","providerID":"anthropic","cost":0.01,"tokens":{"input":900,"output":120,"reasoning":0,"cache":{"read":8000,"write":100}}}`, at+1000)
		row("part", id("prt", 1), a, `{"type":"reasoning","text":"The test races on Close; read it, then run it."}`, at+1100)
		row("part", id("prt", 2), a, `{"type":"tool","callID":"`+id("call", 0)+`","tool":"read","state":{"status":"completed","input":{"filePath":"/home/u/app/store/flush.go"},"output":"`+file+`","title":"flush.go","time":{"start":1,"end":2}}}`, at+1200)
		row("part", id("prt", 3), a, `{"type":"tool","callID":"`+id("call", 1)+`","tool":"bash","state":{"status":"completed","input":{"command":"go test ./store"},"output":"`+out+`","time":{"start":1,"end":2}}}`, at+1300)
		row("part", id("prt", 4), a, `{"type":"text","text":"`+text+`"}`, at+1400)
	}
	return []byte(b.String())
}
