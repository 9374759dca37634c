package copilot_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/copilot"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

// session writes a generated events.jsonl of about size bytes: turns of a
// prompt, thinking and two tool calls, their starts and results (a file's
// text, a command's output, each with the detailed copy the timeline
// shows), a reply; a shutdown every 40 turns.
func session(id string, size int) []byte {
	var b bytes.Buffer
	n := 0
	line := func(typ, data string) {
		n++
		fmt.Fprintf(&b, `{"type":%q,"data":%s,"id":"%s-%06d","timestamp":"2026-08-05T%02d:%02d:%02d.%03dZ","parentId":"%s-%06d"}`+"\n",
			typ, data, id, n, 9+n/3600%12, n/60%60, n%60, n%1000, id, n-1)
	}
	line("session.start", `{"sessionId":"`+id+`","version":1,"producer":"copilot-agent","copilotVersion":"1.0.78","startTime":"2026-08-05T09:00:00.000Z","context":{"cwd":"/home/u/proj","branch":"main"}}`)
	file := strings.Repeat(`\tif err := s.flush(ctx); err != nil {\n\t\treturn fmt.Errorf(\"flush %s: %w\", s.name, err)\n\t}\n`, 40)
	out := strings.Repeat(`ok  \tu/proj/store\t0.412s\n--- PASS: TestFlush (0.02s) 修复\n`, 20)
	for turn := 0; b.Len() < size; turn++ {
		line("user.message", fmt.Sprintf(`{"content":"Turn %d: fix the flaky TestFlush in store/flush_test.go, 修复这个测试","transformedContent":"<current_datetime>2026-08-05</current_datetime>\n\nTurn %d: fix the flaky TestFlush","attachments":[],"interactionId":"i-%d"}`, turn, turn, turn))
		line("assistant.turn_start", fmt.Sprintf(`{"turnId":"%d","interactionId":"i-%d"}`, turn, turn))
		line("assistant.message", fmt.Sprintf(`{"messageId":"m-%d","model":"claude-sonnet-4.6","content":"","toolRequests":[{"toolCallId":"c-%d-a","name":"view","arguments":{"path":"/home/u/proj/store/flush.go"},"type":"function","intentionSummary":"view flush.go"},{"toolCallId":"c-%d-b","name":"bash","arguments":{"command":"go test ./store -run TestFlush -count=20","description":"Run the test"},"type":"function"}],"reasoningText":"%s","outputTokens":212}`,
			turn, turn, turn, strings.Repeat("The test races on Close; read it, then run it. ", 8)))
		line("tool.execution_start", fmt.Sprintf(`{"toolCallId":"c-%d-a","toolName":"view","arguments":{"path":"/home/u/proj/store/flush.go"},"turnId":"%d"}`, turn, turn))
		line("tool.execution_start", fmt.Sprintf(`{"toolCallId":"c-%d-b","toolName":"bash","arguments":{"command":"go test ./store -run TestFlush -count=20","description":"Run the test"},"turnId":"%d"}`, turn, turn))
		line("tool.execution_complete", fmt.Sprintf(`{"toolCallId":"c-%d-a","success":true,"result":{"content":"%s","detailedContent":"%s"},"toolTelemetry":{}}`, turn, file, file))
		line("tool.execution_complete", fmt.Sprintf(`{"toolCallId":"c-%d-b","success":%v,"result":{"content":"%s"},"toolTelemetry":{"properties":{"command":"go"}}}`, turn, turn%3 != 0, out))
		line("assistant.message", fmt.Sprintf(`{"messageId":"r-%d","model":"claude-sonnet-4.6","content":"%s","toolRequests":[]}`, turn, strings.Repeat("Close now waits for the flush goroutine; 我会在 Close 里等待它结束。 ", 6)))
		line("assistant.turn_end", fmt.Sprintf(`{"turnId":"%d"}`, turn))
		if turn%40 == 39 {
			line("session.shutdown", fmt.Sprintf(`{"shutdownType":"routine","modelMetrics":{"claude-sonnet-4.6":{"requests":{"count":%d},"usage":{"inputTokens":%d,"outputTokens":%d,"cacheReadTokens":%d,"cacheWriteTokens":%d}}}}`,
				2*turn, 9000*turn, 400*turn, 7000*turn, 500*turn))
		}
	}
	return b.Bytes()
}

// BenchmarkConvert converts a generated session of 8 MB: the converter's
// throughput, without the writes.
func BenchmarkConvert(b *testing.B) {
	data := session("0f3c9a12-5b7d-4e21-9c3a-7d5e1f2a4b6c", 8<<20)
	lines := bytes.SplitAfter(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		conv, err := copilot.Source{}.NewConverter("/h/.copilot/session-state/0f3c9a12-5b7d-4e21-9c3a-7d5e1f2a4b6c/events.jsonl", nil)
		if err != nil {
			b.Fatal(err)
		}
		var offset int64
		for i, l := range lines {
			if len(l) == 0 {
				continue
			}
			if _, err := conv.Line(tapelog.RawLine{No: i + 1, Offset: offset, Data: l[:len(l)-1]}); err != nil {
				b.Fatal(err)
			}
			offset += int64(len(l))
		}
	}
}

// BenchmarkImport imports 8 generated sessions of 2 MB each into a new
// workspace: the throughput of a first `tape import copilot`, without the
// index, beside cat of the same files.
func BenchmarkImport(b *testing.B) {
	const id = "00000000-5b7d-4e21-9c3a-7d5e1f2a4b6c"
	sourcetest.ImportBench{
		Session: session(id, 2<<20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, string(corpus.RewriteIDs(k, []byte(id)))+"/events.jsonl", data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, copilot.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
