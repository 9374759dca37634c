package rawjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// arraySeeds are arrays, near-arrays and non-arrays, as a Cline task's
// files hold them.
var arraySeeds = []string{
	`[]`, ` [ ] `, `[1]`, `[1,]`, `[,1]`, `[1 2]`, `[1]x`, `[[],{},"a",null,true,false,-0.5e+10]`, `{"a":1}`, `null`, `"x"`,
	`[{"role":"user","content":[{"type":"text","text":"<task>\n修复\n</task>"}]},{"role":"assistant","content":"ok"}]`,
	`[{"ts":1,"type":"say","say":"text","text":"hi"}`, `[{"a":"\u12"}]`, `[{"a\u0062":1}]`, "[\n\t{\"a\": 1},\n\t{\"b\": [2]}\n]",
}

// FuzzSplitArray checks SplitArray against encoding/json: it accepts no
// text that encoding/json rejects as an array, finds the same items, and
// gives up only on arrays nested deeper than it follows.
func FuzzSplitArray(f *testing.F) {
	for _, s := range arraySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if !utf8.Valid(text) {
			return // its callers check it first
		}
		items, ok := SplitArray(text, nil)
		var want []json.RawMessage
		err := json.Unmarshal(text, &want)
		isArray := err == nil && want != nil
		if !ok {
			if isArray && !deep(text) {
				t.Fatalf("SplitArray gave up on the valid array %q", text)
			}
			return
		}
		if !isArray {
			t.Fatalf("SplitArray accepted %q, which encoding/json rejects (%v)", text, err)
		}
		if len(items) != len(want) {
			t.Fatalf("SplitArray(%q) found %d items, encoding/json %d", text, len(items), len(want))
		}
		for i := range want {
			if !bytes.Equal(items[i], want[i]) {
				t.Fatalf("SplitArray(%q)[%d] = %q, encoding/json %q", text, i, items[i], want[i])
			}
		}
	})
}

// BenchmarkSplitArray splits a task's messages, a 10 MB array of tool
// results, beside encoding/json's Valid alone, the baseline:
//
//	go test ./internal/rawjson -run '^$' -bench SplitArray -count 6
func BenchmarkSplitArray(b *testing.B) {
	var doc strings.Builder
	doc.WriteString("[")
	for i := range 2000 {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":%q}],"ts":1735000000000}`,
			i, strings.Repeat("a line of a file, with code { } \" and more\n", 120))
	}
	doc.WriteString("]")
	text := []byte(doc.String())
	b.Run("SplitArray", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		items := make([][]byte, 0, 2000)
		for b.Loop() {
			if _, ok := SplitArray(text, items[:0]); !ok {
				b.Fatal("not an array")
			}
		}
	})
	b.Run("Valid", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if !json.Valid(text) {
				b.Fatal("not valid")
			}
		}
	})
}
