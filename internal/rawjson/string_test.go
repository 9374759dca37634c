package rawjson

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// encodingJSON is what the encoders must write: encoding/json's Encoder
// with SetEscapeHTML(false), without the newline it ends a value with.
func encodingJSON(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

var stringSeeds = []string{
	"", "01JD0000000000000000000000", "tool_result", "2026-11-23T18:00:00.000000Z",
	"发生了一个错误", "x\"y\\z", "a\u2028b\u2029c <&> \x7f", "\x00\x01\x1f\b\f\n\r\t",
	"bad \xff\xfe utf8 \xe2\x80", "\xe2\x80\xa8\xe2\x80", "\U0001F600 emoji",
}

// FuzzAppendString holds AppendString to encoding/json with
// SetEscapeHTML(false), byte for byte, for any Go string.
func FuzzAppendString(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prefix := []byte(`{"k":`)
		got := AppendString(prefix, s)
		if want := append([]byte(`{"k":`), encodingJSON(t, s)...); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

// FuzzAppendFloat holds AppendFloat to encoding/json for every float64
// encoding/json encodes, and checks that the others are null.
func FuzzAppendFloat(f *testing.F) {
	for _, x := range []float64{0, math.Copysign(0, -1), -1.5, 1e-7, -3.25e-12, 1e21, 123456789012345678, 0.000001, 1e20,
		math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1)} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		got := AppendFloat(nil, x)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if string(got) != "null" {
				t.Fatalf("AppendFloat(%v) = %s, want null", x, got)
			}
			return
		}
		if want := encodingJSON(t, x); !bytes.Equal(got, want) {
			t.Fatalf("AppendFloat(%v) = %s, encoding/json %s", x, got, want)
		}
	})
}

// BenchmarkAppendString encodes an id, as every appended line has, and a
// message with escapes and Chinese text, beside encoding/json's Encoder,
// the baseline:
//
//	go test ./internal/rawjson -run '^$' -bench AppendString -count 6
func BenchmarkAppendString(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"id", "01JD0000000000000000000000"},
		{"text", strings.Repeat("发生了一个错误，请重试。\n\t\"quoted\" <b> ", 20)},
	} {
		b.Run(bc.name+"/AppendString", func(b *testing.B) {
			b.SetBytes(int64(len(bc.s)))
			var buf []byte
			for b.Loop() {
				buf = AppendString(buf[:0], bc.s)
			}
		})
		b.Run(bc.name+"/encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(bc.s)))
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			var out []byte
			for b.Loop() {
				buf.Reset()
				if err := enc.Encode(bc.s); err != nil {
					b.Fatal(err)
				}
				out = append(out[:0], bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
			}
		})
	}
}
