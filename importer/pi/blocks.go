package pi

import (
	"encoding/json"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// readContent reads a user's (or an extension's) content as a message
// entry's: a string is itself; a list of one text block is its text; a
// list of text and image blocks is a list of parts in the OpenAI shape,
// {"type": "text", "text"} and {"type": "image_url", "image_url": {"url":
// "data:<mimeType>;base64,<data>"}} (oh-my-pi's "blob:sha256:..."
// reference as it is). ok is false for anything else: a block of another
// kind or shape, which the mapping cannot read without losing it.
func readContent(raw []byte) (json.RawMessage, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	if raw[0] == '"' {
		return compact(raw), true
	}
	if raw[0] != '[' {
		return nil, false
	}
	var parts [][]byte
	texts, ok := 0, true
	var only []byte // the text of the one text block
	rawjson.ArrayItems(raw, func(item []byte) {
		if !ok {
			return
		}
		if len(item) == 0 || item[0] != '{' {
			ok = false
			return
		}
		b := members(item)
		typ, _ := b.str("type")
		switch text := b.raw("text"); {
		case typ == "text" && isString(text) && nullOrString(b.raw("textSignature")):
			texts++
			only = text
			parts = append(parts, rawjson.NewObject().Str("type", "text").Raw("text", compact(text)).Done())
		case typ == "image":
			data, ok1 := b.str("data")
			mime, ok2 := b.str("mimeType")
			if !ok1 || !ok2 {
				ok = false
				return
			}
			url := "data:" + mime + ";base64," + data
			if strings.HasPrefix(data, "blob:") {
				url = data
			}
			img := rawjson.NewObject().Str("url", url).Done()
			parts = append(parts, rawjson.NewObject().Str("type", "image_url").Raw("image_url", img).Done())
		default:
			ok = false
		}
	})
	switch {
	case !ok:
		return nil, false
	case texts == 1 && len(parts) == 1:
		return compact(only), true
	}
	return rawjson.Array(parts...), true
}

// assistant maps an assistant's message: its content blocks in order, a
// text a message, a thinking a "thinking" event, every tool call one
// tool_call entry at the place of the first, a block of another kind an
// event "pi/<type>" of the block (one of no kind or another shape,
// "pi/block"); then its errorMessage, an error entry; then its usage, a
// run event.
func (c *converter) assistant(in *input, m object) []source.Output {
	for _, key := range []string{"model", "provider", "stopReason", "errorMessage"} {
		if v := m.raw(key); len(v) > 0 && !isString(v) && string(v) != "null" {
			return nil // of another shape than Pi writes: the message is kept whole
		}
	}
	content := m.raw("content")
	if len(content) > 0 && !isString(content) && content[0] != '[' && string(content) != "null" {
		return nil
	}
	var out []source.Output
	k := 0
	add := func(kind string, payload json.RawMessage) {
		out = append(out, c.entry(in, k, kind, payload, nil))
		k++
	}
	event := func(name string, data []byte) { add(tapelog.KindEvent, source.NamedData(name, data)) }
	switch {
	case len(content) > 0 && content[0] == '"':
		add(tapelog.KindMessage, rawjson.NewObject().Str("role", "assistant").Raw("content", compact(content)).Done())
	case len(content) > 0 && content[0] == '[':
		calls, at := [][]byte(nil), -1
		rawjson.ArrayItems(content, func(item []byte) {
			if len(item) == 0 || item[0] != '{' {
				event("pi/block", item)
				return
			}
			b := members(item)
			typ, _ := b.str("type")
			switch {
			case typ == "text" && isString(b.raw("text")) && nullOrString(b.raw("textSignature")):
				add(tapelog.KindMessage, rawjson.NewObject().Str("role", "assistant").Raw("content", compact(b.raw("text"))).Done())
			case typ == "thinking" && isString(b.raw("thinking")) && nullOrString(b.raw("thinkingSignature")):
				data := rawjson.NewObject().Raw("thinking", compact(b.raw("thinking")))
				if s := b.raw("thinkingSignature"); isString(s) {
					data.Raw("signature", compact(s))
				}
				if b.isTrue("redacted") {
					data.True("redacted")
				}
				add(tapelog.KindEvent, rawjson.NewObject().Str("name", "thinking").Raw("data", data.Done()).Done()) // as Claude Code's
			case typ == "toolCall" && isString(b.raw("id")) && isString(b.raw("name")) && nullOrString(b.raw("intent")):
				if at < 0 {
					at = len(out)
					add(tapelog.KindToolCall, nil) // its payload once every call is read
				}
				calls = append(calls, toolCall(b))
			case typ == "":
				event("pi/block", item)
			default:
				event("pi/"+typ, item)
			}
		})
		if at >= 0 {
			out[at].Entry.Payload = rawjson.NewObject().Raw("calls", rawjson.Array(calls...)).Done()
		}
	}
	if msg, ok := m.str("errorMessage"); ok && msg != "" {
		kind, _ := m.str("stopReason")
		if kind != "aborted" {
			kind = "api"
		}
		add(tapelog.KindError, rawjson.NewObject().Str("kind", kind).Str("message", msg).Done())
	}
	if run, ok := c.run(in, m); ok {
		add(tapelog.KindEvent, run)
	}
	return out
}

// toolCall is a toolCall block as a call: {"id", "type": "function",
// "function": {"name", "arguments": the arguments as JSON text}}, and
// oh-my-pi's "intent" when it has one.
func toolCall(b object) []byte {
	id, _ := b.str("id")
	name, _ := b.str("name")
	args := b.raw("arguments")
	var text string
	if s, ok := rawjson.String(args); ok {
		text = s // arguments written as JSON text already
	} else {
		text = string(compact(source.OrNull(args)))
	}
	call := rawjson.NewObject().Str("id", id).Str("type", "function").
		Raw("function", rawjson.NewObject().Str("name", name).Str("arguments", text).Done())
	if intent := b.raw("intent"); isString(intent) {
		call.Raw("intent", compact(intent))
	}
	return call.Done()
}

func isString(raw []byte) bool { return len(raw) > 0 && raw[0] == '"' }

// nullOrString reports whether a member is absent, null or a string.
func nullOrString(raw []byte) bool { return len(raw) == 0 || string(raw) == "null" || isString(raw) }
