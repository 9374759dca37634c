package rawjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// objectSeeds are objects, near-objects and non-objects, as lines of a
// tape file hold them.
var objectSeeds = []string{
	`{"id":1,"kind":"message","payload":{"role":"user","content":"hi"},"meta":{},"date":"2025-01-15T10:30:00+00:00"}`,
	`{"role":"user","content":"错误"}`, `{"kind":"x"}`, `[]`, `null`, `{}`, ` { } `, `{"a":1}x`, `{"a":01}`,
	`{"a":-0.5e+10,"b":[true,false,null,[],{}],"c":"\u00e9\"\\\/\b\f\n\r\t"}`, `{"a":"\u12"}`, `{"a":1.}`, `{"a":-}`,
	`{"a\u0062":1}`, `{"kind":"a","kind":"b"}`, `{"kind":null,"payload":null,"meta":null,"date":7}`,
	"{\"a\":\"tab\there\"}", `{"a" : [1 , 2] , "b":{"c":{"d":[[[]]]}}}`, `{"a":1,}`, `{,}`, `{"a"}`,
	`{"id":"x","kind":"tool_call","payload":{"calls":[{"id":"c1","function":{"name":"bash","arguments":"{\"cmd\":\"ls\"}"}}]}}`,
}

// deep reports whether text may nest deeper than the scanner follows.
func deep(text []byte) bool {
	return strings.Count(string(text), "[")+strings.Count(string(text), "{") >= maxDepth
}

// FuzzSplitObject checks SplitObject against encoding/json: it accepts no
// line that encoding/json rejects as an object, finds the same members
// (the last of repeated names), and gives up only on the unusual lines it
// says it leaves to encoding/json.
func FuzzSplitObject(f *testing.F) {
	for _, s := range objectSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !utf8.Valid(line) {
			return // parseLine checks it first; encoding/json would replace bad bytes
		}
		members, ok := SplitObject(line, nil)
		var want map[string]json.RawMessage
		err := json.Unmarshal(line, &want)
		isObject := err == nil && want != nil
		if !ok {
			if isObject && !bytes.Contains(line, []byte(`\`)) && !deep(line) {
				t.Fatalf("SplitObject gave up on the valid object %q", line)
			}
			return
		}
		if !isObject {
			t.Fatalf("SplitObject accepted %q, which encoding/json rejects (%v)", line, err)
		}
		got := map[string]json.RawMessage{}
		for _, m := range members {
			got[string(m.Key)] = m.Value
		}
		if len(got) != len(want) {
			t.Fatalf("SplitObject(%q) found %d names, encoding/json %d", line, len(got), len(want))
		}
		for k, v := range want {
			if last, _ := Lookup(members, k); !bytes.Equal(last, v) {
				t.Fatalf("SplitObject(%q)[%q] = %q, encoding/json %q", line, k, last, v)
			}
		}
	})
}

// FuzzSplitObjectIn checks SplitObjectIn against SplitObject: the same
// members of the line, and those of the last "payload" that is an object
// as SplitObject finds them in its text; it gives up where SplitObject
// gives up on the line or on any "payload" that is an object.
func FuzzSplitObjectIn(f *testing.F) {
	for _, s := range objectSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"timestamp":"t","type":"response_item","payload":{"type":"message","content":[{"text":"hi"}]}}`,
		`{"payload":{"a":1},"payload":{"b":[2]}}`, `{"payload":{"a":1},"payload":"x"}`, `{"payload":{"a\u0062":1},"payload":{}}`,
		`{"payload":{ "a" : { "b" : [ ] } , "c":null }}`, `{"payload":{}}`, `{"payload":{"a":1,}}`, `{"payload":{"a":1}`, `{"payload":[{"a":1}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !utf8.Valid(line) {
			return
		}
		members, inner, ok := SplitObjectIn(line, nil, "payload", nil)
		wantMembers, wantOK := SplitObject(line, nil)
		var wantInner []Member
		for _, m := range wantMembers {
			if string(m.Key) != "payload" {
				continue
			}
			wantInner = nil
			if m.Value[0] == '{' {
				var innerOK bool
				if wantInner, innerOK = SplitObject(m.Value, nil); !innerOK {
					wantOK = false // a key with an escape
				}
			}
		}
		if ok != wantOK {
			t.Fatalf("SplitObjectIn(%q) ok = %v, want %v", line, ok, wantOK)
		}
		if !ok {
			return
		}
		same := func(what string, got, want []Member) {
			if len(got) != len(want) {
				t.Fatalf("SplitObjectIn(%q): %d %s, want %d", line, len(got), what, len(want))
			}
			for i := range got {
				if !bytes.Equal(got[i].Key, want[i].Key) || !bytes.Equal(got[i].Value, want[i].Value) {
					t.Fatalf("SplitObjectIn(%q): %s %d = %q: %q, want %q: %q", line, what, i, got[i].Key, got[i].Value, want[i].Key, want[i].Value)
				}
			}
		}
		same("members", members, wantMembers)
		same("payload members", inner, wantInner)
	})
}

// PlainString takes strings without escapes, and leaves the rest.
func TestPlainString(t *testing.T) {
	for _, tc := range []struct {
		value, want string
		ok          bool
	}{
		{`"abc"`, "abc", true}, {`""`, "", true}, {`"错误"`, "错误", true},
		{`"a\"b"`, "", false}, {`"\u0041"`, "", false}, {`null`, "", false}, {`7`, "", false}, {`"`, "", false},
	} {
		if got, ok := PlainString([]byte(tc.value)); got != tc.want || ok != tc.ok {
			t.Errorf("PlainString(%s) = %q, %v; want %q, %v", tc.value, got, ok, tc.want, tc.ok)
		}
	}
}

// BenchmarkSplitObject splits a tool call line into its members, beside
// encoding/json's Unmarshal into a map of raw members, the baseline:
//
//	go test ./internal/rawjson -run '^$' -bench SplitObject -count 6
func BenchmarkSplitObject(b *testing.B) {
	line := []byte(`{"id":"01JH8Z3Y4T5V6W7X8Y9Z0A1B2C","kind":"tool_call","date":"2025-01-15T10:30:00.123456Z","payload":{"calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"grep -rn 'TODO' src/ | head -50\"}"}}],"content":"Let me look for the remaining work items in the source tree before I change anything."},"meta":{"model":"gpt-4o"}}`)
	b.Run("SplitObject", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		var buf [8]Member
		for b.Loop() {
			if _, ok := SplitObject(line, buf[:0]); !ok {
				b.Fatal("gave up")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(line, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A string is read eight bytes at a time: a quote, a backslash or a
// control character at any place in or after a block of eight is found,
// and bytes that only look like them in part (0x20, DEL, UTF-8) are not.
func TestStringsEightBytesAtATime(t *testing.T) {
	t.Parallel()
	for _, odd := range []string{`\"`, `\\`, `\n`, `\u0041`, "\x01", "\x1f", "\x00", " ", "\x7f", "é", "错", `"`, `\x`, "\xff"} {
		for before := range 20 {
			for _, after := range []int{0, 1, 7, 8, 9, 17} {
				line := []byte(`{"k":"` + strings.Repeat("a", before) + odd + strings.Repeat("b", after) + `","n":1}`)
				_, ok := SplitObject(line, nil)
				if want := json.Valid(line); ok != want {
					t.Errorf("SplitObject(%q) ok %v, json.Valid %v", line, ok, want)
				}
				if want := json.Valid(line); IsCompactObject(line) != want {
					t.Errorf("IsCompactObject(%q) %v, json.Valid %v", line, !want, want)
				}
			}
		}
	}
}
