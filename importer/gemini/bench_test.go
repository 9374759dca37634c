package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/benchcpu"
)

// BenchmarkConvert converts a generated recording of about 4 MB in each
// layout, as the importer reads it (the line reader, then the
// converter): "jsonl", Gemini CLI 0.39 and later, each model message
// written three times as it grows (its text, its tokens, its calls with
// their results); "json", the document of 0.38, the same session's
// messages once each, pretty-printed. Beside MB/s of wall time it reports
// the process's CPU time (benchcpu) and the MB/s of it, cpu-MB/s: on a
// machine shared with other work, the wall time says what the others did.
//
//	go test ./importer/gemini -run '^$' -bench Convert -benchtime 20x -count 6
func BenchmarkConvert(b *testing.B) {
	lines, doc := generated(b, 4<<20)
	for _, layout := range []struct {
		name, path string
		data       []byte
	}{{"jsonl", "/h/.gemini/tmp/p/chats/session-2026-05-10T14-20-c3d5e7f9.jsonl", lines}, {"json", "/h/.gemini/tmp/p/chats/session-2026-03-02T09-15-a1f0c9d2.json", doc}} {
		b.Run(layout.name, func(b *testing.B) {
			b.SetBytes(int64(len(layout.data)))
			cpu, start := benchcpu.Start(), processCPU()
			for b.Loop() {
				if n := convertOnce(b, layout.path, layout.data); n == 0 {
					b.Fatal("no entries")
				}
			}
			cpu.Report(b)
			b.ReportMetric(float64(len(layout.data))*float64(b.N)/1e6/(processCPU()-start).Seconds(), "cpu-MB/s")
		})
	}
}

// processCPU is the process's CPU time so far, as benchcpu reads it.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// convertOnce converts data as the importer does, and counts the entries.
func convertOnce(b *testing.B, path string, data []byte) int {
	c, err := newConverter(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	lr := tapelog.NewLineReader(bytes.NewReader(data), tapelog.DefaultMaxLineBytes, 0, 0)
	n := 0
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		outs, _ := c.Line(l)
		n += len(outs)
	}
	return n + len(c.Flush())
}

// generated is a session of about size bytes as a .jsonl and as a .json
// document.
func generated(b *testing.B, size int) (jsonl, doc []byte) {
	b.Helper()
	head := map[string]any{"sessionId": "c3d5e7f9-1a2b-4c3d-8e4f-5a6b7c8d9e0f", "projectHash": "p", "startTime": "2026-05-10T14:20:00.000Z", "lastUpdated": "2026-05-10T14:20:00.000Z", "kind": "main"}
	var lines bytes.Buffer
	var messages []any
	write := func(v any) {
		line, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		lines.Write(line)
		lines.WriteByte('\n')
	}
	write(head)
	words := strings.Repeat("the build fails because main.go does not import fmt; 编译失败 ", 8)
	output := strings.Repeat("src/a.go:3: // TODO: retry the request when the server says 503\n", 40)
	for turn := 0; lines.Len() < size; turn++ {
		at := fmt.Sprintf("2026-05-10T%02d:%02d:%02d.000Z", 14+turn/3600%10, turn/60%60, turn%60)
		user := map[string]any{"id": fmt.Sprintf("u-%d", turn), "timestamp": at, "type": "user", "content": []any{map[string]any{"text": words}}}
		write(user)
		write(map[string]any{"$set": map[string]any{"lastUpdated": at}})
		g := map[string]any{"id": fmt.Sprintf("g-%d", turn), "timestamp": at, "type": "gemini", "content": words, "model": "gemini-2.5-pro",
			"thoughts": []any{map[string]any{"subject": "Looking", "description": words, "timestamp": at}}}
		write(g)
		g["tokens"] = map[string]any{"input": 9000 + turn, "output": 120, "cached": 8000, "thoughts": 64, "tool": 0, "total": 9184 + turn}
		write(g)
		var calls []any
		for k := range 2 {
			id := fmt.Sprintf("grep_search-%d-%d", turn, k)
			calls = append(calls, map[string]any{"id": id, "name": "grep_search", "args": map[string]any{"pattern": "TODO", "path": "src"},
				"result": []any{map[string]any{"functionResponse": map[string]any{"id": id, "name": "grep_search", "response": map[string]any{"output": output}}}},
				"status": "success", "timestamp": at, "displayName": "SearchText", "description": "'TODO' in src", "renderOutputAsMarkdown": true})
		}
		g["toolCalls"] = calls
		write(g)
		messages = append(messages, user, g)
	}
	head["messages"] = messages
	doc, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	return lines.Bytes(), doc
}
