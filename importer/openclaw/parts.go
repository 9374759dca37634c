package openclaw

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// partKind is what a part of a message's content is to the mapping.
type partKind int

const (
	textPart     partKind = iota // {"type": "text", "text", "textSignature"}
	thinkingPart                 // {"type": "thinking", "thinking", "thinkingSignature", "redacted"}
	callPart                     // {"type": "toolCall", "id", "name", "arguments"}, or Anthropic's {"type": "tool_use", "id", "name", "input"}
	imagePart                    // {"type": "image", "data", "mimeType"}
	otherPart                    // anything else, kept as written
)

// part is one part of a message's content (pi-ai's TextContent,
// ThinkingContent, ToolCall, ImageContent). Its raw members are parts of
// the line. Texts are kept as the JSON strings they are written as, and
// copied so into the entries: a tool's output is tens of KB, and decoding
// it to encode it again was half of a conversion's time.
type part struct {
	kind      partKind
	text      []byte // text, thinking: the JSON string as written
	signature string // thinking
	redacted  bool   // thinking
	id, name  string // call
	args      []byte // call: arguments as written; nil when absent
	extra     []rawjson.Member
	mime      []byte // image: the JSON string as written
	data      []byte // image: the JSON string as written
	raw       []byte // the part as written
}

// isString reports whether v (a value of a checked line) is a JSON string.
func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

// joinStrings is the JSON string of the texts of the JSON strings strs
// (each a whole string of a checked line), joined by sep (a string's body
// as JSON writes it), without decoding them: the bodies of valid JSON
// strings, and sep's, make a valid one.
func joinStrings(strs [][]byte, sep string) []byte {
	if len(strs) == 1 {
		return strs[0]
	}
	n := 2
	for _, s := range strs {
		n += len(s) + len(sep)
	}
	b := append(make([]byte, 0, n), '"')
	for i, s := range strs {
		if i > 0 {
			b = append(b, sep...)
		}
		b = append(b, s[1:len(s)-1]...)
	}
	return append(b, '"')
}

// decodeParts reads the parts of a content list into parts (reused).
func decodeParts(list []byte, parts []part) []part {
	parts = parts[:0]
	rawjson.ArrayItems(list, func(item []byte) { parts = append(parts, decodePart(item)) })
	return parts
}

// decodePart reads one part; one of another shape than pi writes (a
// member the mapping reads of another type, a member it does not know
// but on a call) is an otherPart. A call keeps its members the mapping
// does not read, but for the streaming's partialJson (its arguments
// again) and the signatures.
func decodePart(raw []byte) part {
	p := part{kind: otherPart, raw: raw}
	if len(raw) == 0 || raw[0] != '{' {
		return p
	}
	var typ string
	var args, input []byte
	var has struct{ text, thinking, name, data, mime, other bool }
	bad := false
	var extra []rawjson.Member
	rawjson.ObjectMembers(raw, func(key, value []byte) {
		value = source.Trim(value)
		str := isString(value)
		null := string(value) == "null"
		switch string(key) {
		case "type":
			typ, str = source.StringValue(value)
			bad = bad || !str
			return
		case "arguments":
			args = value
			return
		case "input":
			input = value
			return
		case "redacted":
			p.redacted = string(value) == "true"
			bad = bad || !(p.redacted || null || string(value) == "false")
			return
		case "text":
			if p.text, has.text = value, str; !str {
				p.text = nil
			}
		case "thinking":
			if p.text, has.thinking = value, str; !str {
				p.text = nil
			}
		case "thinkingSignature":
			p.signature, _ = source.StringValue(value)
		case "id":
			p.id, _ = source.StringValue(value)
		case "name":
			p.name, has.name = source.StringValue(value)
		case "data":
			p.data, has.data = value, str
		case "mimeType":
			p.mime, has.mime = value, str
		case "textSignature", "thoughtSignature", "partialJson":
		default:
			has.other = true
			extra = append(extra, rawjson.Member{Key: []byte(objectKey(key)), Value: value})
			return
		}
		bad = bad || !(str || null)
	})
	if bad {
		return p
	}
	plain := !has.other && args == nil && input == nil && p.id == "" && !has.name
	switch typ {
	case "text":
		if has.text && plain && !has.thinking && !p.redacted && !has.data && !has.mime {
			p.kind = textPart
		}
	case "thinking":
		if has.thinking && plain && !has.text && !has.data && !has.mime {
			p.kind = thinkingPart
		}
	case "image":
		if has.data && has.mime && plain && !has.text && !has.thinking && !p.redacted {
			p.kind = imagePart
		}
	case "toolCall", "tool_use":
		if !has.name || has.text || has.thinking || p.redacted || has.data || has.mime {
			break
		}
		p.kind, p.args = callPart, args
		other := rawjson.Member{Key: []byte("input"), Value: input}
		if typ == "tool_use" {
			p.args, other = input, rawjson.Member{Key: []byte("arguments"), Value: args}
		}
		if other.Value != nil {
			extra = append(extra, other)
		}
		p.extra = source.LastOfEach(extra)
	}
	return p
}

// contentOf is what a message keeps of a content that is a string or a
// list of parts: the string; the text parts' texts joined by newlines when
// the list holds only those; else a list of parts in the OpenAI shape
// ({"type": "text", "text"}, {"type": "image_url", "image_url": {"url":
// "data:<mimeType>;base64,<data>"}}), any other part as written. ok is
// false for a content of another type.
func (c *converter) contentOf(v []byte) (content []byte, ok bool) {
	switch {
	case len(v) > 0 && v[0] == '"':
		return rawjson.AppendCompact(nil, v), true
	case len(v) == 0 || v[0] != '[':
		return nil, false
	}
	c.parts = decodeParts(v, c.parts)
	return listContent(c.parts, func(p part) bool { return true }), true
}

// listContent is the content of the parts keep takes, as contentOf makes
// it.
func listContent(parts []part, keep func(part) bool) []byte {
	var texts [][]byte
	list := false
	for _, p := range parts {
		if !keep(p) {
			continue
		}
		if p.kind == textPart {
			texts = append(texts, p.text)
		} else {
			list = true
		}
	}
	if !list {
		if texts == nil {
			return []byte(`""`)
		}
		return joinStrings(texts, `\n`)
	}
	var items [][]byte
	for _, p := range parts {
		if !keep(p) {
			continue
		}
		switch p.kind {
		case textPart:
			items = append(items, rawjson.NewObject().Str("type", "text").Raw("text", p.text).Done())
		case imagePart:
			url := joinStrings([][]byte{[]byte(`"data:"`), p.mime, []byte(`";base64,"`), p.data}, "")
			items = append(items, rawjson.NewObject().Str("type", "image_url").Raw("image_url", rawjson.NewObject().Raw("url", url).Done()).Done())
		default:
			items = append(items, rawjson.AppendCompact(nil, p.raw))
		}
	}
	return rawjson.Array(items...)
}
