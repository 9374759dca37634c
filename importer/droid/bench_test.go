package droid

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
// Droid's shape (prompts with the context Droid adds, thinking, calls,
// tool outputs of a few KB of code, todo lists, answers), as the importer
// does, and drops what it made: the converter's throughput, the part of
// an import that is the source's.
//
//	go test ./importer/droid -run '^$' -bench Convert -count 6
func BenchmarkConvert(b *testing.B) {
	data := benchTranscript(4 << 20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sourcetest.Convert(b, Source{}, data)
	}
}

// benchTranscript is a transcript of about size bytes: a session_start,
// then turns of a user's prompt, an assistant's thinking and call, the
// tool's output, a todo list, and an answer.
func benchTranscript(size int) []byte {
	r := rand.New(rand.NewPCG(7, 33))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	put := func(rec map[string]any) {
		if err := enc.Encode(rec); err != nil {
			panic(err)
		}
	}
	put(map[string]any{"type": "session_start", "id": "7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c", "title": "bench", "sessionTitle": "Bench", "owner": "u", "version": 2, "cwd": "/home/u/app"})
	n, parent := 0, ""
	add := func(typ string, rec map[string]any) {
		n++
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n)
		rec["type"], rec["id"], rec["timestamp"] = typ, id, fmt.Sprintf("2026-05-05T%02d:%02d:%02d.%03dZ", n/3600%24, n/60%60, n%60, n%1000)
		if typ == "message" {
			rec["parentId"] = parent
			parent = id
		}
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
	message := func(role string, content ...any) map[string]any {
		return map[string]any{"message": map[string]any{"role": role, "content": content}}
	}
	for turn := 0; buf.Len() < size; turn++ {
		add("message", message("user", map[string]any{"type": "text", "text": "<system-reminder>\n" + text(20) + "\n</system-reminder>"},
			map[string]any{"type": "text", "text": text(30)}))
		call := fmt.Sprintf("toolu_%d", turn)
		add("message", message("assistant", map[string]any{"type": "thinking", "thinking": text(40), "signature": "EsYBCkYIBxgCKkB", "signatureProvider": "anthropic"},
			map[string]any{"type": "tool_use", "id": call, "name": "Read", "input": map[string]any{"file_path": "/home/u/app/parser/parser.go"}}))
		add("message", message("user", map[string]any{"type": "tool_result", "tool_use_id": call, "content": text(600 + r.IntN(600))}))
		add("todo_state", map[string]any{"todos": map[string]any{"todos": []any{map[string]any{"id": "1", "content": text(8), "status": "in_progress", "priority": "high"}}}, "messageIndex": n})
		add("message", message("assistant", map[string]any{"type": "text", "text": text(80)}))
	}
	return buf.Bytes()
}
