package log

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

var splitSeeds = []string{
	`{"id":1,"kind":"message","payload":{"role":"user","content":"hi"},"meta":{},"date":"2025-01-15T10:30:00+00:00"}`,
	`{"role":"user","content":"错误"}`, `{"kind":"x"}`, `[]`, `null`, `{}`, ` { } `, `{"a":1}x`, `{"a":01}`,
	`{"a":-0.5e+10,"b":[true,false,null,[],{}],"c":"\u00e9\"\\\/\b\f\n\r\t"}`, `{"a":"\u12"}`, `{"a":1.}`, `{"a":-}`,
	`{"a\u0062":1}`, `{"kind":"a","kind":"b"}`, `{"kind":null,"payload":null,"meta":null,"date":7}`,
	"{\"a\":\"tab\there\"}", `{"a" : [1 , 2] , "b":{"c":{"d":[[[]]]}}}`, `{"a":1,}`, `{,}`, `{"a"}`,
	`{"id":"x","kind":"tool_call","payload":{"calls":[{"id":"c1","function":{"name":"bash","arguments":"{\"cmd\":\"ls\"}"}}]}}`,
}

// FuzzSplitObject checks splitObject against encoding/json: it accepts no
// line that encoding/json rejects as an object, finds the same members
// (the last of repeated names), and gives up only on the unusual lines it
// says it leaves to encoding/json.
func FuzzSplitObject(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !utf8.Valid(line) {
			return // parseLine checks it first; encoding/json would replace bad bytes
		}
		members, ok := splitObject(line, nil)
		var want map[string]json.RawMessage
		err := json.Unmarshal(line, &want)
		isObject := err == nil && want != nil
		if !ok {
			if isObject && !bytes.Contains(line, []byte(`\`)) && strings.Count(string(line), "[")+strings.Count(string(line), "{") < maxSplitDepth {
				t.Fatalf("splitObject gave up on the valid object %q", line)
			}
			return
		}
		if !isObject {
			t.Fatalf("splitObject accepted %q, which encoding/json rejects (%v)", line, err)
		}
		got := map[string]json.RawMessage{}
		for _, m := range members {
			got[string(m.key)] = m.value
		}
		if len(got) != len(want) {
			t.Fatalf("splitObject(%q) found %d names, encoding/json %d", line, len(got), len(want))
		}
		for k, v := range want {
			if last, _ := lookup(members, k); !bytes.Equal(last, v) {
				t.Fatalf("splitObject(%q)[%q] = %q, encoding/json %q", line, k, last, v)
			}
		}
	})
}

// FuzzParseLine checks that parseLine's fast path and encoding/json's path
// read every line alike, the reasons for bad lines aside (only the slow
// path explains JSON errors), and that a line of invalid UTF-8 is bad.
func FuzzParseLine(f *testing.F) {
	for _, s := range splitSeeds {
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

// FuzzCompactObject checks compactObject against json.Compact: it says
// yes exactly when the text is a JSON object that Compact returns as it
// is (nesting deeper than it follows aside, which it leaves to Compact).
func FuzzCompactObject(f *testing.F) {
	for _, s := range splitSeeds {
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
		got := compactObject(raw)
		deep := strings.Count(string(raw), "[")+strings.Count(string(raw), "{") >= maxSplitDepth
		if got != want && !(deep && !got) {
			t.Fatalf("compactObject(%q) = %v, json.Compact says %v (%v)", raw, got, want, err)
		}
	})
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
