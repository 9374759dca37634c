package views

import (
	"encoding/json"
	"testing"
)

// MessageText decodes payloads with rawjson.DecodeObject; what it reads
// must be what it read by encoding/json's Unmarshal.
func TestMessageTextDecodesAsEncodingJSON(t *testing.T) {
	byEncodingJSON := func(payload string) string {
		var p map[string]any
		if json.Unmarshal([]byte(payload), &p) != nil {
			return ""
		}
		return messageText(p)
	}
	for _, payload := range []string{
		`{"role":"user","content":"  fix the build  "}`,
		`{"role":"user","content":[{"type":"text","text":"one"},{"type":"image","source":{"data":"aGVsbG8="}},{"type":"text","text":"two"}]}`,
		`{"content":"first","content":"the last of repeated names wins"}`,
		`{"content":"\ud83d\ude00 a surrogate pair, \u00e9, \"quotes\" and \\ "}`,
		`{"content":"invalid UTF-8 \xff\xfe is replaced"}`,
		`{"content":{"text":"nested","n":1e400}}`,
		`{"content":"x"`, `null`, `"a string"`, `[1,2]`, ``, `{}`,
	} {
		if got, want := MessageText(json.RawMessage(payload)), byEncodingJSON(payload); got != want {
			t.Errorf("MessageText(%s) = %q; encoding/json reads %q", payload, got, want)
		}
	}
}
