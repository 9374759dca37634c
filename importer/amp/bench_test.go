package amp

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/sourcetest"
	"github.com/tape-dev/tape/testkit/benchcpu"
)

// BenchmarkConvert converts one generated thread of about 4 MB in Amp's
// shape (a pretty-printed document: prompts, thinking, calls, tool outputs
// of a few KB of code, usage with timestamps), as the importer does, and
// drops what it made: the converter's throughput, the part of an import
// that is the source's. On a machine shared with other work, cpu-MB/s
// (the bytes converted per second of the process's CPU time, GC included)
// says what MB/s says on an idle one.
//
//	go test ./importer/amp -run '^$' -bench Convert -count 6
func BenchmarkConvert(b *testing.B) {
	data := benchThread(4 << 20)
	b.SetBytes(int64(len(data)))
	start := time.Duration(benchcpu.Start())
	for b.Loop() {
		sourcetest.Convert(b, Source{}, data)
	}
	cpu := time.Duration(benchcpu.Start()) - start
	b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
}

// benchThread is a thread of about size bytes, as Amp writes it
// (JSON.stringify(thread, null, 2), no newline at its end): turns of a
// user's prompt, an assistant's thinking and call, the tool's output, and
// an answer.
func benchThread(size int) []byte {
	r := rand.New(rand.NewPCG(7, 41))
	words := strings.Fields("parse token slice empty reader 修复 测试 error return value func nil buffer")
	text := func(k int) string {
		var s strings.Builder
		for i := range k {
			s.WriteString(words[r.IntN(len(words))])
			if i%12 == 11 {
				s.WriteString("\n\t")
			} else {
				s.WriteByte(' ')
			}
		}
		return s.String()
	}
	ms := int64(1773475200000)
	stamp := func(ms int64) string { return time.UnixMilli(ms).UTC().Format(dateLayout) }
	usage := func(at int64) map[string]any {
		in, out := 2+r.IntN(20), r.IntN(400)
		return map[string]any{"model": "claude-opus-4-6", "maxInputTokens": 168000, "inputTokens": in, "outputTokens": out,
			"cacheCreationInputTokens": 300, "cacheReadInputTokens": 12000, "totalInputTokens": in + 12300, "timestamp": stamp(at)}
	}
	var messages []any
	n, total := 0, 0
	add := func(m map[string]any) {
		m["messageId"] = n
		n++
		b, _ := json.Marshal(m)
		total += len(b) * 5 / 4 // pretty-printed, the indents
		messages = append(messages, m)
	}
	for turn := 0; total < size; turn++ {
		ms += 60000
		call := fmt.Sprintf("toolu_%08d", turn)
		add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text(30)}}, "agentMode": "smart", "meta": map[string]any{"sentAt": ms}})
		add(map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": text(40), "signature": "EqQBCkYIBxgCKkA1"},
			map[string]any{"type": "tool_use", "id": call, "name": "Read", "input": map[string]any{"path": "/home/u/app/parser/parser.go"}, "complete": true}},
			"state": map[string]any{"type": "complete", "stopReason": "tool_use"}, "usage": usage(ms + 1000)})
		add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "toolUseID": call,
			"run": map[string]any{"status": "done", "result": map[string]any{"absolutePath": "/home/u/app/parser/parser.go", "content": text(600 + r.IntN(600))}}}}})
		add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text(80)}},
			"state": map[string]any{"type": "complete", "stopReason": "end_turn"}, "usage": usage(ms + 3000)})
	}
	thread := map[string]any{"v": n * 3, "id": "T-019c8a12-4e6b-7d30-8f2a-3c9e1b7d5a42", "created": 1773475199000, "messages": messages,
		"nextMessageId": n, "title": "parser", "agentMode": "smart",
		"env": map[string]any{"initial": map[string]any{"trees": []any{map[string]any{"displayName": "app", "uri": "file:///home/u/app"}}}}}
	b, err := json.MarshalIndent(thread, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}
