package gemini

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// part is one part of a message's content, a Gemini API Part: a text (a
// thought's, when marked so), an image, the response to a tool call, or
// any other part, kept as written.
type part struct {
	text      string
	isText    bool
	thought   bool
	signature string // a thought's thoughtSignature
	image     string // an image's data URL
	fr        *funcResponse
	raw       json.RawMessage // any other part, as written
}

// funcResponse is a functionResponse part: what a tool call answered.
type funcResponse struct {
	id, name string
	response json.RawMessage
}

// result is the tool result the part says.
func (f *funcResponse) result() map[string]any {
	r := map[string]any{"tool_call_id": f.id, "content": source.OrNull(f.response)}
	if f.name != "" {
		r["name"] = f.name
	}
	return r
}

// readParts reads a content (a PartListUnion): a string is one text; an
// object one part; a list holds parts, each an object or a string. ok is
// false for any other shape (a number, a list of numbers), which the
// mapping keeps whole instead. Absent or null, it holds no part.
func readParts(raw json.RawMessage) (parts []part, ok bool) {
	raw = source.Trim(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, true
	case raw[0] == '"':
		s, ok := rawjson.String(raw)
		return []part{{text: s, isText: true}}, ok
	case raw[0] == '{':
		return []part{readPart(raw)}, true
	case raw[0] != '[':
		return nil, false
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	for _, item := range items {
		item = source.Trim(item)
		switch item[0] {
		case '"':
			s, _ := rawjson.String(item) // a string of a list that decoded
			parts = append(parts, part{text: s, isText: true})
		case '{':
			parts = append(parts, readPart(item))
		default:
			return nil, false
		}
	}
	return parts, true
}

// readPart reads a Part. A text, with its thought mark and signature, an
// inline image, and a functionResponse are read when they have no other
// members; anything else is kept as written.
func readPart(raw json.RawMessage) part {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return part{raw: raw}
	}
	if text, ok := m["text"]; ok {
		s, isStr := stringOf(text)
		thought, okThought := boolOf(m["thought"])
		sig, okSig := stringOf(m["thoughtSignature"])
		_, hasSig := m["thoughtSignature"]
		if isStr && okThought && (okSig || !hasSig) && len(m) == 1+count(m, "thought", "thoughtSignature") {
			return part{text: s, isText: !thought, thought: thought, signature: sig, raw: raw}
		}
		return part{raw: raw}
	}
	if len(m) != 1 {
		return part{raw: raw}
	}
	if data, ok := m["inlineData"]; ok {
		var d map[string]json.RawMessage
		if json.Unmarshal(data, &d) == nil && len(d) == 2 {
			mime, ok1 := stringOf(d["mimeType"])
			b64, ok2 := stringOf(d["data"])
			if ok1 && ok2 && strings.HasPrefix(mime, "image/") {
				return part{image: "data:" + mime + ";base64," + b64, raw: raw}
			}
		}
	}
	if fr, ok := m["functionResponse"]; ok {
		var f map[string]json.RawMessage
		if json.Unmarshal(fr, &f) == nil {
			id, okID := stringOf(f["id"])
			name, okName := stringOf(f["name"])
			_, hasName := f["name"]
			if okID && (okName || !hasName) && len(f) == 2+count(f, "name") {
				if resp, ok := f["response"]; ok {
					return part{fr: &funcResponse{id: id, name: name, response: rawjson.AppendCompact(nil, resp)}, raw: raw}
				}
			}
		}
	}
	return part{raw: raw}
}

// count is how many of keys m has.
func count(m map[string]json.RawMessage, keys ...string) int {
	n := 0
	for _, k := range keys {
		if _, ok := m[k]; ok {
			n++
		}
	}
	return n
}

// stringOf reads a JSON string.
func stringOf(raw json.RawMessage) (string, bool) { return rawjson.String(source.Trim(raw)) }

// boolOf reads a JSON boolean, false when absent.
func boolOf(raw json.RawMessage) (bool, bool) {
	switch string(source.Trim(raw)) {
	case "", "false":
		return false, true
	case "true":
		return true, true
	}
	return false, false
}

// textOnly reports whether parts are all texts.
func textOnly(parts []part) bool {
	for _, p := range parts {
		if !p.isText {
			return false
		}
	}
	return true
}

// joinText is the text of text parts: Gemini sends them as one text.
func joinText(parts []part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.text)
	}
	return b.String()
}

// chatContent is a message's content as a chat message holds it: its
// text, when it is all text; else its parts, in the OpenAI shape: a text
// {"type": "text", "text"}, an image {"type": "image_url", "image_url":
// {"url"}}, any other part as written.
func chatContent(parts []part) any {
	if textOnly(parts) {
		return joinText(parts)
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		switch {
		case p.isText:
			out[i] = map[string]any{"type": "text", "text": p.text}
		case p.image != "":
			out[i] = map[string]any{"type": "image_url", "image_url": map[string]any{"url": p.image}}
		default:
			out[i] = json.RawMessage(rawjson.AppendCompact(nil, p.raw))
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
