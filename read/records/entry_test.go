package records

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/tape-dev/tape/internal/rawjson"
)

// encodingJSON is what AppendJSON must write: encoding/json's Encoder
// with SetEscapeHTML(false), as the CLI printed records before.
func encodingJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var recordJSONSeeds = []struct {
	id, text, date string
	payload, meta  string
	seq            int64
	line           int
}{
	{"01J", "发生了一个错误", "2026-11-23T18:00:00Z", `{"role":"user","content":"发生了一个错误，请重试"}`, `{}`, 3, 7},
	{"x\"y\\z", "a\u2028b\u2029c <&> \x7f", "", ` { "a" : [ 1 , 2.50 , "x y" ] ,` + "\t\r\n" + `"b":"\" }"}  `, `{"k":"v"}`, 0, 0},
	{"\x00\x01\x1f\b\f\n\r\t", "bad \xff\xfe utf8 \xe2\x80", "d", `"just a string"`, ``, -1, -5},
	{"", "", "", `{"s":"\\\"","t":"\u2028 \\u2029 <>&"}`, `null`, 1 << 40, 1 << 30},
}

func FuzzRecordJSON(f *testing.F) {
	for _, s := range recordJSONSeeds {
		f.Add(s.id, s.text, s.date, s.payload, s.meta, s.seq, s.line)
	}
	f.Fuzz(func(t *testing.T, id, text, date, payload, meta string, seq int64, line int) {
		if !json.Valid([]byte(payload)) || (meta != "" && !json.Valid([]byte(meta))) {
			return // a record holds valid JSON: its entry was parsed
		}
		r := Entry{ID: id, Tape: text, Anchor: text + id, AnchorSeq: seq, Kind: id, Payload: json.RawMessage(payload), File: text, Line: line}
		if meta != "" {
			r.Meta = json.RawMessage(meta)
		}
		if date != "" {
			r.Date = &date
		}
		if got, want := r.AppendJSON(nil), encodingJSON(t, r); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON:\n got %s\nwant %s", got, want)
		}
	})
}

// The fields after a record's, as tape search --json writes them.
func TestAppendJSONFields(t *testing.T) {
	type hit struct {
		Entry
		Snippet string  `json:"snippet"`
		Rank    float64 `json:"rank"`
	}
	for _, rank := range []float64{0, -0.0, -1.5, 1e-7, -3.25e-12, 1e21, 123456789012345678, 0.000001, 1e20, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		for _, s := range recordJSONSeeds {
			r := Entry{ID: s.id, Payload: json.RawMessage(s.payload)}
			if s.meta != "" {
				r.Meta = json.RawMessage(s.meta)
			}
			got := r.AppendJSONFields(nil)
			got = rawjson.AppendString(append(got, `,"snippet":`...), s.text)
			got = append(rawjson.AppendFloat(append(got, `,"rank":`...), rank), '}', '\n')
			if want := encodingJSON(t, hit{Entry: r, Snippet: s.text, Rank: rank}); !bytes.Equal(got, want) {
				t.Errorf("rank %v:\n got %s\nwant %s", rank, got, want)
			}
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := rawjson.AppendFloat(nil, f); string(got) != "null" {
			t.Errorf("rawjson.AppendFloat(%v) = %s, want null", f, got)
		}
	}
}

func BenchmarkRecordJSON(b *testing.B) {
	output := `{"results":["` + string(bytes.Repeat([]byte(`--- FAIL: TestFlush (0.01s)\n    want \"a\", got \"b\"\t`), 200)) + `"]}`
	d := "2026-11-23T18:00:00Z"
	r := Entry{ID: "01JD0000000000000000000000", Tape: "main", Anchor: "003_review", AnchorSeq: 3, Kind: "tool_result",
		Date: &d, Payload: json.RawMessage(output), Meta: json.RawMessage(`{}`), File: "tapes/main/anchors/003_review/tool_results.jsonl", Line: 42}
	b.Run("AppendJSON", func(b *testing.B) {
		b.SetBytes(int64(len(output)))
		var buf []byte
		for b.Loop() {
			buf = r.AppendJSON(buf[:0])
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(output)))
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for b.Loop() {
			buf.Reset()
			if err := enc.Encode(r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
