package importer

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Walking JSON text that encoding/json has already checked: a message's
// content blocks, the bulk of a transcript (a tool's output can be tens of
// KB), found by skipping over values without checking them again. A string
// is skipped by looking for its closing quote with bytes.IndexByte, which
// does not look at each byte in Go code.
//
// It exists because decoding the blocks with encoding/json checked and
// scanned every tool output twice more after the line's own decode: half
// of an import's CPU was encoding/json (BenchmarkImportClaude).
// FuzzBlocksAsEncodingJSON checks that it reads blocks as encoding/json
// does.

// skipSpace returns the index of the first byte at or after i that is not
// white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the value that starts at i.
func skipValue(b []byte, i int) int {
	i = skipSpace(b, i)
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\t' && b[i] != '\r' {
		i++ // a number, true, false, null
	}
	return i
}

// skipString returns the index just past the string whose opening quote is
// at i.
func skipString(b []byte, i int) int {
	i++
	for {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return len(b)
		}
		i += k
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// arrayItems calls fn with each item of the array b.
func arrayItems(b []byte, fn func(item []byte)) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != ']' {
		end := skipValue(b, i)
		fn(b[i:end])
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

// objectMembers calls fn with each member of the object b: its key as
// written between the quotes, and its value's text.
func objectMembers(b []byte, fn func(key, value []byte)) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] == '"' {
		kend := skipString(b, i)
		key := b[i+1 : kend-1]
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = skipSpace(b, i+1)
		vend := skipValue(b, i)
		fn(key, b[i:vend])
		i = skipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

// jsonString decodes a JSON string value; ok is false for any other value.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if s := v[1 : len(v)-1]; bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s), true
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}

// decodeBlocks reads a content's blocks from the array text raw, as
// encoding/json would decode it into []claudeBlock (the last of repeated
// keys wins; a member of another type than the field's is left out).
func decodeBlocks(raw []byte) []claudeBlock {
	var blocks []claudeBlock
	arrayItems(raw, func(item []byte) {
		var b claudeBlock
		objectMembers(item, func(key, v []byte) {
			str := func(dst *string) {
				if s, ok := jsonString(v); ok {
					*dst = s
				}
			}
			strp := func(dst **string) {
				if s, ok := jsonString(v); ok {
					*dst = &s
				} else if string(v) == "null" {
					*dst = nil
				}
			}
			rawv := func(dst *json.RawMessage) { *dst = json.RawMessage(v) }
			switch string(key) {
			case "type":
				str(&b.Type)
			case "text":
				strp(&b.Text)
			case "thinking":
				strp(&b.Thinking)
			case "signature":
				str(&b.Signature)
			case "id":
				str(&b.ID)
			case "name":
				str(&b.Name)
			case "input":
				rawv(&b.Input)
			case "tool_use_id":
				str(&b.ToolUseID)
			case "content":
				rawv(&b.Content)
			case "is_error":
				switch string(v) {
				case "true":
					b.IsError = true
				case "false":
					b.IsError = false
				}
			case "source":
				rawv(&b.Source)
			}
		})
		blocks = append(blocks, b)
	})
	return blocks
}
