package rawjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var skipSeeds = []string{
	`[{"type":"text","text":"a \"quoted\" word\\"}]`,
	`[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x\n"}],"is_error":true},{"type":"image","source":{"type":"base64","data":"AA=="}}]`,
	` [ { "type" : "text" , "text" : "spaced" , "type" : "last" } ] `,
	`{"a\"b":1,"c\\":[1,{"d":"]}"}],"e":null,"f":-1.5e3,"g":true}`,
	`{"k":"\u00e9\ud83d\ude00","k":"again"}`, `[]`, `{}`, `null`, `"s"`, `7`,
}

// FuzzObjectMembers holds ObjectMembers to encoding/json: of any valid
// JSON object it finds the members encoding/json finds (its keys decoded,
// the last of repeated ones kept), with the same value text; of any other
// valid value, none.
func FuzzObjectMembers(f *testing.F) {
	for _, s := range append(skipSeeds, objectSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return // it reads only what encoding/json has checked
		}
		var want map[string]json.RawMessage
		isObject := json.Unmarshal(b, &want) == nil && want != nil
		got := map[string]json.RawMessage{}
		n := 0
		ObjectMembers(b, func(key, value []byte) {
			var k string
			if err := json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &k); err != nil {
				t.Fatalf("ObjectMembers(%q) found the key %q: %v", b, key, err)
			}
			got[k] = value
			n++
		})
		if !isObject {
			if n > 0 {
				t.Fatalf("ObjectMembers(%q) found %d members of a value that is not an object", b, n)
			}
			return
		}
		if len(got) != len(want) {
			t.Fatalf("ObjectMembers(%q) found %d names, encoding/json %d", b, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("ObjectMembers(%q)[%q] = %q, encoding/json %q", b, k, got[k], v)
			}
		}
	})
}

// FuzzArrayItems holds ArrayItems to encoding/json: of any valid JSON
// array it finds the items encoding/json finds, with the same text; of
// any other valid value, none.
func FuzzArrayItems(f *testing.F) {
	for _, s := range append(skipSeeds, objectSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return // it reads only what encoding/json has checked
		}
		var want []json.RawMessage
		isArray := json.Unmarshal(b, &want) == nil && want != nil
		var got []json.RawMessage
		ArrayItems(b, func(item []byte) { got = append(got, item) })
		if !isArray {
			if len(got) > 0 {
				t.Fatalf("ArrayItems(%q) found %d items of a value that is not an array", b, len(got))
			}
			return
		}
		if len(got) != len(want) {
			t.Fatalf("ArrayItems(%q) found %d items, encoding/json %d", b, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("ArrayItems(%q)[%d] = %q, encoding/json %q", b, i, got[i], want[i])
			}
		}
	})
}

// FuzzString holds String to encoding/json: of any valid JSON value it
// decodes a string as encoding/json decodes it into a string, and takes
// nothing else.
func FuzzString(f *testing.F) {
	for _, s := range []string{`"abc"`, `""`, `"错误"`, `"a\"b\\c\u00e9\ud83d\ude00\n"`, "\"\xff\xfe\"", `"\ud83d"`, `null`, `7`, `[]`, `{}`, `true`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		v = bytes.TrimSpace(v) // a member's value, as ObjectMembers finds it
		if !json.Valid(v) {
			return
		}
		got, ok := String(v)
		var want string
		wantOK := json.Unmarshal(v, &want) == nil && v[0] == '"'
		if ok != wantOK || ok && got != want {
			t.Fatalf("String(%s) = %q, %v; encoding/json %q, %v", v, got, ok, want, wantOK)
		}
	})
}

// BenchmarkObjectMembers reads the type and tool_use_id of each block of
// a message's content, one a 10 KB tool result, beside encoding/json's
// Unmarshal into structs with the content kept raw, the baseline:
//
//	go test ./internal/rawjson -run '^$' -bench ObjectMembers -count 6
func BenchmarkObjectMembers(b *testing.B) {
	content := []byte(`[{"type":"text","text":"Here is what the tests say."},{"type":"tool_result","tool_use_id":"toolu_01","content":` +
		strings.TrimSuffix(strings.TrimPrefix(toolOutput, `{"results":`), `}`) + `,"is_error":false}]`)
	b.Run("ObjectMembers", func(b *testing.B) {
		b.SetBytes(int64(len(content)))
		for b.Loop() {
			n := 0
			ArrayItems(content, func(item []byte) {
				ObjectMembers(item, func(key, value []byte) {
					switch string(key) {
					case "type", "tool_use_id":
						if _, ok := String(value); ok {
							n++
						}
					}
				})
			})
			if n != 3 {
				b.Fatalf("found %d strings", n)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(content)))
		for b.Loop() {
			var blocks []struct {
				Type      string          `json:"type"`
				Text      *string         `json:"text"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
				IsError   bool            `json:"is_error"`
			}
			if err := json.Unmarshal(content, &blocks); err != nil {
				b.Fatal(err)
			}
		}
	})
}
