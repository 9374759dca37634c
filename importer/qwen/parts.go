package qwen

import (
	"fmt"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// partKind is what a part of a message is to the mapping.
type partKind int

const (
	textPart    partKind = iota // {"text"}
	thoughtPart                 // {"text", "thought": true, "thoughtSignature"}
	callPart                    // {"functionCall": {"id", "name", "args"}}
	resultPart                  // {"functionResponse": {"id", "name", "response"}}
	imagePart                   // {"inlineData": {"mimeType", "data"}}
	otherPart                   // anything else, kept as written
)

// part is one part of a message (Gemini's Part, as Qwen Code writes it).
// Its raw members are parts of the line.
type part struct {
	kind      partKind
	text      string // text, thought
	signature string // thought
	id, name  string // call, result
	args      []byte // call: args as written; nil when absent
	content   []byte // result: what the result entry keeps
	failed    bool   // result: the response holds an error
	mime      string // image
	data      string // image
	raw       []byte // the part as written
}

// decodeMessage reads a message's parts into parts (reused), from a
// line that was checked: ok is false when the message is of another
// shape than Qwen Code writes ({"role", "parts": [...]}).
func decodeMessage(msg []byte, parts []part) ([]part, bool) {
	parts = parts[:0]
	ok := true
	rawjson.ObjectMembers(msg, func(key, value []byte) {
		value = source.Trim(value)
		switch string(key) {
		case "role":
			_, isString := source.StringValue(value)
			ok = ok && (isString || string(value) == "null")
		case "parts":
			switch {
			case string(value) == "null":
			case len(value) > 0 && value[0] == '[':
				parts = parts[:0] // the last "parts" written
				rawjson.ArrayItems(value, func(item []byte) { parts = append(parts, decodePart(item)) })
			default:
				ok = false
			}
		default:
			ok = false
		}
	})
	return parts, ok
}

// decodePart reads one part; one of another shape than the mapping reads
// is an otherPart.
func decodePart(raw []byte) part {
	p := part{kind: otherPart, raw: raw}
	if len(raw) == 0 || raw[0] != '{' {
		return p
	}
	var text, thought, call, result, image, bad bool
	rawjson.ObjectMembers(raw, func(key, value []byte) {
		value = source.Trim(value)
		var ok bool
		switch string(key) {
		case "text":
			p.text, ok = source.StringValue(value)
			text = true
		case "thought":
			thought, ok = string(value) == "true", string(value) == "true" || string(value) == "false" || string(value) == "null"
		case "thoughtSignature":
			p.signature, ok = source.StringValue(value)
		case "functionCall":
			call, ok = true, p.readCall(value)
		case "functionResponse":
			result, ok = true, p.readResult(value)
		case "inlineData":
			image, ok = true, p.readImage(value)
		}
		bad = bad || !ok
	})
	kinds := 0
	for _, k := range []bool{text || thought, call, result, image} {
		if k {
			kinds++
		}
	}
	switch {
	case bad || kinds != 1:
		return part{kind: otherPart, raw: raw}
	case call:
		p.kind = callPart
	case result:
		p.kind = resultPart
	case image:
		p.kind = imagePart
	case thought:
		p.kind = thoughtPart
	default:
		p.kind = textPart
	}
	return p
}

// readCall reads a functionCall: a string name, a string id (or none),
// and args of any shape.
func (p *part) readCall(v []byte) bool {
	ok := len(v) > 0 && v[0] == '{'
	named := false
	rawjson.ObjectMembers(v, func(key, value []byte) {
		value = source.Trim(value)
		switch string(key) {
		case "id":
			var isString bool
			p.id, isString = source.StringValue(value)
			ok = ok && (isString || string(value) == "null")
		case "name":
			p.name, named = source.StringValue(value)
		case "args":
			p.args = value
		default:
			ok = false
		}
	})
	return ok && named
}

// readResult reads a functionResponse: its id and name (strings), and
// what the result keeps of it: the response's output when that is all
// the response holds, else the response; the whole functionResponse when
// it holds more than an id, a name and a response.
func (p *part) readResult(v []byte) bool {
	ok := len(v) > 0 && v[0] == '{'
	var response []byte
	whole := false
	rawjson.ObjectMembers(v, func(key, value []byte) {
		value = source.Trim(value)
		var isString bool
		switch string(key) {
		case "id":
			p.id, isString = source.StringValue(value)
			ok = ok && (isString || string(value) == "null")
		case "name":
			p.name, isString = source.StringValue(value)
			ok = ok && (isString || string(value) == "null")
		case "response":
			response = value
		default:
			whole = true
		}
	})
	if !ok {
		return false
	}
	p.content = response
	onlyOutput := true
	rawjson.ObjectMembers(response, func(key, value []byte) {
		switch string(key) {
		case "output":
		case "error":
			p.failed = p.failed || string(source.Trim(value)) != "null"
			onlyOutput = false
		default:
			onlyOutput = false
		}
	})
	if output, found := lookupMember(response, "output"); found && onlyOutput {
		p.content = output
	}
	if whole {
		p.content = v
	}
	return true
}

// readImage reads an inlineData: a media type and base64 data, strings.
func (p *part) readImage(v []byte) bool {
	ok := len(v) > 0 && v[0] == '{'
	var hasData bool
	rawjson.ObjectMembers(v, func(key, value []byte) {
		value = source.Trim(value)
		var isString bool
		switch string(key) {
		case "mimeType":
			p.mime, isString = source.StringValue(value)
		case "data":
			p.data, isString = source.StringValue(value)
			hasData = isString
		}
		ok = ok && isString
	})
	return ok && hasData
}

// lookupMember is the value of the last member key of the object v.
func lookupMember(v []byte, key string) ([]byte, bool) {
	var out []byte
	found := false
	rawjson.ObjectMembers(v, func(k, value []byte) {
		if string(k) == key {
			out, found = source.Trim(value), true
		}
	})
	return out, found
}

// conversation maps a user, assistant or tool_result record: its
// message's parts, in this order, as a tool_result entry (the function
// responses), a thinking event (the thoughts), a message (the text,
// images and other parts) and a tool_call entry (the function calls);
// then the run event of its usage.
func (in *input) conversation() []source.Output {
	parts, ok := decodeMessage(in.r.Message, in.c.parts)
	in.c.parts = parts
	if !ok {
		return in.withRun(in.event("qwen/"+in.r.Type, in.r.whole()))
	}
	var out []source.Output
	if o, ok := in.results(parts); ok {
		out = append(out, o)
	}
	if o, ok := in.thinking(parts); ok {
		out = append(out, o)
	}
	if o, ok := in.message(parts); ok {
		out = append(out, o)
	} else if in.hasSystemPayload() {
		// No message to keep it in the meta of: kept as an event.
		data := rawjson.NewObject().Raw("systemPayload", rawjson.AppendCompact(nil, in.r.SystemPayload)).Done()
		out = append(out, in.event("qwen/"+in.r.Type, data)...)
	}
	if o, ok := in.calls(parts); ok {
		out = append(out, o)
	}
	out = append(out, in.usage()...)
	if len(out) == 0 {
		// Nothing the mapping reads (a message without parts): the
		// record, kept.
		out = in.event("qwen/"+in.r.Type, in.r.withoutEnvelope())
	}
	return out
}

// results is the tool_result entry of the message's function responses:
// failed when the response holds an error, or the record's toolCallResult
// says the call ended in error or was cancelled.
func (in *input) results(parts []part) (source.Output, bool) {
	status, statusOf := in.toolStatus()
	var items [][]byte
	for _, p := range parts {
		if p.kind != resultPart {
			continue
		}
		o := rawjson.NewObject()
		if p.id != "" {
			o.Str("tool_call_id", p.id)
		}
		o.StrIf("name", p.name).Raw("content", rawjson.AppendCompact(nil, p.content))
		if p.failed || (status == "error" || status == "cancelled") && (statusOf == "" || statusOf == p.id) {
			o.True("is_error")
		}
		items = append(items, o.Done())
	}
	if len(items) == 0 {
		return source.Output{}, false
	}
	payload := rawjson.NewObject().Raw("results", rawjson.Array(items...)).Done()
	return in.entry(tapelog.KindToolResult, payload, in.meta()), true
}

// toolStatus is the status of the record's toolCallResult and the call it
// is of ("" when it names none).
func (in *input) toolStatus() (status, callID string) {
	rawjson.ObjectMembers(in.r.ToolCallResult, func(key, value []byte) {
		switch string(key) {
		case "status":
			status, _ = source.StringValue(source.Trim(value))
		case "callId":
			callID, _ = source.StringValue(source.Trim(value))
		}
	})
	return status, callID
}

// thinking is the thinking event of the message's thoughts, joined by
// newlines, with the last signature.
func (in *input) thinking(parts []part) (source.Output, bool) {
	var texts []string
	signature := ""
	for _, p := range parts {
		if p.kind == thoughtPart {
			texts = append(texts, p.text)
			if p.signature != "" {
				signature = p.signature
			}
		}
	}
	if texts == nil {
		return source.Output{}, false
	}
	data := rawjson.NewObject().Str("thinking", strings.Join(texts, "\n")).StrIf("signature", signature).Done()
	return in.entry(tapelog.KindEvent, source.NamedData("thinking", data), in.meta()), true
}

// message is the message of the text, images and other parts: the text
// parts joined by newlines when there is nothing else, else a list of
// parts in the OpenAI shape. A record's systemPayload (a user prompt as
// Qwen Code shows it, with its attachments' references) is kept in the
// meta, out of the context a model is given.
func (in *input) message(parts []part) (source.Output, bool) {
	var texts []string
	list := false
	for _, p := range parts {
		switch p.kind {
		case textPart:
			texts = append(texts, p.text)
		case imagePart, otherPart:
			list = true
		}
	}
	if texts == nil && !list {
		return source.Output{}, false
	}
	role := "user"
	if in.r.Type == "assistant" {
		role = "assistant"
	}
	o := rawjson.NewObject().Str("role", role)
	if list {
		var items [][]byte
		for _, p := range parts {
			switch p.kind {
			case textPart:
				items = append(items, rawjson.NewObject().Str("type", "text").Str("text", p.text).Done())
			case imagePart:
				url := rawjson.NewObject().Str("url", fmt.Sprintf("data:%s;base64,%s", p.mime, p.data)).Done()
				items = append(items, rawjson.NewObject().Str("type", "image_url").Raw("image_url", url).Done())
			case otherPart:
				items = append(items, rawjson.AppendCompact(nil, p.raw))
			}
		}
		o.Raw("content", rawjson.Array(items...))
	} else {
		o.Str("content", strings.Join(texts, "\n"))
	}
	meta := in.meta()
	if in.hasSystemPayload() {
		meta.Raw("system_payload", rawjson.AppendCompact(nil, in.r.SystemPayload))
	}
	if in.synthetic() {
		meta.True("synthetic")
	}
	if in.r.Subtype != "" {
		meta.Str("subtype", in.r.Subtype)
	}
	return in.entry(tapelog.KindMessage, o.Done(), meta), true
}

func (in *input) hasSystemPayload() bool {
	return in.r.SystemPayload != nil && string(in.r.SystemPayload) != "null"
}

// synthetic reports whether the record's message is one a person did not
// type: a tool's output beside its response, a notification, a cron
// prompt, a goal's runtime message, or a record whose provenance says it
// is not the user's.
func (in *input) synthetic() bool {
	switch {
	case in.r.Type == "tool_result":
		return true
	case in.r.Type != "user":
		return false
	case in.r.Subtype == "notification" || in.r.Subtype == "cron" || in.r.Subtype == "goal_runtime":
		return true
	}
	return in.r.Provenance != "" && in.r.Provenance != "real_user"
}

// calls is the tool_call entry of the message's function calls. A call
// without an id gets <entry id>#<n>.
func (in *input) calls(parts []part) (source.Output, bool) {
	var items [][]byte
	for i, p := range parts {
		if p.kind != callPart {
			continue
		}
		id := p.id
		if id == "" {
			id = fmt.Sprintf("%s:call%d", source.LineID(in.c.path, in.l.No, 0), i)
		}
		args := "{}"
		if p.args != nil {
			args = string(rawjson.AppendCompact(nil, p.args))
		}
		fn := rawjson.NewObject().Str("name", p.name).Str("arguments", args).Done()
		items = append(items, rawjson.NewObject().Str("id", id).Str("type", "function").Raw("function", fn).Done())
	}
	if len(items) == 0 {
		return source.Output{}, false
	}
	payload := rawjson.NewObject().Raw("calls", rawjson.Array(items...)).Done()
	return in.entry(tapelog.KindToolCall, payload, in.meta()), true
}
