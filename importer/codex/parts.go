package codex

import (
	"encoding/json"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
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
//
// raw is a part of a line that decoded, valid JSON, which rawjson reads as
// encoding/json read it before (readPart); names are the converter's
// (lineDecoder.name), for the parts' types, and the parts are in their
// room (lineDecoder.parts), good until the next call.
func readParts(raw json.RawMessage, names *lineDecoder) ([]part, bool) {
	raw = source.Trim(raw)
	if len(raw) == 0 || raw[0] != '"' && raw[0] != '[' {
		return nil, false
	}
	var parts []part
	if names != nil {
		parts = names.parts[:0]
	}
	ok := true
	if raw[0] == '"' {
		var s string
		if s, ok = rawjson.String(raw); ok {
			parts = append(parts, part{text: s})
		}
	} else {
		rawjson.ArrayItems(raw, func(item []byte) {
			if !ok {
				return
			}
			var p part
			if p, ok = readPart(item, names); ok {
				parts = append(parts, p)
			}
		})
	}
	if names != nil {
		names.parts = parts[:0] // grown, for the next
	}
	if !ok || len(parts) == 0 {
		return nil, ok
	}
	return parts, true
}

var partKeys = []string{"type", "text", "image_url"}

// readPart reads one part of a content (readParts): its members by
// rawjson, as encoding/json reads them into readPartJSON's struct, which
// reads what fastDecoder gives up at. raw is a whole valid JSON value.
// TestReadersAgreeWithEncodingJSON and FuzzReaders hold it to
// readPartJSON.
func readPart(item []byte, names *lineDecoder) (part, bool) {
	if len(item) == 0 || item[0] != '{' {
		return part{}, false
	}
	var typ string
	var text, image maybe[string]
	d := fastDecoder{names: names}
	rawjson.ObjectMembers(item, func(key, v []byte) {
		switch string(key) {
		case "type":
			d.name(v, &typ)
		case "text":
			d.maybeStr(v, &text)
		case "image_url":
			d.maybeStr(v, &image)
		default:
			d.unknown(key, partKeys)
		}
	})
	if d.giveUp {
		return readPartJSON(item)
	}
	return partOf(typ, text, image)
}

// readPartJSON is readPart by encoding/json.
func readPartJSON(item []byte) (part, bool) {
	var p struct {
		Type     string  `json:"type"`
		Text     *string `json:"text"`
		ImageURL *string `json:"image_url"`
	}
	if !source.IsObject(item) || json.Unmarshal(item, &p) != nil {
		return part{}, false
	}
	return partOf(p.Type, maybeOf(p.Text), maybeOf(p.ImageURL))
}

// partOf is a part of a text, or of an image's URL, not both.
func partOf(typ string, text, image maybe[string]) (part, bool) {
	switch {
	case text.ok && !image.ok && typ != "input_image":
		return part{text: text.v}, true
	case image.ok && !text.ok:
		return part{image: image.v, isImg: true}, true
	}
	return part{}, false
}

// readText reads the text of a reasoning's summary or content: nothing
// (absent or null), a string, or a list of text parts, joined by
// newlines. ok is false for any other shape (readParts), and for a list
// that holds an image.
func readText(raw json.RawMessage, names *lineDecoder) (text string, ok bool) {
	if raw = source.Trim(raw); len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	parts, ok := readParts(raw, names)
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
func eventText(message *string, payload json.RawMessage) (string, bool) {
	if message != nil {
		return *message, true
	}
	var text maybe[string]
	d := fastDecoder{}
	rawjson.ObjectMembers(payload, func(key, v []byte) {
		if string(key) == "text" {
			d.maybeStr(v, &text)
		} else {
			d.unknown(key, textKeys)
		}
	})
	if d.giveUp {
		return eventTextJSON(payload)
	}
	return text.v, text.ok
}

var textKeys = []string{"text"}

// eventTextJSON is eventText's "text" by encoding/json, which reads what
// fastDecoder gives up at.
func eventTextJSON(payload json.RawMessage) (string, bool) {
	var p struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(payload, &p) != nil || p.Text == nil {
		return "", false
	}
	return *p.Text, true
}
