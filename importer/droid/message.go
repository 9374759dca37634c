package droid

import (
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
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
// Anthropic Messages API's). Its raw members are parts of the line.
type block struct {
	kind     blockKind
	typ      string // the block's type, "" when it has none
	text     string // text, thinking
	id, name string // call; a result's tool_use_id is its id
	input    []byte // call: input as written; nil when absent
	content  []byte // result: content as written; nil when absent
	failed   bool   // result: is_error is true
	media    string // image
	data     string // image
	extra    *rawjson.Object
	raw      []byte // the block as written
}

// decodeBlock reads one block; one of another shape than the mapping
// reads (a member it reads of another type, a text block with more than
// a text) is an otherBlock.
func decodeBlock(raw []byte) block {
	if s, ok := stringOf(raw); ok {
		return block{kind: textBlock, text: s, raw: raw}
	}
	b := block{kind: otherBlock, raw: raw}
	if len(raw) == 0 || raw[0] != '{' {
		return b
	}
	b.typ, _ = stringOf(source.Trim(lookup(raw, "type")))
	var ok bool
	switch b.typ {
	case "text":
		ok = b.readText(raw)
	case "thinking":
		b.text, ok = stringOf(source.Trim(lookup(raw, "thinking")))
		b.kind = thinkingBlock
	case "tool_use":
		ok = b.readCall(raw)
	case "tool_result":
		ok = b.readResult(raw)
	case "image":
		ok = b.readImage(raw)
	}
	if !ok {
		b.kind = otherBlock
	}
	return b
}

// lookup is the value of obj's member key (the last written), nil when
// absent.
func lookup(obj []byte, key string) []byte {
	var v []byte
	rawjson.ObjectMembers(obj, func(k, value []byte) {
		if string(k) == key {
			v = value
		}
	})
	return v
}

// readText reads a text block that holds a string text and nothing else.
func (b *block) readText(raw []byte) bool {
	ok, texts := true, 0
	rawjson.ObjectMembers(raw, func(key, value []byte) {
		switch string(key) {
		case "type":
		case "text":
			var isString bool
			b.text, isString = stringOf(source.Trim(value))
			ok, texts = ok && isString, texts+1
		default:
			ok = false
		}
	})
	b.kind = textBlock
	return ok && texts == 1
}

// readCall reads a tool_use: a string id and name, an input of any
// shape; its other members (a thought_signature, a namespace) are kept
// in the call, as "droid".
func (b *block) readCall(raw []byte) bool {
	ok := true
	var id, name bool
	b.kind = callBlock
	rawjson.ObjectMembers(raw, func(key, value []byte) {
		value = source.Trim(value)
		switch string(key) {
		case "type":
		case "id":
			b.id, id = stringOf(value)
			ok = ok && id
		case "name":
			b.name, name = stringOf(value)
			ok = ok && name
		case "input":
			b.input = value
		default:
			b.keep(key, value)
		}
	})
	return ok && id && name
}

// readResult reads a tool_result: a string tool_use_id, a content of any
// shape, an is_error that is a boolean (or null); its other members are
// kept in the result, as "droid".
func (b *block) readResult(raw []byte) bool {
	ok, id := true, false
	b.kind = resultBlock
	rawjson.ObjectMembers(raw, func(key, value []byte) {
		value = source.Trim(value)
		switch string(key) {
		case "type":
		case "tool_use_id":
			b.id, id = stringOf(value)
			ok = ok && id
		case "content":
			b.content = value
		case "is_error":
			switch string(value) {
			case "true":
				b.failed = true
			case "false", "null":
				b.failed = false
			default:
				ok = false
			}
		default:
			b.keep(key, value)
		}
	})
	return ok && id
}

// readImage reads an image block whose source is base64 data of a media
// type, and nothing else.
func (b *block) readImage(raw []byte) bool {
	ok := true
	var src []byte
	rawjson.ObjectMembers(raw, func(key, value []byte) {
		switch string(key) {
		case "type":
		case "source":
			src = source.Trim(value)
		default:
			ok = false
		}
	})
	if !ok || len(src) == 0 || src[0] != '{' {
		return false
	}
	var base64, media, data bool
	rawjson.ObjectMembers(src, func(key, value []byte) {
		value = source.Trim(value)
		switch string(key) {
		case "type":
			t, _ := stringOf(value)
			base64 = t == "base64"
		case "media_type":
			b.media, media = stringOf(value)
		case "data":
			b.data, data = stringOf(value)
		default:
			ok = false
		}
	})
	b.kind = imageBlock
	return ok && base64 && media && data
}

// keep adds a member the mapping does not read to the block's extra.
func (b *block) keep(key, value []byte) {
	if b.extra == nil {
		b.extra = rawjson.NewObject()
	}
	b.extra.Raw(string(key), rawjson.AppendCompact(nil, value))
}

// withoutType is the block's members but its type, as a JSON object: the
// data of the event that keeps it.
func withoutType(raw []byte) []byte {
	o := rawjson.NewObject()
	rawjson.ObjectMembers(raw, func(key, value []byte) {
		if string(key) != "type" {
			o.Raw(string(key), rawjson.AppendCompact(nil, value))
		}
	})
	return o.Done()
}

// reasoningMembers are the members of an assistant message that hold its
// reasoning when the model's API is not Anthropic's: OpenAI's Responses
// (encrypted, with a summary), or a chat completion's reasoning field.
var reasoningMembers = map[string]bool{
	"openaiEncryptedContent": true, "openaiReasoningId": true, "openaiReasoningSummary": true,
	"chatCompletionReasoningField": true, "chatCompletionReasoningContent": true,
}

// msg is what the mapping reads of a message record's message.
type msg struct {
	role    string
	content []byte // as written; nil when absent or null
	// The members beyond role, content and the reasoning's, as an object
	// for the meta (modelId, apiProvider, visibility, hookEventName, ...).
	extra     *rawjson.Object
	reasoning map[string][]byte
	// What says a message is not one a person typed, or not in the
	// model's context.
	visibility, source, hook string
}

// readMessage reads a message: an object with a string role, and a
// content that is a string, a list, or absent.
func readMessage(v []byte) (msg, bool) {
	var m msg
	if len(v) == 0 || v[0] != '{' {
		return m, false
	}
	ok, role := true, false
	rawjson.ObjectMembers(v, func(key, value []byte) {
		value = source.Trim(value)
		switch k := string(key); {
		case k == "role":
			m.role, role = stringOf(value)
		case k == "content":
			switch {
			case string(value) == "null":
				m.content = nil
			case len(value) > 0 && (value[0] == '"' || value[0] == '['):
				m.content = value
			default:
				ok = false
			}
		case reasoningMembers[k]:
			if m.reasoning == nil {
				m.reasoning = map[string][]byte{}
			}
			m.reasoning[k] = value
		default:
			switch k {
			case "visibility":
				m.visibility, _ = stringOf(value)
			case "userMessageSource":
				m.source, _ = stringOf(value)
			case "hookEventName":
				m.hook, _ = stringOf(value)
			}
			if m.extra == nil {
				m.extra = rawjson.NewObject()
			}
			m.extra.Raw(k, rawjson.AppendCompact(nil, value))
		}
	})
	return m, ok && role && (m.role == "user" || m.role == "assistant")
}

// synthetic reports whether a user message is one its person did not
// type: context Droid gives the model (visibility llm_only), a notice it
// shows the person (user_only), a hook's output, an automation's prompt.
func (m msg) synthetic() bool {
	return m.visibility == "llm_only" || m.visibility == "user_only" || m.hook != "" ||
		m.source != "" && m.source != "user"
}

// message maps a message record ({"message": {"role", "content", ...}}):
// its reasoning, its blocks' entries, in the order tool results, context
// Droid adds (<system-reminder> texts), thinking and other blocks, the
// text, the tool calls. A message of another shape, or that makes no
// entry, is kept as an event.
func (in *input) message() []source.Output {
	m, ok := readMessage(in.r.member("message"))
	if !ok {
		return in.event("droid/message", in.r.withoutEnvelope())
	}
	rest := in.r.withoutEnvelope("message")
	in.first = func(o *rawjson.Object) {
		if len(rest) > 2 {
			o.Raw("record", rest)
		}
		if m.extra != nil {
			o.Raw("message", m.extra.Done())
		}
	}
	// A notice Droid shows its person and not its model.
	in.hidden = m.visibility == "user_only"
	in.c.blocks = readBlocks(m.content, in.c.blocks[:0])
	out := in.reasoning(m)
	out = append(out, in.blocks(m, in.c.blocks)...)
	if len(out) == 0 {
		in.first = nil
		return in.event("droid/message", in.r.withoutEnvelope())
	}
	return out
}

// readBlocks reads a message's content into blocks (reused): a string is
// one text block.
func readBlocks(content []byte, blocks []block) []block {
	if len(content) == 0 {
		return blocks
	}
	if content[0] == '"' {
		return append(blocks, decodeBlock(content))
	}
	rawjson.ArrayItems(content, func(item []byte) { blocks = append(blocks, decodeBlock(item)) })
	return blocks
}

// reasoning maps what an assistant message holds of its model's
// reasoning beside its blocks: a chat completion's reasoning text, as a
// thinking event ({"thinking", "field"}); OpenAI's reasoning, as a
// reasoning event ({"id", "summary", "encrypted_content"}).
func (in *input) reasoning(m msg) []source.Output {
	if m.reasoning == nil {
		return nil
	}
	var out []source.Output
	r := m.reasoning
	if text, ok := stringOf(r["chatCompletionReasoningContent"]); ok {
		data := rawjson.NewObject().Str("thinking", text)
		if f := r["chatCompletionReasoningField"]; f != nil {
			data.Raw("field", rawjson.AppendCompact(nil, f))
		}
		out = append(out, in.entry(tapelog.KindEvent, source.NamedData("thinking", data.Done()), in.meta()))
		delete(r, "chatCompletionReasoningContent")
		delete(r, "chatCompletionReasoningField")
	}
	data := rawjson.NewObject()
	names := [...]struct{ from, to string }{
		{"openaiReasoningId", "id"}, {"openaiReasoningSummary", "summary"}, {"openaiEncryptedContent", "encrypted_content"},
		{"chatCompletionReasoningField", "field"}, {"chatCompletionReasoningContent", "content"},
	}
	found := false
	for _, n := range names {
		if v, ok := r[n.from]; ok {
			data.Raw(n.to, rawjson.AppendCompact(nil, v))
			found = true
		}
	}
	if found {
		out = append(out, in.entry(tapelog.KindEvent, source.NamedData("reasoning", data.Done()), in.meta()))
	}
	return out
}

// blocks maps a message's blocks.
func (in *input) blocks(m msg, blocks []block) []source.Output {
	var results, calls [][]byte
	var reminders, parts []*block
	var events []source.Output
	for i := range blocks {
		b := &blocks[i]
		switch {
		case b.kind == resultBlock:
			results = append(results, b.result())
		case b.kind == callBlock && m.role == "assistant":
			calls = append(calls, b.call())
		case b.kind == textBlock && m.role == "user" && isReminder(b.text):
			reminders = append(reminders, b)
		case b.kind == textBlock, m.role == "user":
			parts = append(parts, b)
		case b.kind == thinkingBlock:
			events = append(events, in.entry(tapelog.KindEvent, source.NamedData("thinking", withoutType(b.raw)), in.meta()))
		default:
			events = append(events, in.blockEvent(b))
		}
	}
	var out []source.Output
	if results != nil {
		payload := rawjson.NewObject().Raw("results", rawjson.Array(results...)).Done()
		out = append(out, in.entry(tapelog.KindToolResult, payload, in.meta()))
	}
	if reminders != nil {
		out = append(out, in.chat(m, reminders, true))
	}
	out = append(out, events...)
	if parts != nil {
		out = append(out, in.chat(m, parts, m.role == "user" && m.synthetic()))
	}
	if calls != nil {
		payload := rawjson.NewObject().Raw("calls", rawjson.Array(calls...)).Done()
		out = append(out, in.entry(tapelog.KindToolCall, payload, in.meta()))
	}
	return out
}

// mappedTypes are the block types the mapping reads: a block of one of
// them that it cannot read is of another shape than Droid writes.
var mappedTypes = map[string]bool{"text": true, "thinking": true, "tool_use": true, "tool_result": true}

// blockEvent keeps an assistant's block that its entries do not hold: a
// redacted thinking, an image, a document, a block of a type a later Droid
// adds, as "droid/<type>" with the block without its type; a block of
// another shape (not an object, no type, a member the mapping reads of
// another type) as "droid/block", the block as written.
func (in *input) blockEvent(b *block) source.Output {
	name, data := "droid/block", b.raw
	if b.typ != "" && !(b.kind == otherBlock && mappedTypes[b.typ]) && isPlainType(b.typ) {
		name, data = "droid/"+b.typ, withoutType(b.raw)
	}
	return in.entry(tapelog.KindEvent, source.NamedData(name, data), in.meta())
}

// isPlainType reports whether a block's type can name an event: a word of
// letters, digits and '_' (a type is any string Droid writes).
func isPlainType(t string) bool {
	for _, r := range t {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return t != ""
}

// chat is a message entry of blocks: its content the text, when it is one
// text; else a list of parts, a text as {"type": "text", "text"}, an
// image as {"type": "image_url", "image_url": {"url": "data:..."}}, any
// other block as written. Synthetic ones say so in their meta.
func (in *input) chat(m msg, parts []*block, synthetic bool) source.Output {
	var content []byte
	if len(parts) == 1 && parts[0].kind == textBlock {
		content = rawjson.AppendString(nil, parts[0].text)
	} else {
		items := make([][]byte, len(parts))
		for i, b := range parts {
			items[i] = b.part()
		}
		content = rawjson.Array(items...)
	}
	meta := in.meta()
	if synthetic {
		meta.True("synthetic")
	}
	payload := rawjson.NewObject().Str("role", m.role).Raw("content", content).Done()
	return in.entry(tapelog.KindMessage, payload, meta)
}

// part is a block as a part of a message's content.
func (b *block) part() []byte {
	switch b.kind {
	case textBlock:
		return rawjson.NewObject().Str("type", "text").Str("text", b.text).Done()
	case imageBlock:
		url := rawjson.NewObject().Str("url", "data:"+b.media+";base64,"+b.data).Done()
		return rawjson.NewObject().Str("type", "image_url").Raw("image_url", url).Done()
	}
	return rawjson.AppendCompact(nil, b.raw)
}

// call is a tool_use as a call: {"id", "type": "function", "function":
// {"name", "arguments": input as JSON text}}, and its other members.
func (b *block) call() []byte {
	input := b.input
	if input == nil {
		input = []byte("{}")
	}
	fn := rawjson.NewObject().Str("name", b.name).Str("arguments", string(rawjson.AppendCompact(nil, input))).Done()
	o := rawjson.NewObject().Str("id", b.id).Str("type", "function").Raw("function", fn)
	if b.extra != nil {
		o.Raw("droid", b.extra.Done())
	}
	return o.Done()
}

// result is a tool_result as a result: {"tool_call_id", "content" as
// written, "is_error": true when it failed}, and its other members.
func (b *block) result() []byte {
	o := rawjson.NewObject().Str("tool_call_id", b.id).Raw("content", rawjson.AppendCompact(nil, source.OrNull(b.content)))
	if b.failed {
		o.True("is_error")
	}
	if b.extra != nil {
		o.Raw("droid", b.extra.Done())
	}
	return o.Done()
}

// isReminder reports whether a user's text is context Droid adds to the
// message for its model (the date, the skills, the files it read):
// written as <system-reminder>...</system-reminder>.
func isReminder(text string) bool {
	return strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "<system-reminder>")
}
