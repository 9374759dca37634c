package aider

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/sourcetest"
	"github.com/tape-dev/tape/testkit/benchcpu"
)

// BenchmarkConvert converts one generated chat history of about 4 MB
// (runs of Aider's announcements, prompts, answers with a thinking and
// SEARCH/REPLACE blocks of a few KB of code, usage lines and edit
// results), as the importer does, and drops what it made: the
// converter's throughput, the part of an import that is the source's.
// cpu-MB/s (the bytes converted per second of the process's CPU time, GC
// included) says on a shared machine what MB/s says on an idle one.
//
//	go test ./importer/aider -run '^$' -bench Convert -count 6
func BenchmarkConvert(b *testing.B) {
	data := benchHistory(4 << 20)
	b.SetBytes(int64(len(data)))
	start := time.Duration(benchcpu.Start())
	for b.Loop() {
		sourcetest.Convert(b, Source{}, data)
	}
	cpu := time.Duration(benchcpu.Start()) - start
	b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
}

// benchHistory is a chat history of about size bytes: runs of 24 turns
// (about 150 KB each).
func benchHistory(size int) []byte {
	r := rand.New(rand.NewPCG(7, 41))
	words := strings.Fields("parse token slice empty reader 修复 测试 error return value func nil buffer")
	text := func(k int) string {
		var s strings.Builder
		for i := range k {
			s.WriteString(words[r.IntN(len(words))])
			if i%12 == 11 {
				s.WriteString("\n")
			} else {
				s.WriteByte(' ')
			}
		}
		return strings.TrimSpace(s.String())
	}
	code := func(lines int) string {
		var s strings.Builder
		for i := range lines {
			fmt.Fprintf(&s, "\tif err := p.%s(%d); err != nil { return %s }\n", words[r.IntN(len(words))], i, words[r.IntN(len(words))])
		}
		return strings.TrimSuffix(s.String(), "\n")
	}
	var b strings.Builder
	for run := 0; b.Len() < size; run++ {
		fmt.Fprintf(&b, "\n# aider chat started at 2025-06-%02d %02d:%02d:00\n\n", 1+run/24%28, run%24, run%60)
		b.WriteString("> aider --model sonnet  \n> Aider v0.86.1  \n> Main model: anthropic/claude-sonnet-4-20250514 with diff edit format, infinite output  \n> Weak model: anthropic/claude-3-5-haiku-20241022  \n> Git repo: .git with 420 files  \n> Repo-map: using 4096 tokens, auto refresh  \n")
		for turn := 0; turn < 24 && b.Len() < size; turn++ {
			fmt.Fprintf(&b, "\n#### %s  \n#### %s  \n", strings.ReplaceAll(text(20), "\n", " "), strings.ReplaceAll(text(10), "\n", " "))
			fmt.Fprintf(&b, "\n<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\n%s\n\n</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\n%s\n\n", text(40), text(60))
			for k := range 2 {
				fmt.Fprintf(&b, "src/parser%d.go\n```go\n<<<<<<< SEARCH\n%s\n=======\n%s\n>>>>>>> REPLACE\n```\n\n", k, code(20+r.IntN(30)), code(20+r.IntN(30)))
			}
			fmt.Fprintf(&b, "%s\n\n", text(30))
			fmt.Fprintf(&b, "> Tokens: %d.%dk sent, %d received. Cost: $0.0%d message, $0.%d session.  \n", 2+r.IntN(7), r.IntN(10), r.IntN(900), 1+r.IntN(9), 10+turn)
			b.WriteString("> Applied edit to src/parser0.go  \n> Applied edit to src/parser1.go  \n> Commit 1a2b3c4 fix: guard the empty reader  \n")
		}
	}
	return []byte(b.String())
}
