package rawjson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// FuzzObject holds Object to encoding/json: the object it writes is the
// text of its members, each as encoding/json writes it, and valid JSON.
func FuzzObject(f *testing.F) {
	f.Add("role", "user", "content", []byte(`{"a":[1,2]}`), "n", int64(-7), "ok", "")
	f.Add("", "x\"y\\z <&>\u2028", "发生", []byte(``), "\x00", int64(1)<<40, "\xff", "s")
	f.Fuzz(func(t *testing.T, k1, v1, k2 string, raw []byte, k3 string, n int64, k4, v5 string) {
		if len(raw) > 0 && !json.Valid(raw) {
			return // a raw member is valid JSON text
		}
		got := NewObject().Str(k1, v1).Raw(k2, raw).Int(k3, n).True(k4).StrIf("s", v5).Done()
		if len(raw) == 0 {
			raw = []byte("null")
		}
		var want bytes.Buffer
		want.WriteByte('{')
		for i, m := range [][2][]byte{
			{encodingJSON(t, k1), encodingJSON(t, v1)}, {encodingJSON(t, k2), raw},
			{encodingJSON(t, k3), []byte(strconv.FormatInt(n, 10))}, {encodingJSON(t, k4), []byte("true")},
		} {
			if i > 0 {
				want.WriteByte(',')
			}
			want.Write(m[0])
			want.WriteByte(':')
			want.Write(m[1])
		}
		if v5 != "" {
			want.WriteString(`,"s":`)
			want.Write(encodingJSON(t, v5))
		}
		want.WriteByte('}')
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("Object:\n got %s\nwant %s", got, want.Bytes())
		}
		if !json.Valid(got) {
			t.Fatalf("Object wrote invalid JSON: %s", got)
		}
	})
}

func TestArray(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   string
	}{{nil, `[]`}, {[]string{`1`}, `[1]`}, {[]string{`{"a":1}`, `"b"`, `null`}, `[{"a":1},"b",null]`}} {
		values := make([][]byte, len(tc.values))
		for i, v := range tc.values {
			values[i] = []byte(v)
		}
		if got := Array(values...); string(got) != tc.want {
			t.Errorf("Array(%q) = %s, want %s", tc.values, got, tc.want)
		}
	}
}

// BenchmarkObject writes a tool result's payload, a 10 KB output as a raw
// member, beside encoding/json's Encoder of the same map, the baseline
// (what the importer's mustJSON does):
//
//	go test ./internal/rawjson -run '^$' -bench '^BenchmarkObject$' -count 6
func BenchmarkObject(b *testing.B) {
	output := json.RawMessage(strings.TrimSuffix(strings.TrimPrefix(toolOutput, `{"results":`), `}`))
	b.Run("Object", func(b *testing.B) {
		b.SetBytes(int64(len(output)))
		for b.Loop() {
			res := NewObject().Str("tool_call_id", "toolu_01").Raw("content", output).Done()
			_ = NewObject().Raw("results", Array(res)).Done()
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(output)))
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for b.Loop() {
			buf.Reset()
			res := map[string]any{"tool_call_id": "toolu_01", "content": output}
			if err := enc.Encode(map[string]any{"results": []any{res}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
