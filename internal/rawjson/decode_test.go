package rawjson

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

var decodeSeeds = []string{
	`{"role":"user","content":"发生了一个错误，请重试"}`,
	`{"content":[{"type":"text","text":"line\nwith \"quotes\" and \u4e2d\u6587 \/ \\ \t"}],"n":-12.5e3,"ok":true,"none":null}`,
	`{"calls":[{"id":"call_1","name":"read_file","arguments":{"path":"/etc/hosts","n":0}}]}`,
	` { "a" : [ ] , "b" : { } , "a" : [1, 2.0, -0, 1E+2] } `,
	`{"deep":[[[[{"x":[{"y":"z"}]}]]]]}`,
	`{}`,
	`{"content":"\ud83d\ude00 and \uD83D\uDE00, as Python's json.dumps writes them"}`,
	`{"results":["ok\\","\\\"","` + strings.Repeat(`--- FAIL: TestFlush (0.01s)\n    期待 \"a\", 得到 \"b\"\t`, 200) + `"]}`,
}

// The fast path decodes usual payloads itself, as encoding/json does.
func TestDecodeObjectFast(t *testing.T) {
	for _, s := range decodeSeeds {
		got, ok := decodeObjectFast([]byte(s))
		if !ok {
			t.Errorf("%s: left to encoding/json", s)
			continue
		}
		var want map[string]any
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded %#v, encoding/json %#v", s, got, want)
		}
	}
}

// What the fast path leaves to encoding/json, and what encoding/json then
// says of it.
func TestDecodeObjectFallback(t *testing.T) {
	for _, tc := range []struct {
		payload string
		err     bool
	}{
		{`{"s":"\ud83d"}`, false},         // a lone surrogate: replaced
		{`{"s":"\ud83dx"}`, false},        // the same, before a character
		{`{"s":"\ude00\ud83d"}`, false},   // a pair in the wrong order
		{`{"s":"\ud83d\u0041"}`, false},   // a high surrogate, then no low one
		{`{"s":"\ud83d\ud83d"}`, false},   // two high ones
		{`{"s":"\ud83d\`, true},           // cut short
		{"{\"s\":\"\xff\"}", false},       // invalid UTF-8: replaced
		{`{"n":1e400}`, true},             // out of float64's range
		{`[1,2]`, true},                   // not an object
		{`null`, false},                   // nothing: a nil map
		{`{"a":1} {"b":2}`, true},         // two values
		{`{"a":01}`, true},                // not JSON
		{`{"a":"` + "\t" + `"}`, true},    // a raw control character
		{`{"a":"x\n` + "\t" + `"}`, true}, // the same, after an escape
		{`{"a":"x\` + "\t" + `"}`, true},  // a control character escaped
		{"{\"s\":\"\\n\xff\"}", false},    // invalid UTF-8 after an escape: replaced
		{`{"a":"x\n`, true},               // no closing quote
		{strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70), false}, // deep
	} {
		if _, ok := decodeObjectFast([]byte(tc.payload)); ok {
			t.Errorf("%q: decoded by the fast path", tc.payload)
		}
		got, err := DecodeObject([]byte(tc.payload))
		var want map[string]any
		wantErr := json.Unmarshal([]byte(tc.payload), &want)
		if (err != nil) != tc.err || (wantErr != nil) != tc.err || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %#v, %v; encoding/json %#v, %v", tc.payload, got, err, want, wantErr)
		}
	}
}

// FuzzDecodeObject: whatever the fast path decodes, encoding/json
// decodes to the same map.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := decodeObjectFast(b)
		if !ok {
			return
		}
		var want map[string]any
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("fast path decoded %q, encoding/json fails: %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decoded %#v, encoding/json %#v", b, got, want)
		}
	})
}

// BenchmarkDecodeObject decodes a message and a tool output, beside
// encoding/json's Unmarshal into a map, the baseline:
//
//	go test ./internal/rawjson -run '^$' -bench DecodeObject -count 6
func BenchmarkDecodeObject(b *testing.B) {
	for _, bc := range []struct{ name, payload string }{
		{"message", decodeSeeds[1]},
		{"tool-output", decodeSeeds[7]}, // 10 KB, an escape every 20 bytes
	} {
		payload := []byte(bc.payload)
		b.Run(bc.name+"/fast", func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				if _, err := DecodeObject(payload); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				var m map[string]any
				if err := json.Unmarshal(payload, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzDecodeValue: whatever the fast path decodes of any JSON value,
// encoding/json decodes to the same value.
func FuzzDecodeValue(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{`[1,"a",{"b":null}]`, `"x\ny"`, `-0.5e3`, `true`, `null`, `[[[]]]`, `[1,]`, `"\ud83d"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := decodeValueFast(b)
		if !ok {
			return
		}
		var want any
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("fast path decoded %q, encoding/json fails: %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decoded %#v, encoding/json %#v", b, got, want)
		}
	})
}
