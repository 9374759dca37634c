package views

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tape-dev/tape/internal/rawjson"
)

// The text of a payload, as people read and search it: the projector's
// search text is made of it, and so is the title the sessions view gives a
// tape that no agent named (its first user message). It lives here, free
// of I/O, because both need the one reading.

// WriteStrings appends every string in a decoded JSON value to b, and
// with keys the object keys and other scalars too, separated by newlines.
// Ids of tool calls ("call_1"), types ("function") and roles are left out:
// nobody searches for them. So are opaque blobs that only a model's
// provider can read: thinking signatures, encrypted reasoning, the data
// of base64 sources (images), and base64 within a string (writeText):
// they would fill the index with tokens no one types, and the server's
// budget of an entry's words (remote's maxVectorBytes) before the words
// after them. A call's "arguments" that is itself JSON (the OpenAI
// shape: a JSON document in a string) is decoded, so that a word after an
// escaped newline in it is a word, not "nfoo".
func WriteStrings(b *strings.Builder, v any, keys bool) { writeStrings(b, v, "", keys) }

func writeStrings(b *strings.Builder, v any, key string, keys bool) {
	switch v := v.(type) {
	case string:
		switch key {
		case "id", "type", "role", "tool_call_id", "tool_use_id", "call_id", "signature", "encrypted_content":
			return
		case "arguments":
			if doc, ok := decodeJSONText(v); ok {
				writeStrings(b, doc, "", false)
				return
			}
		}
		writeText(b, v)
		b.WriteByte('\n')
	case float64, bool:
		if keys {
			fmt.Fprint(b, v)
			b.WriteByte('\n')
		}
	case []any:
		for _, x := range v {
			writeStrings(b, x, key, keys)
		}
	case map[string]any:
		// In key order: the text, and so the token positions phrases match
		// on, must be the same however often the entry is indexed.
		base64, _ := v["type"].(string)
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if k == "data" && base64 == "base64" {
				continue
			}
			if keys {
				b.WriteString(k)
				b.WriteByte('\n')
			}
			writeStrings(b, v[k], k, keys)
		}
	}
}

// decodeJSONText decodes a string that holds a JSON object or array.
func decodeJSONText(s string) (any, bool) {
	t := strings.TrimSpace(s)
	if t == "" || t[0] != '{' && t[0] != '[' {
		return nil, false
	}
	v, err := rawjson.DecodeValue([]byte(t))
	if err != nil {
		return nil, false
	}
	return v, true
}

// MessageText is the text of a chat message payload: its string content,
// or the text of its parts. It decodes as encoding/json does, by
// rawjson.DecodeObject: a listing of every tape reads the whole first
// prompt of each whose text the index cut (3,051 of 10,000), and
// encoding/json's Unmarshal of them was a seventh of its time.
func MessageText(payload json.RawMessage) string {
	p, err := rawjson.DecodeObject(payload)
	if err != nil {
		return ""
	}
	return messageText(p)
}

// messageText is MessageText of a decoded payload.
func messageText(p map[string]any) string {
	var b strings.Builder
	writeStrings(&b, p["content"], "", false)
	return strings.TrimSpace(b.String())
}

// ResultText is a tool result as text: a string as it is, an object's
// text parts (output, content, text, result) when it has any; false for
// anything else, which a front end shows as JSON. raw is one valid JSON
// value (an item of a payload's results), read with rawjson: encoding/json
// checked and scanned each tool output again.
func ResultText(raw json.RawMessage) (string, bool) {
	if s, ok := rawjson.String(raw); ok {
		return s, true
	}
	if m, err := rawjson.DecodeObject(raw); err == nil {
		for _, k := range []string{"output", "content", "text", "result"} {
			if m[k] != nil {
				var b strings.Builder
				WriteStrings(&b, m[k], false)
				if t := strings.TrimSpace(b.String()); t != "" {
					return t, true
				}
			}
		}
	}
	return "", false
}

// EventText is the text an event of that name is read by: thinking's
// thoughts, a title; "" for others, which a front end shows as data.
func EventText(name string, data any) string {
	switch name {
	case "thinking", "reasoning":
		var b strings.Builder
		WriteStrings(&b, data, false)
		return strings.TrimSpace(b.String())
	case "title":
		m, _ := data.(map[string]any)
		s, _ := m["title"].(string)
		return s
	}
	return ""
}
