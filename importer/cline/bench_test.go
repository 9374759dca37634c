package cline

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
	"github.com/tape-dev/tape/testkit/benchcpu"
)

// BenchmarkConvert converts one generated task file of about 4 MB, as
// the importer does (the document on one line, without a newline after
// it), and drops what it made: the converter's throughput, the part of an
// import that is the source's. native is the model's messages with
// native tool calls (Cline 3.3x on, Roo Code), xml the ones whose calls
// are written as XML in the text (Cline 2.0 to 3.3x), ui what the person
// saw. cpu-ms/op is the CPU time of an op, which a machine shared with
// other work does not stretch as it does the wall time.
//
//	go test ./importer/cline -run '^$' -bench Convert -count 6
func BenchmarkConvert(b *testing.B) {
	for _, kind := range []string{"native", "xml", "ui"} {
		data := benchTask(kind, 4<<20)
		b.Run(kind, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			cpu := benchcpu.Start()
			for b.Loop() {
				sourcetest.Convert(b, Source{}, data)
			}
			cpu.Report(b)
		})
	}
}

// benchTask is a task file of about size bytes, of kind native, xml or
// ui: turns of a prompt with the context the agent adds, the model's
// thinking and call, the tool's output of a few KB, and an answer; or
// the messages the person saw of them, with each request's tokens.
func benchTask(kind string, size int) []byte {
	r := rand.New(rand.NewPCG(7, 34))
	words := strings.Fields("parse token slice empty reader 修复 测试 error return value func nil buffer { } \"quoted\"")
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
	env := "<environment_details>\n# VSCode Visible Files\nsrc/parser.go\n\n# Current Time\n2026-01-10 00:18:41\n</environment_details>"
	var items []any
	n, ts := 0, int64(1768004321987)
	add := func(item map[string]any) {
		ts += 1000 + int64(r.IntN(5000))
		item["ts"] = ts
		items = append(items, item)
		n += len(fmt.Sprint(item))
	}
	for turn := 0; n < size; turn++ {
		call := fmt.Sprintf("toolu_vrtx_%08d", turn)
		switch kind {
		case "native":
			add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text(30)}, map[string]any{"type": "text", "text": env}}})
			add(map[string]any{"role": "assistant", "id": "gen-" + call, "content": []any{
				map[string]any{"type": "thinking", "thinking": text(40), "signature": "EqQBCkYIBxgCKkA1"},
				map[string]any{"type": "text", "text": text(20)},
				map[string]any{"type": "tool_use", "id": call, "name": "read_file", "input": map[string]any{"path": "src/parser.go"}},
			}, "modelInfo": map[string]any{"modelId": "claude-opus-4-5", "providerId": "cline", "mode": "act"}})
			add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": text(600 + r.IntN(600))},
				map[string]any{"type": "text", "text": env}}})
			add(map[string]any{"role": "assistant", "content": text(80)})
		case "xml":
			add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text(30)}, map[string]any{"type": "text", "text": env}}})
			add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "<thinking>\n" + text(40) + "\n</thinking>\n\n<read_file>\n<path>src/parser.go</path>\n</read_file>"}}})
			add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "[read_file for 'src/parser.go'] Result:"},
				map[string]any{"type": "text", "text": text(600 + r.IntN(600))}, map[string]any{"type": "text", "text": env}}})
			add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text(80)}}})
		default:
			info, _ := json.Marshal(map[string]any{"request": text(200), "tokensIn": 12, "tokensOut": 300, "cacheWrites": 900, "cacheReads": 30000, "cost": 0.01})
			add(map[string]any{"type": "say", "say": "api_req_started", "text": string(info)})
			add(map[string]any{"type": "say", "say": "reasoning", "text": text(40)})
			add(map[string]any{"type": "say", "say": "tool", "text": `{"tool":"readFile","path":"src/parser.go"}`})
			add(map[string]any{"type": "say", "say": "command_output", "text": text(600 + r.IntN(600))})
			add(map[string]any{"type": "say", "say": "checkpoint_created", "lastCheckpointHash": fmt.Sprintf("%040x", turn)})
			add(map[string]any{"type": "say", "say": "text", "text": text(80)})
		}
	}
	data, err := json.Marshal(items)
	if err != nil {
		panic(err)
	}
	return data
}
