package openclaw

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/sourcetest"
	"github.com/tape-dev/tape/testkit/benchcpu"
)

// BenchmarkConvert converts one generated transcript of about 4 MB in
// OpenClaw's shape (prompts, thinking, calls, tool outputs of a few KB of
// code, model snapshots, usage), as the importer does, and drops what it
// made: the converter's throughput, the part of an import that is the
// source's. On a machine shared with other work, cpu-MB/s (the bytes
// converted per second of the process's CPU time, GC included) says what
// MB/s says on an idle one.
//
//	go test ./importer/openclaw -run '^$' -bench Convert -count 6
func BenchmarkConvert(b *testing.B) {
	data := benchTranscript(4 << 20)
	b.SetBytes(int64(len(data)))
	start := time.Duration(benchcpu.Start())
	for b.Loop() {
		sourcetest.Convert(b, Source{}, data)
	}
	cpu := time.Duration(benchcpu.Start()) - start
	b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
}

// benchTranscript is a transcript of about size bytes: a header, then
// turns of a model snapshot, a user's prompt, an assistant's thinking and
// call, the tool's output, and an answer.
func benchTranscript(size int) []byte {
	r := rand.New(rand.NewPCG(7, 41))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	put := func(v any) {
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
	}
	put(map[string]any{"type": "session", "version": 3, "id": "6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14", "timestamp": "2026-03-08T00:00:00.000Z", "cwd": "/home/u/.openclaw/workspace"})
	n, parent := 0, ""
	add := func(typ string, rec map[string]any) {
		n++
		id := fmt.Sprintf("%08x", n)
		rec["type"], rec["id"], rec["parentId"] = typ, id, parent
		rec["timestamp"] = fmt.Sprintf("2026-03-08T%02d:%02d:%02d.%03dZ", n/3600%24, n/60%60, n%60, n%1000)
		parent = id
		put(rec)
	}
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
	ms := int64(1772928000000)
	usage := func() map[string]any {
		in, out := 200+r.IntN(500), r.IntN(400)
		return map[string]any{"input": in, "output": out, "cacheRead": 12000, "cacheWrite": 300, "totalTokens": in + out + 12300,
			"cost": map[string]any{"input": 0.001, "output": 0.002, "cacheRead": 0.0036, "cacheWrite": 0.001, "total": 0.0076}}
	}
	for turn := 0; buf.Len() < size; turn++ {
		ms += 60000
		add("custom", map[string]any{"customType": "model-snapshot", "data": map[string]any{"timestamp": ms, "provider": "anthropic", "modelApi": "anthropic-messages", "modelId": "claude-sonnet-4-6"}})
		add("message", map[string]any{"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text(30)}}, "timestamp": ms}})
		call := fmt.Sprintf("toolu_%d", turn)
		add("message", map[string]any{"message": map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": text(40), "thinkingSignature": "EqQBCkYIBxgCKkA1"},
			map[string]any{"type": "toolCall", "id": call, "name": "read", "arguments": map[string]any{"path": "parser/parser.go"}}},
			"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-6", "usage": usage(), "stopReason": "toolUse", "timestamp": ms + 1000}})
		add("message", map[string]any{"message": map[string]any{"role": "toolResult", "toolCallId": call, "toolName": "read",
			"content": []any{map[string]any{"type": "text", "text": text(600 + r.IntN(600))}}, "isError": false, "timestamp": ms + 2000}})
		add("message", map[string]any{"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text(80)}},
			"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-6", "usage": usage(), "stopReason": "stop", "timestamp": ms + 3000}})
	}
	return buf.Bytes()
}
