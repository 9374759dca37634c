package droid

import (
	"bytes"
	"slices"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// blockKind is what a content block of a message is to the mapping.
type blockKind int

const (
	textBlock     blockKind = iota // {"type": "text", "text"}, or a string among the blocks
	thinkingBlock                  // {"type": "thinking", "thinking", "signature", ...}
	callBlock                      // {"type": "tool_use", "id", "name", "input", ...}
	resultBlock                    // {"type": "tool_result", "tool_use_id", "content", "is_error", ...}
	imageBlock                     // {"type": "image", "source": {"type": "base64", "media_type", "data"}}
	otherBlock                     // anything else, kept as written
)

// block is one content block of a message, as Droid writes them (the
// Anthropic Messages API's). Its raw members are parts of the line, which
// was checked: a text is kept as the JSON string it was written as, not
// decoded and written again.
type block struct {
	kind     blockKind
	typ      string // the block's type, "" when it has none
	text     []byte // text: the JSON string as written
	id, name string // call; a result's tool_use_id is its id
	input    []byte // call: input as written; nil when absent
	content  []byte // result: content as written; nil when absent
	failed   bool   // result: is_error is true
	source   []byte // image: its source as written
	media    string // image
	data     string // image
	extra    *rawjson.Object
	raw      []byte // the block as written
}

// members is what decodeBlock reads of a block's members, in one pass.
type members struct {
	typ                                  []byte
	text, thinking, id, name, toolUseID  []byte
	input, content, isError, imageSource []byte
	others                               int // members of no name above
}

// decodeBlock reads one block; one of another shape than the mapping
// reads (a member it reads of another type, a text block with more than
// a text) is an otherBlock.
func decodeBlock(raw []byte) block {
	b := block{kind: otherBlock, raw: raw}
	switch {
	case len(raw) > 0 && raw[0] == '"':
		b.kind, b.text = textBlock, raw
		return b
	case len(raw) == 0 || raw[0] != '{':
		return b
	}
	var m members
	rawjson.ObjectMembers(raw, func(key, value []byte) {
		value = source.Trim(value)
		switch string(key) {
		case "type":
			m.typ = value
		case "text":
			m.text = value
		case "thinking":
			m.thinking = value
		case "id":
			m.id = value
		case "name":
			m.name = value
		case "tool_use_id":
			m.toolUseID = value
		case "input":
			m.input = value
		case "content":
			m.content = value
		case "is_error":
			m.isError = value
		case "source":
			m.imageSource = value
		default:
			m.others++
		}
	})
	b.typ, _ = source.StringValue(m.typ)
	var ok bool
	switch b.typ {
	case "text":
		b.kind, b.text = textBlock, m.text
		ok = isString(m.text) && m.others == 0 && m.thinking == nil && m.id == nil && m.name == nil &&
			m.toolUseID == nil && m.input == nil && m.content == nil && m.isError == nil && m.imageSource == nil
	case "thinking":
		b.kind, ok = thinkingBlock, isString(m.thinking)
	case "tool_use":
		b.kind, ok = callBlock, b.readCall(raw, m)
	case "tool_result":
		b.kind, ok = resultBlock, b.readResult(raw, m)
	case "image":
		b.kind, ok = imageBlock, m.others == 0 && b.readImage(m)
	}
	if !ok {
		b.kind = otherBlock
	}
	return b
}

// isString reports whether v, a value of a checked line, is a string.
func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

// readCall reads a tool_use: a string id and name, an input of any
// shape; its other members (a thought_signature, a namespace) are kept
// in the call, as "droid".
func (b *block) readCall(raw []byte, m members) bool {
	var idOK, nameOK bool
	b.id, idOK = source.StringValue(m.id)
	b.name, nameOK = source.StringValue(m.name)
	b.input = m.input
	if !idOK || !nameOK {
		return false
	}
	b.keepOthers(raw, "type", "id", "name", "input")
	return true
}

// readResult reads a tool_result: a string tool_use_id, a content of any
// shape, an is_error that is a boolean (or null); its other members are
// kept in the result, as "droid".
func (b *block) readResult(raw []byte, m members) bool {
	var ok bool
	if b.id, ok = source.StringValue(m.toolUseID); !ok {
		return false
	}
	switch string(m.isError) {
	case "true":
		b.failed = true
	case "", "false", "null":
	default:
		return false
	}
	b.content = m.content
	b.keepOthers(raw, "type", "tool_use_id", "content", "is_error")
	return true
}

// readImage reads an image block whose source is base64 data of a media
// type, and nothing else.
func (b *block) readImage(m members) bool {
	src := m.imageSource
	if len(src) == 0 || src[0] != '{' || m.text != nil || m.thinking != nil || m.id != nil || m.name != nil ||
		m.toolUseID != nil || m.input != nil || m.content != nil || m.isError != nil {
		return false
	}
	ok := true
	var base64, media, data bool
	rawjson.ObjectMembers(src, func(key, value []byte) {
		value = source.Trim(value)
		switch string(key) {
		case "type":
			t, _ := source.StringValue(value)
			base64 = t == "base64"
		case "media_type":
			b.media, media = source.StringValue(value)
		case "data":
			b.data, data = source.StringValue(value)
		default:
			ok = false
		}
	})
	return ok && base64 && media && data
}

// keepOthers keeps the block's members but those read, in its extra.
func (b *block) keepOthers(raw []byte, read ...string) {
	for _, m := range source.ObjectOf(raw) {
		if slices.Contains(read, string(m.Key)) {
			continue
		}
		if b.extra == nil {
			b.extra = rawjson.NewObject()
		}
		b.extra.Raw(string(m.Key), rawjson.AppendCompact(nil, m.Value))
	}
}

// withoutType is the block's members but its type, as a JSON object: the
// data of the event that keeps it.
func withoutType(raw []byte) []byte {
	return source.MembersObject(source.ObjectOf(raw), func(k string) bool { return k == "type" })
}

// part is a block as a part of a message's content.
func (b *block) part() []byte {
	switch b.kind {
	case textBlock:
		return rawjson.NewObject().Str("type", "text").Raw("text", b.text).Done()
	case imageBlock:
		url := rawjson.NewObject().Str("url", "data:"+b.media+";base64,"+b.data).Done()
		return rawjson.NewObject().Str("type", "image_url").Raw("image_url", url).Done()
	}
	return rawjson.AppendCompact(nil, b.raw)
}

// appendCall appends a tool_use as a call: {"id", "type": "function",
// "function": {"name", "arguments": input as JSON text}}, and its other
// members.
func (b *block) appendCall(p []byte) []byte {
	input := b.input
	if input == nil {
		input = []byte("{}")
	}
	p = append(rawjson.AppendString(append(p, `{"id":`...), b.id), `,"type":"function","function":{"name":`...)
	p = append(rawjson.AppendString(p, b.name), `,"arguments":`...)
	p = append(rawjson.AppendString(p, string(rawjson.AppendCompact(nil, input))), '}')
	if b.extra != nil {
		p = append(append(p, `,"droid":`...), b.extra.Done()...)
	}
	return append(p, '}')
}

// appendResult appends a tool_result as a result: {"tool_call_id",
// "content" as written, "is_error": true when it failed}, and its other
// members.
func (b *block) appendResult(p []byte) []byte {
	p = append(rawjson.AppendString(append(p, `{"tool_call_id":`...), b.id), `,"content":`...)
	p = rawjson.AppendCompact(p, source.OrNull(b.content))
	if b.failed {
		p = append(p, `,"is_error":true`...)
	}
	if b.extra != nil {
		p = append(append(p, `,"droid":`...), b.extra.Done()...)
	}
	return append(p, '}')
}

// reminder opens the context Droid adds to a user's message for its model
// (the date, the skills, the files it read).
const reminder = "<system-reminder>"

// isReminder reports whether a user's text, a JSON string as written, is
// such context: <system-reminder>...</system-reminder>, after white space.
func isReminder(text []byte) bool {
	s := text[1:] // after the opening quote
	for len(s) > 1 {
		switch {
		case s[0] == ' ':
			s = s[1:]
			continue
		case s[0] == '\\' && (s[1] == 'n' || s[1] == 't' || s[1] == 'r'):
			s = s[2:]
			continue
		}
		break
	}
	if bytes.HasPrefix(s, []byte(reminder)) {
		return true
	}
	if len(s) > 0 && s[0] == '\\' { // "<" or a space written as an escape: decode it
		t, _ := rawjson.String(text)
		return bytes.HasPrefix(bytes.TrimLeft([]byte(t), " \t\r\n"), []byte(reminder))
	}
	return false
}
