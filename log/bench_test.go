package log

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var benchSizes = []int{100, 1 << 10, 16 << 10}

func benchPayload(size int) json.RawMessage {
	p, _ := json.Marshal(map[string]string{"role": "user", "content": strings.Repeat("x", size)})
	return p
}

// BenchmarkAppend measures Append against the baseline a plain O_APPEND
// write loop gives for lines of the same size, in the same run:
//
//	go test ./log -run '^$' -bench Append -count 6
func BenchmarkAppend(b *testing.B) {
	for _, size := range benchSizes {
		payload := benchPayload(size)
		b.Run(fmt.Sprintf("raw-write/%dB", size), func(b *testing.B) {
			line, _ := encodeLine(lineFields{ID: "01JD0000000000000000000000", Kind: KindMessage, Payload: payload, Meta: jsonEmptyObject, Date: FormatTime(benchTime)})
			f, err := os.OpenFile(filepath.Join(b.TempDir(), "raw.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := f.Write(line); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
		b.Run(fmt.Sprintf("library/%dB", size), func(b *testing.B) {
			tp := benchTape(b)
			e := Entry{Kind: KindMessage, Payload: payload}
			b.SetBytes(lineSize(b, tp, e))
			for b.Loop() {
				if _, err := tp.Append(context.Background(), e); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
		b.Run(fmt.Sprintf("library-batch100/%dB", size), func(b *testing.B) {
			tp := benchTape(b)
			batch := make([]Entry, 100)
			for i := range batch {
				batch[i] = Entry{Kind: KindMessage, Payload: payload}
			}
			b.SetBytes(100 * lineSize(b, tp, batch[0]))
			for b.Loop() {
				if _, err := tp.Append(context.Background(), batch...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(100*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

var benchTime = mustParseTime("2026-11-22T00:00:00Z")

func mustParseTime(s string) time.Time {
	t, err := ParseTime(s)
	if err != nil {
		panic(err)
	}
	return t
}

// benchTape is a tape in its steady state: its last handoff was a while
// ago. (Right after a handoff, Append lists the anchors folder for
// racyWindow before it trusts its cache again.)
func benchTape(b *testing.B) *Tape {
	b.Helper()
	ws, _, err := Init(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	tp, err := ws.Tape("main")
	if err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(ws.Abs(tp.anchorsPath()), old, old); err != nil {
		b.Fatal(err)
	}
	return tp
}

func lineSize(b *testing.B, tp *Tape, e Entry) int64 {
	b.Helper()
	_, line, err := tp.prepare(e, true)
	if err != nil {
		b.Fatal(err)
	}
	return int64(len(line))
}

// BenchmarkNormalizeObject normalizes a 16 KB payload written compact (as
// an import writes them) and one written as Python's json.dumps writes it
// (", " and ": "), beside json.Compact of the same text, the baseline.
func BenchmarkNormalizeObject(b *testing.B) {
	text := strings.Repeat("x y ", 4096)
	for _, tc := range []struct{ name, payload string }{
		{"compact", `{"role":"user","content":"` + text + `"}`},
		{"spaced", `{"role": "user", "content": "` + text + `"}`},
	} {
		raw := json.RawMessage(tc.payload)
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := normalizeObject(raw, "payload", 1<<20); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/json.Compact", func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := json.Compact(&buf, raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
