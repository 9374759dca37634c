package qwen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// BenchmarkConvert converts one generated transcript of about 4 MB in
// Qwen Code's shape (prompts, thoughts, calls, tool outputs of a few KB
// of code, telemetry, usage), as the importer does, and drops what it
// made: the converter's throughput, the part of an import that is the
// source's.
//
//	go test ./importer/qwen -run '^$' -bench Convert -count 6
func BenchmarkConvert(b *testing.B) {
	data := benchTranscript(4 << 20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sourcetest.Convert(b, Source{}, data)
	}
}

// benchTranscript is a transcript of about size bytes: turns of a user's
// prompt, an assistant's thought and call, the tool's output, telemetry,
// and an answer.
func benchTranscript(size int) []byte {
	r := rand.New(rand.NewPCG(7, 33))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	n, parent := 0, ""
	add := func(typ string, rec map[string]any) {
		n++
		uuid := fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n)
		rec["uuid"], rec["parentUuid"], rec["sessionId"], rec["type"] = uuid, parent, "1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f", typ
		rec["timestamp"] = fmt.Sprintf("2026-05-05T%02d:%02d:%02d.%03dZ", n/3600%24, n/60%60, n%60, n%1000)
		rec["cwd"], rec["version"], rec["gitBranch"] = "/home/u/app", "0.22.0", "main"
		parent = uuid
		if err := enc.Encode(rec); err != nil {
			panic(err)
		}
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
	usage := func() map[string]any {
		return map[string]any{"promptTokenCount": 10000 + r.IntN(5000), "candidatesTokenCount": r.IntN(400), "thoughtsTokenCount": r.IntN(60), "cachedContentTokenCount": 9000, "totalTokenCount": 15000}
	}
	for turn := 0; buf.Len() < size; turn++ {
		add("user", map[string]any{"provenance": "real_user", "message": map[string]any{"role": "user", "parts": []any{map[string]any{"text": text(30)}}},
			"systemPayload": map[string]any{"displayText": text(10), "hookContext": ""}})
		call := fmt.Sprintf("call_%d", turn)
		add("assistant", map[string]any{"model": "qwen3-coder-plus", "usageMetadata": usage(), "message": map[string]any{"role": "model", "parts": []any{
			map[string]any{"text": text(40), "thought": true},
			map[string]any{"functionCall": map[string]any{"id": call, "name": "read_file", "args": map[string]any{"absolute_path": "/home/u/app/parser/parser.go"}}}}}})
		add("tool_result", map[string]any{"message": map[string]any{"role": "user", "parts": []any{
			map[string]any{"functionResponse": map[string]any{"id": call, "name": "read_file", "response": map[string]any{"output": text(600 + r.IntN(600))}}}}},
			"toolCallResult": map[string]any{"callId": call, "status": "success", "resultDisplay": ""}})
		add("system", map[string]any{"subtype": "ui_telemetry", "systemPayload": map[string]any{"uiEvent": map[string]any{"event.name": "qwen-code.api_response", "input_token_count": 12000, "output_token_count": 80}}})
		add("assistant", map[string]any{"model": "qwen3-coder-plus", "usageMetadata": usage(), "message": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text(80)}}}})
	}
	return buf.Bytes()
}
