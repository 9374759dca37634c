package pi

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/benchcpu"
)

// BenchmarkConvert converts a generated session file of about 4 MB (a
// Pi session as it is written: prompts, assistant turns of thinking, text
// and tool calls with usage, tool results of a few KB, a branch now and
// then): the converter's throughput, in MB/s of transcript, without the
// driver or the tapes (importer's BenchmarkImportClaude has those). On a
// shared machine the wall time says mostly what others did meanwhile: the
// CPU time it spent (cpu-ms/op) gives the throughput it would have alone.
func BenchmarkConvert(b *testing.B) {
	data := generate(4<<20, 7)
	var lines []tapelog.RawLine
	lr := tapelog.NewLineReader(bytes.NewReader(data), tapelog.DefaultMaxLineBytes, 0, 0)
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		l.Data = bytes.Clone(l.Data)
		lines = append(lines, l)
	}
	b.SetBytes(int64(len(data)))
	cpu := benchcpu.Start()
	for b.Loop() {
		conv, err := newConverter("/h/.pi/agent/sessions/--a--/2026-03-01T10-00-00-000Z_5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d.jsonl", nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range lines {
			if _, err := conv.Line(l); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu.Report(b)
}

// generate makes a Pi session file of about size bytes from seed.
func generate(size int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 33))
	words := strings.Fields("the validator trims a password twice before it checks the length 修复 登录 错误 and the test expects eight characters where the spec says six")
	text := func(n int) string {
		var s strings.Builder
		for i := range n {
			if i > 0 {
				s.WriteByte(' ')
			}
			s.WriteString(words[r.IntN(len(words))])
			if r.IntN(12) == 0 {
				s.WriteString(`\n`)
			}
		}
		return s.String()
	}
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/home/u/proj"}` + "\n")
	n, parent := 0, "null"
	var ids []string
	entry := func(body string) {
		n++
		id := fmt.Sprintf("%08x", n)
		if len(ids) > 4 && r.IntN(200) == 0 {
			parent = `"` + ids[r.IntN(len(ids))] + `"` // the user went back
		}
		fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-03-01T10:%02d:%02d.%03dZ","message":%s}`+"\n", id, parent, n/60%60, n%60, n%1000, body)
		parent = `"` + id + `"`
		ids = append(ids, id)
	}
	for b.Len() < size {
		entry(sourcetest.JSONLine(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text(20 + r.IntN(60))}}, "timestamp": 1772359205000 + n}))
		for range 1 + r.IntN(4) {
			call := fmt.Sprintf("toolu_%06d", n)
			entry(fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":"%s","thinkingSignature":"EqQBCkYIBxgCKkB"},{"type":"text","text":"%s"},{"type":"toolCall","id":"%s","name":"read","arguments":{"path":"src/auth/validate.ts","offset":%d}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":%d,"output":%d,"cacheRead":%d,"cacheWrite":%d,"totalTokens":0,"cost":{"input":0.001,"output":0.002,"cacheRead":0.0003,"cacheWrite":0.004,"total":0.0073}},"stopReason":"toolUse","timestamp":%d}`,
				text(30+r.IntN(80)), text(10+r.IntN(40)), call, r.IntN(400), r.IntN(3000), r.IntN(500), r.IntN(60000), r.IntN(4000), 1772359205000+n))
			entry(fmt.Sprintf(`{"role":"toolResult","toolCallId":"%s","toolName":"read","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":%d}`, call, text(300+r.IntN(900)), 1772359205000+n))
		}
		entry(fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"%s"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":120,"output":%d,"cacheRead":5000,"cacheWrite":0,"totalTokens":0,"cost":{"input":0.0003,"output":0.0005,"cacheRead":0.0015,"cacheWrite":0,"total":0.0023}},"stopReason":"stop","timestamp":%d}`, text(40+r.IntN(120)), r.IntN(400), 1772359205000+n))
	}
	return b.Bytes()
}
