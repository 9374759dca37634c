package droid

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

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
			m.role, role = source.StringValue(value)
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
				m.visibility, _ = source.StringValue(value)
			case "userMessageSource":
				m.source, _ = source.StringValue(value)
			case "hookEventName":
				m.hook, _ = source.StringValue(value)
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
	if text, ok := source.StringValue(r["chatCompletionReasoningContent"]); ok {
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
	var results, calls, reminders, parts []*block
	var events []source.Output
	for i := range blocks {
		b := &blocks[i]
		switch {
		case b.kind == resultBlock:
			results = append(results, b)
		case b.kind == callBlock && m.role == "assistant":
			calls = append(calls, b)
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
		out = append(out, in.entry(tapelog.KindToolResult, list("results", results, (*block).appendResult), in.meta()))
	}
	if reminders != nil {
		out = append(out, in.chat(m, reminders, true))
	}
	out = append(out, events...)
	if parts != nil {
		out = append(out, in.chat(m, parts, m.role == "user" && m.synthetic()))
	}
	if calls != nil {
		out = append(out, in.entry(tapelog.KindToolCall, list("calls", calls, (*block).appendCall), in.meta()))
	}
	return out
}

// list is the payload {"<key>": [...]} of blocks, each appended by add:
// written once, for a tool's output may be large.
func list(key string, blocks []*block, add func(*block, []byte) []byte) []byte {
	n := len(key) + 8
	for _, b := range blocks {
		n += len(b.raw) + 64
	}
	p := append(make([]byte, 0, n), `{"`...)
	p = append(append(p, key...), `":[`...)
	for i, b := range blocks {
		if i > 0 {
			p = append(p, ',')
		}
		p = add(b, p)
	}
	return append(p, "]}"...)
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
		content = parts[0].text // a JSON string, as written
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
