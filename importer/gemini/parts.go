package gemini

import (
	"encoding/json"
	"slices"
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
func (f *funcResponse) result() []byte {
	o := rawjson.NewObject().Raw("content", f.response)
	if f.name != "" {
		o.Str("name", f.name)
	}
	return o.Str("tool_call_id", f.id).Done()
}

// readParts reads a content (a PartListUnion): a string is one text; an
// object one part; a list holds parts, each an object or a string. ok is
// false for any other shape (a number, a list of numbers), which the
// mapping keeps whole instead. Absent or null, it holds no part.
func readParts(raw []byte) (parts []part, ok bool) {
	raw = source.Trim(raw)
	switch {
	case absent(raw):
		return nil, true
	case raw[0] == '"':
		s, ok := rawjson.String(raw)
		return []part{{text: s, isText: true}}, ok
	case raw[0] == '{':
		return []part{readPart(raw)}, true
	}
	list, ok := items(raw)
	if !ok {
		return nil, false
	}
	for _, item := range list {
		switch item[0] {
		case '"':
			s, _ := rawjson.String(item)
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
func readPart(raw []byte) part {
	p := part{raw: raw}
	fs := fields(raw)
	get := func(k string) ([]byte, bool) {
		for i := len(fs) - 1; i >= 0; i-- {
			if fs[i].key == k {
				return fs[i].value, true
			}
		}
		return nil, false
	}
	only := func(keys ...string) bool {
		for _, f := range fs {
			if !slices.Contains(keys, f.key) {
				return false
			}
		}
		return true
	}
	if text, ok := get("text"); ok && only("text", "thought", "thoughtSignature") {
		s, isStr := stringOf(text)
		thought, okThought := get("thought")
		sig, hasSig := get("thoughtSignature")
		signature, okSig := stringOf(sig)
		isThought := okThought && string(source.Trim(thought)) == "true"
		if isStr && (!okThought || isThought || string(source.Trim(thought)) == "false") && (okSig || !hasSig) {
			p.text, p.isText, p.thought, p.signature = s, !isThought, isThought, signature
		}
		return p
	}
	if data, ok := get("inlineData"); ok && only("inlineData") && isObject(data) {
		var mime, b64 string
		okMime, okData, n := false, false, 0
		for _, f := range fields(data) {
			n++
			switch f.key {
			case "mimeType":
				mime, okMime = stringOf(f.value)
			case "data":
				b64, okData = stringOf(f.value)
			}
		}
		if n == 2 && okMime && okData && strings.HasPrefix(mime, "image/") {
			p.image = "data:" + mime + ";base64," + b64
		}
		return p
	}
	if fr, ok := get("functionResponse"); ok && only("functionResponse") && isObject(fr) {
		f := &funcResponse{}
		okID, okName, hasResp, n := false, true, false, 0
		for _, m := range fields(fr) {
			n++
			switch m.key {
			case "id":
				f.id, okID = stringOf(m.value)
			case "name":
				f.name, okName = stringOf(m.value)
			case "response":
				f.response, hasResp = compact(m.value), true
			default:
				return p
			}
		}
		if okID && okName && hasResp {
			p.fr = f
		}
	}
	return p
}

// stringOf reads a JSON string.
func stringOf(raw []byte) (string, bool) { return rawjson.String(source.Trim(raw)) }

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
			out[i] = json.RawMessage(compact(p.raw))
		}
	}
	return out
}

// chatMessage is a chat message's payload: {"content", "display_content",
// "role"}.
func chatMessage(role string, parts []part, display any, hasDisplay bool) []byte {
	o := rawjson.NewObject()
	if textOnly(parts) {
		o.Str("content", joinText(parts))
	} else {
		o.Raw("content", source.MustJSON(chatContent(parts)))
	}
	if hasDisplay {
		o.Raw("display_content", source.MustJSON(display))
	}
	return o.Str("role", role).Done()
}

func itoa(n int) string { return strconv.Itoa(n) }
