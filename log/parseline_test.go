package log

import (
	"bytes"
	"reflect"
	"testing"
	"unicode/utf8"
)

// lineSeeds are lines of a tape file: entries, chat messages, and lines
// that are not JSON objects.
var lineSeeds = []string{
	`{"id":1,"kind":"message","payload":{"role":"user","content":"hi"},"meta":{},"date":"2025-01-15T10:30:00+00:00"}`,
	`{"role":"user","content":"错误"}`, `{"kind":"x"}`, `[]`, `null`, `{}`, ` { } `, `{"a":1}x`, `{"a":01}`,
	`{"a":-0.5e+10,"b":[true,false,null,[],{}],"c":"\u00e9\"\\\/\b\f\n\r\t"}`, `{"a":"\u12"}`, `{"a":1.}`, `{"a":-}`,
	`{"a\u0062":1}`, `{"kind":"a","kind":"b"}`, `{"kind":null,"payload":null,"meta":null,"date":7}`,
	"{\"a\":\"tab\there\"}", `{"a" : [1 , 2] , "b":{"c":{"d":[[[]]]}}}`, `{"a":1,}`, `{,}`, `{"a"}`,
	`{"id":"x","kind":"tool_call","payload":{"calls":[{"id":"c1","function":{"name":"bash","arguments":"{\"cmd\":\"ls\"}"}}]}}`,
}

// FuzzParseLine checks that parseLine's fast path and encoding/json's path
// read every line alike, the reasons for bad lines aside (only the slow
// path explains JSON errors), and that a line of invalid UTF-8 is bad.
func FuzzParseLine(f *testing.F) {
	for _, s := range lineSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fast, fastReason := parseLine(line)
		if !utf8.Valid(line) { // refused before parsing; encoding/json would take it
			if fastReason == "" {
				t.Fatalf("parseLine(%q) took a line of invalid UTF-8: %+v", line, fast)
			}
			return
		}
		slow, slowReason := parseLineSlow(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")))
		if (fastReason == "") != (slowReason == "") || fastReason == "" && !reflect.DeepEqual(fast, slow) {
			t.Fatalf("parseLine(%q) = %+v %q; encoding/json's path: %+v %q", line, fast, fastReason, slow, slowReason)
		}
	})
}

// The fast path copies what it keeps: the reader reuses a line's buffer.
func TestParseLineCopies(t *testing.T) {
	line := []byte(`{"kind":"event","payload":{"name":"x"},"meta":{"m":1}}`)
	p, reason := parseLine(line)
	if reason != "" {
		t.Fatal(reason)
	}
	for i := range line {
		line[i] = 'z'
	}
	if string(p.payload) != `{"name":"x"}` || string(p.meta) != `{"m":1}` || p.kind != "event" {
		t.Fatalf("after the buffer was reused: %+v", p)
	}
}

// BenchmarkParseLine measures parseLine on a tool call line, against
// encoding/json's path:
//
//	go test ./log -run '^$' -bench ParseLine -count 6
func BenchmarkParseLine(b *testing.B) {
	line := []byte(`{"id":"01JH8Z3Y4T5V6W7X8Y9Z0A1B2C","kind":"tool_call","date":"2025-01-15T10:30:00.123456Z","payload":{"calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"grep -rn 'TODO' src/ | head -50\"}"}}],"content":"Let me look for the remaining work items in the source tree before I change anything."},"meta":{"model":"gpt-4o"}}`)
	for _, bc := range []struct {
		name  string
		parse func([]byte) (parsed, string)
	}{{"split", parseLine}, {"encoding-json", parseLineSlow}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, reason := bc.parse(line); reason != "" {
					b.Fatal(reason)
				}
			}
		})
	}
}
