package kimi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// BenchmarkConvert converts one generated wire.jsonl of about 4 MB of
// each agent's shape (prompts, thinking, calls, tool outputs of a few KB
// of code, usage, the loop's other records), as the importer does, and
// drops what it made: the converter's throughput, the part of an import
// that is the source's.
//
//	go test ./importer/kimi -run '^$' -bench Convert -count 6
func BenchmarkConvert(b *testing.B) {
	for _, agent := range []string{"kimi-cli", "kimi-code"} {
		b.Run(agent, func(b *testing.B) {
			data := benchTranscript(agent, 4<<20)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				c, err := newConverter(sourcetest.Path, nil)
				if err != nil {
					b.Fatal(err)
				}
				lr := tapelog.NewLineReader(bytes.NewReader(data), tapelog.DefaultMaxLineBytes, 0, 0)
				for {
					l, err := lr.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if _, err := c.Line(l); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// benchTranscript is a wire.jsonl of about size bytes in agent's shape:
// turns of a prompt, a thought and a call, the tool's output, the step's
// usage, and an answer.
func benchTranscript(agent string, size int) []byte {
	r := rand.New(rand.NewPCG(7, 33))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	n := 0
	add := func(v any) {
		n++
		if err := enc.Encode(v); err != nil {
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
	cli := func(typ string, payload any) {
		add(map[string]any{"timestamp": 1766217600 + float64(n)/8, "message": map[string]any{"type": typ, "payload": payload}})
	}
	code := func(rec map[string]any) {
		rec["agentId"], rec["time"] = "main", 1785722400000+n*37
		add(rec)
	}
	loop := func(ev map[string]any) { code(map[string]any{"type": "context.append_loop_event", "event": ev}) }
	if agent == "kimi-cli" {
		add(map[string]any{"type": "metadata", "protocol_version": "1.10"})
	} else {
		add(map[string]any{"type": "metadata", "protocol_version": "1.5", "created_at": 1785722400000})
	}
	for turn := 0; buf.Len() < size; turn++ {
		call := fmt.Sprintf("call_%d", turn)
		if agent == "kimi-cli" {
			cli("TurnBegin", map[string]any{"user_input": []any{map[string]any{"type": "text", "text": text(30)}}})
			cli("StepBegin", map[string]any{"n": 1})
			cli("ContentPart", map[string]any{"type": "think", "think": text(40), "encrypted": nil})
			cli("ToolCall", map[string]any{"type": "function", "id": call, "function": map[string]any{"name": "ReadFile", "arguments": `{"path": "parser/parser.go"}`}, "extras": nil})
			cli("StatusUpdate", map[string]any{"context_usage": 0.05, "token_usage": map[string]any{"input_other": 1000 + r.IntN(500), "output": r.IntN(400), "input_cache_read": 9000, "input_cache_creation": 0}, "message_id": call})
			cli("ToolResult", map[string]any{"tool_call_id": call, "return_value": map[string]any{"is_error": false, "output": text(600 + r.IntN(600)), "message": "", "display": []any{}, "extras": nil}})
			cli("StepBegin", map[string]any{"n": 2})
			cli("ContentPart", map[string]any{"type": "text", "text": text(80)})
			cli("TurnEnd", map[string]any{})
			continue
		}
		code(map[string]any{"type": "turn.prompt", "input": []any{map[string]any{"type": "text", "text": text(30)}}, "origin": "user"})
		loop(map[string]any{"type": "step.begin", "uuid": call, "turnId": "0", "step": 1})
		loop(map[string]any{"type": "content.part", "uuid": call + "a", "stepUuid": call, "part": map[string]any{"type": "think", "think": text(40)}})
		loop(map[string]any{"type": "tool.call", "uuid": call + "b", "stepUuid": call, "toolCallId": call, "name": "Read", "args": map[string]any{"path": "parser/parser.go"}})
		usage := map[string]any{"inputOther": 1000 + r.IntN(500), "output": r.IntN(400), "inputCacheRead": 9000, "inputCacheCreation": 0}
		loop(map[string]any{"type": "step.end", "uuid": call, "usage": usage, "finishReason": "tool_use"})
		code(map[string]any{"type": "usage.record", "model": "kimi-code/kimi-for-coding", "usage": usage, "usageScope": "turn"})
		loop(map[string]any{"type": "tool.result", "parentUuid": call + "b", "toolCallId": call, "result": map[string]any{"output": text(600 + r.IntN(600)), "isError": false}})
		loop(map[string]any{"type": "content.part", "uuid": call + "c", "stepUuid": call, "part": map[string]any{"type": "text", "text": text(80)}})
		code(map[string]any{"type": "turn.ended", "turnId": turn, "reason": "completed"})
	}
	return buf.Bytes()
}
