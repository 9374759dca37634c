package cline

import (
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

// block is one content block of a message, as the agents write them (the
// Anthropic Messages API's, with Cline's members: call_id,
// reasoning_details, signature, summary). Its raw members are parts of a
// document that was checked.
type block struct {
	kind     blockKind
	typ      string // the block's type, "" when it has none
	text     []byte // text: the JSON string as written
	plain    bool   // text: a block of a type and a text alone
	env      bool   // text: the context the agent adds (isEnvironment)
	id, name string // call; a result's tool_use_id is its id
	input    []byte // call: input as written; nil when absent
	content  []byte // result: content as written; nil when absent
	failed   bool   // result: is_error is true
	media    string // image
	data     string // image
	extra    []byte // call, result: the members the mapping does not read, as an object
	raw      []byte // the block as written
}

// readBlocks reads a message's content into blocks (reused): a string is
// one text block.
func (c *converter) readBlocks(content []byte) []block {
	c.blocks = readBlocks(content, c.blocks[:0], &c.blockMembers)
	return c.blocks
}

func readBlocks(content []byte, blocks []block, buf *[]rawjson.Member) []block {
	if len(content) == 0 || string(content) == "null" {
		return blocks
	}
	if content[0] == '"' {
		b := block{kind: textBlock, text: content, plain: true, raw: content}
		b.env = b.isEnvironment()
		return append(blocks, b)
	}
	rawjson.ArrayItems(content, func(item []byte) {
		b := decodeBlock(item, buf)
		b.env = b.isEnvironment()
		blocks = append(blocks, b)
	})
	return blocks
}

// decodeBlock reads one block; one of another shape than the mapping
// reads (a member it reads of another type) is an otherBlock.
func decodeBlock(raw []byte, buf *[]rawjson.Member) block {
	b := block{kind: otherBlock, raw: raw}
	switch {
	case len(raw) > 0 && raw[0] == '"':
		b.kind, b.text, b.plain = textBlock, raw, true
		return b
	case len(raw) == 0 || raw[0] != '{':
		return b
	}
	ms := membersInto(*buf, raw)
	if ms != nil {
		*buf = ms[:0]
	}
	b.typ, _ = str(ms, "type")
	ok := false
	switch b.typ {
	case "text":
		b.text = member(ms, "text")
		b.kind, ok = textBlock, isString(b.text)
		b.plain = len(ms) == 2
	case "thinking":
		b.kind, ok = thinkingBlock, isString(member(ms, "thinking"))
	case "tool_use":
		b.kind, ok = callBlock, b.readCall(ms)
	case "tool_result":
		b.kind, ok = resultBlock, b.readResult(ms)
	case "image":
		b.kind, ok = imageBlock, len(ms) == 2 && b.readImage(member(ms, "source"))
	}
	if !ok {
		b.kind = otherBlock
	}
	return b
}

// isString reports whether v, a value of a checked document, is a string.
func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

// readCall reads a tool_use: a string id and name, an input of any
// shape, and its other members (Cline's call_id, reasoning_details,
// signature) kept in the call.
func (b *block) readCall(ms []rawjson.Member) bool {
	var idOK, nameOK bool
	b.id, idOK = str(ms, "id")
	b.name, nameOK = str(ms, "name")
	if v, ok := rawjson.Lookup(ms, "input"); ok {
		b.input = source.Trim(v)
	}
	b.extra = others(ms, "type", "id", "name", "input")
	return idOK && nameOK
}

// readResult reads a tool_result: a string tool_use_id, a content of any
// shape, an is_error that is a boolean (or null), and its other members
// kept in the result.
func (b *block) readResult(ms []rawjson.Member) bool {
	var ok bool
	if b.id, ok = str(ms, "tool_use_id"); !ok {
		return false
	}
	switch string(member(ms, "is_error")) {
	case "true":
		b.failed = true
	case "", "false", "null":
	default:
		return false
	}
	if v, ok := rawjson.Lookup(ms, "content"); ok {
		b.content = source.Trim(v)
	}
	b.extra = others(ms, "type", "tool_use_id", "content", "is_error")
	return true
}

// readImage reads an image's source: base64 data of a media type, and
// nothing else.
func (b *block) readImage(src []byte) bool {
	ms := source.ObjectOf(src)
	t, _ := str(ms, "type")
	var media, data bool
	b.media, media = str(ms, "media_type")
	b.data, data = str(ms, "data")
	return len(ms) == 3 && t == "base64" && media && data
}

// decoded is a text block's text.
func (b *block) decoded() string {
	s, _ := rawjson.String(b.text)
	return s
}

// part is a block as a part of a message's content: a text as {"type":
// "text", "text"}, an image as {"type": "image_url", "image_url": {"url":
// "data:..."}}, any other block (a text with Cline's members beside it)
// as written.
func (b *block) part() []byte {
	switch {
	case b.kind == textBlock && b.plain:
		return rawjson.NewObject().Str("type", "text").Raw("text", b.text).Done()
	case b.kind == imageBlock:
		url := rawjson.NewObject().Str("url", "data:"+b.media+";base64,"+b.data).Done()
		return rawjson.NewObject().Str("type", "image_url").Raw("image_url", url).Done()
	}
	return rawjson.AppendCompact(nil, b.raw)
}

// appendCall appends a tool_use as a call: {"id", "type": "function",
// "function": {"name", "arguments": input as JSON text}}, and its other
// members as "cline".
func (b *block) appendCall(p []byte) []byte {
	input := b.input
	if input == nil {
		input = []byte("{}")
	}
	return appendCall(p, b.id, b.name, rawjson.AppendCompact(nil, input), b.extra)
}

func appendCall(p []byte, id, name string, args, extra []byte) []byte {
	p = append(rawjson.AppendString(append(p, `{"id":`...), id), `,"type":"function","function":{"name":`...)
	p = append(rawjson.AppendString(p, name), `,"arguments":`...)
	p = append(rawjson.AppendString(p, string(args)), '}')
	if extra != nil {
		p = append(append(p, `,"cline":`...), extra...)
	}
	return append(p, '}')
}

// appendResult appends a tool_result as a result: {"tool_call_id",
// "content" as written, "is_error": true when it failed}, and its other
// members as "cline".
func (b *block) appendResult(p []byte) []byte {
	return appendResult(p, b.id, source.OrNull(b.content), b.failed, b.extra)
}

// appendResult appends a result of content, a JSON value as written.
func appendResult(p []byte, id string, content []byte, failed bool, extra []byte) []byte {
	if p == nil {
		p = make([]byte, 0, len(content)+len(id)+len(extra)+48)
	}
	p = append(rawjson.AppendString(append(p, `{"tool_call_id":`...), id), `,"content":`...)
	p = rawjson.AppendCompact(p, content)
	if failed {
		p = append(p, `,"is_error":true`...)
	}
	if extra != nil {
		p = append(append(p, `,"cline":`...), extra...)
	}
	return append(p, '}')
}

// withoutType is the block's members but its type, as a JSON object: the
// data of the event that keeps it.
func withoutType(raw []byte) []byte {
	return source.MembersObject(source.ObjectOf(raw), func(k string) bool { return k == "type" })
}
