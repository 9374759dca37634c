package rawjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzAppendCompact holds AppendCompact to encoding/json: of any valid
// JSON text it writes what an Encoder with SetEscapeHTML(false) writes of
// it as a json.RawMessage (json.Compact's text), and null of none.
func FuzzAppendCompact(f *testing.F) {
	for _, s := range objectSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{``, ` "a\"b\\" `, `{"s":"\\\"","t":"\u2028 \\u2029 <>&"}`, "[1,\t2 ,\r\n3]", `"just a string"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > 0 && !json.Valid(raw) {
			return // a record holds valid JSON: its entry was parsed
		}
		var v json.RawMessage // nil for empty raw, as a record's missing meta
		if len(raw) > 0 {
			v = raw
		}
		got := AppendCompact([]byte(`{"payload":`), raw)
		want := append([]byte(`{"payload":`), encodingJSON(t, v)...)
		if !bytes.Equal(got, want) {
			t.Fatalf("AppendCompact(%q):\n got %s\nwant %s", raw, got, want)
		}
	})
}

// FuzzCompactObject checks IsCompactObject against json.Compact: it says
// yes exactly when the text is a JSON object that Compact returns as it
// is (nesting deeper than it follows aside, which it leaves to Compact).
func FuzzCompactObject(f *testing.F) {
	for _, s := range objectSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":"x y","b":[1,2]}`))
	f.Add([]byte("{\"a\":1}\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !utf8.Valid(raw) {
			return // normalizeObject checks it first
		}
		var buf bytes.Buffer
		err := json.Compact(&buf, raw)
		want := err == nil && bytes.Equal(buf.Bytes(), raw) && len(raw) > 0 && raw[0] == '{'
		got := IsCompactObject(raw)
		if got != want && !(deep(raw) && !got) {
			t.Fatalf("IsCompactObject(%q) = %v, json.Compact says %v (%v)", raw, got, want, err)
		}
	})
}

// toolOutput is a tool result of 10 KB, an escape every 20 bytes.
var toolOutput = `{"results":["` + strings.Repeat(`--- FAIL: TestFlush (0.01s)\n    want \"a\", got \"b\"\t`, 200) + `"]}`

// BenchmarkAppendCompact copies a tool result as a record's payload,
// beside encoding/json's Encoder writing it as a json.RawMessage, the
// baseline:
//
//	go test ./internal/rawjson -run '^$' -bench AppendCompact -count 6
func BenchmarkAppendCompact(b *testing.B) {
	raw := []byte(toolOutput)
	b.Run("AppendCompact", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		var buf []byte
		for b.Loop() {
			buf = AppendCompact(buf[:0], raw)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for b.Loop() {
			buf.Reset()
			if err := enc.Encode(json.RawMessage(raw)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkIsCompactObject checks a 16 KB payload written compact, as an
// import writes them, beside json.Compact of it, what an append did
// before:
//
//	go test ./internal/rawjson -run '^$' -bench IsCompactObject -count 6
func BenchmarkIsCompactObject(b *testing.B) {
	raw := []byte(`{"role":"user","content":"` + strings.Repeat("x y ", 4096) + `"}`)
	b.Run("IsCompactObject", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if !IsCompactObject(raw) {
				b.Fatal("not compact")
			}
		}
	})
	b.Run("json.Compact", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			if err := json.Compact(&buf, raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
