package codex

import (
	"encoding/json"
	"strings"

	"github.com/tape-dev/tape/importer/source"
)

// part is one part of a Codex message's content, or of a
// reasoning's summary: a text, or an image.
type part struct {
	text  string
	image string // the image's URL, for an image part
	isImg bool
}

// readParts reads a content: a string is one text; a list holds parts,
// each an object with a string "text" or a string "image_url" (of an
// "input_image"), not both. ok is false for any other shape (a number, a
// part that is not an object, a text that is not a string, a part of
// another kind, such as a refusal): the mapping cannot read it without
// losing what it holds, and keeps the record whole instead. Other keys of
// a part (an image's detail) are not kept.
func readParts(raw json.RawMessage) (parts []part, ok bool) {
	raw = source.Trim(raw)
	if len(raw) == 0 {
		return nil, false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		return []part{{text: s}}, true
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	for _, item := range items {
		var p struct {
			Type     string  `json:"type"`
			Text     *string `json:"text"`
			ImageURL *string `json:"image_url"`
		}
		if !source.IsObject(item) || json.Unmarshal(item, &p) != nil {
			return nil, false
		}
		switch {
		case p.Text != nil && p.ImageURL == nil && p.Type != "input_image":
			parts = append(parts, part{text: *p.Text})
		case p.ImageURL != nil && p.Text == nil:
			parts = append(parts, part{image: *p.ImageURL, isImg: true})
		default:
			return nil, false
		}
	}
	return parts, true
}

// readText reads the text of a reasoning's summary or content: nothing
// (absent or null), a string, or a list of text parts, joined by
// newlines. ok is false for any other shape (readParts), and for a list
// that holds an image.
func readText(raw json.RawMessage) (text string, ok bool) {
	if raw = source.Trim(raw); len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	parts, ok := readParts(raw)
	if !ok {
		return "", false
	}
	texts := make([]string, len(parts))
	for i, p := range parts {
		if p.isImg {
			return "", false
		}
		texts[i] = p.text
	}
	return strings.Join(texts, "\n"), true
}

// eventText is the text of a user_message, agent_message or
// agent_reasoning event: its string "message", else its string "text".
// ok is false when it has neither.
func eventText(it payloadItem, payload json.RawMessage) (string, bool) {
	if it.Message != nil {
		return *it.Message, true
	}
	var p struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(payload, &p) != nil || p.Text == nil {
		return "", false
	}
	return *p.Text, true
}
