package kimi

import (
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// partKind is what a content part is to the mapping.
type partKind int

const (
	textPart  partKind = iota // {"type": "text", "text"}
	thinkPart                 // {"type": "think", "think", "encrypted"}
	imagePart                 // {"type": "image_url", "image_url" or "imageUrl": {"url"}}
	otherPart                 // anything else (audio, video, an image with an id, odd shapes): kept as written
)

// part is one content part, as Kimi CLI (kosong) and Kimi Code write
// them alike but for the spelling of the media's member.
type part struct {
	kind partKind
	text []byte // text, think: the JSON string as written, which a payload takes as it is
	sig  string // think: encrypted
	url  string // image
	raw  []byte // the part as written
}

// readPart reads one part; one of another shape than the mapping reads
// (a member it does not know, a value of another type) is an otherPart.
func readPart(raw []byte) part {
	p := part{kind: otherPart, raw: raw}
	f := fieldsOf(raw)
	typ, _ := f.str("type")
	switch typ {
	case "text":
		if text := f.get("text"); isString(text) && f.only("type", "text") {
			p.kind, p.text = textPart, text
		}
	case "think":
		think := f.get("think")
		sig, sigOK := f.str("encrypted")
		if isString(think) && (sigOK || isNull(f.get("encrypted"))) && f.only("type", "think", "encrypted") {
			p.kind, p.text, p.sig = thinkPart, think, sig
		}
	case "image_url":
		for _, key := range []string{"image_url", "imageUrl"} {
			img := fieldsOf(f.get(key))
			if url, ok := img.str("url"); ok && f.only("type", key) && img.only("url", "id") && isNull(img.get("id")) {
				p.kind, p.url = imagePart, url
			}
		}
	}
	return p
}

// readParts reads a list of parts; ok is false when v is not a list.
func readParts(v []byte) ([]part, bool) {
	if !isArray(v) {
		return nil, false
	}
	var parts []part
	rawjson.ArrayItems(v, func(item []byte) { parts = append(parts, readPart(item)) })
	return parts, true
}

// content is what a list of parts makes: the thinking of its think parts,
// and the message content of the others.
type content struct {
	thinking []byte // the thinking event's data; nil for none
	message  []byte // the message's content (a JSON string or list); nil for none
}

// contentOf splits parts into the thinking (think parts joined by
// newlines, with their signatures: one, or a list of each) and the
// message content: the text
// parts joined by newlines when there is nothing else, else a list of
// parts in the OpenAI shape ({"type": "text", "text"}, {"type":
// "image_url", "image_url": {"url"}}) with the others as written.
func contentOf(parts []part) content {
	var c content
	var thoughts, texts [][]byte
	var sigs []string
	list := false
	for _, p := range parts {
		switch p.kind {
		case thinkPart:
			thoughts = append(thoughts, p.text)
			if p.sig != "" {
				sigs = append(sigs, p.sig)
			}
		case textPart:
			texts = append(texts, p.text)
		default:
			list = true
		}
	}
	if thoughts != nil {
		o := rawjson.NewObject().Raw("thinking", joined(thoughts))
		switch len(sigs) {
		case 0:
		case 1:
			o.Str("signature", sigs[0])
		default: // a message of many thoughts, each signed
			items := make([][]byte, len(sigs))
			for i, s := range sigs {
				items[i] = rawjson.AppendString(nil, s)
			}
			o.Raw("signatures", rawjson.Array(items...))
		}
		c.thinking = o.Done()
	}
	switch {
	case list:
		var items [][]byte
		for _, p := range parts {
			switch p.kind {
			case textPart:
				items = append(items, rawjson.NewObject().Str("type", "text").Raw("text", p.text).Done())
			case imagePart:
				url := rawjson.NewObject().Str("url", p.url).Done()
				items = append(items, rawjson.NewObject().Str("type", "image_url").Raw("image_url", url).Done())
			case otherPart:
				items = append(items, rawjson.AppendCompact(nil, p.raw))
			}
		}
		c.message = rawjson.Array(items...)
	case texts != nil:
		c.message = joined(texts)
	}
	return c
}

// joined is JSON strings joined by newlines, as a JSON string: the one
// string as written, when there is one.
func joined(texts [][]byte) []byte {
	if len(texts) == 1 {
		return texts[0]
	}
	s := make([]string, len(texts))
	for i, t := range texts {
		s[i], _ = source.StringValue(t)
	}
	return rawjson.AppendString(nil, strings.Join(s, "\n"))
}

// messages are the entries of content said by role: a thinking event,
// then a message, each with the meta meta makes (a fresh one each).
func (in *input) messages(role string, c content, meta func() *rawjson.Object) []source.Output {
	var out []source.Output
	if c.thinking != nil {
		out = append(out, in.entry(tapelog.KindEvent, source.NamedData("thinking", c.thinking), meta()))
	}
	if c.message != nil {
		kind, payload := tapelog.KindMessage, rawjson.NewObject().Str("role", role).Raw("content", c.message).Done()
		if role == "system" {
			kind, payload = tapelog.KindSystem, rawjson.NewObject().Raw("content", c.message).Done()
		}
		out = append(out, in.entry(kind, payload, meta()))
	}
	return out
}

// call is one tool call, as a tool_call entry's item: {"id", "type":
// "function", "function": {"name", "arguments"}}, and the call's extras
// when it has them.
func call(id, name, arguments string, extras []byte) []byte {
	if arguments == "" {
		arguments = "{}"
	}
	fn := rawjson.NewObject().Str("name", name).Str("arguments", arguments).Done()
	o := rawjson.NewObject().Str("id", id).Str("type", "function").Raw("function", fn)
	if !isNull(extras) {
		o.Raw("extras", rawjson.AppendCompact(nil, extras))
	}
	return o.Done()
}

// calls is the tool_call entry of items.
func (in *input) calls(items [][]byte, meta *rawjson.Object) source.Output {
	return in.entry(tapelog.KindToolCall, rawjson.NewObject().Raw("calls", rawjson.Array(items...)).Done(), meta)
}

// results is the tool_result entry of items.
func (in *input) results(items [][]byte, meta *rawjson.Object) source.Output {
	return in.entry(tapelog.KindToolResult, rawjson.NewObject().Raw("results", rawjson.Array(items...)).Done(), meta)
}

// result is one tool result, as a tool_result entry's item:
// {"tool_call_id", "content": the output as written, "is_error": true}
// and more, which the caller adds before it ends it.
func result(id string, output []byte, failed bool) *rawjson.Object {
	o := rawjson.NewObject().Str("tool_call_id", id).Raw("content", rawjson.AppendCompact(nil, orNull(output)))
	if failed {
		o.True("is_error")
	}
	return o
}

// orNull is v, or the JSON null when v is absent.
func orNull(v []byte) []byte {
	if len(v) == 0 {
		return []byte("null")
	}
	return v
}

// arguments is a call's arguments as JSON text: a string as written (Kimi
// CLI's, and the model's text when it is not JSON), else the value's JSON
// (Kimi Code's args), "{}" for none.
func arguments(v []byte) string {
	if isNull(v) {
		return "{}"
	}
	if s, ok := source.StringValue(v); ok {
		return s
	}
	return string(rawjson.AppendCompact(nil, v))
}
