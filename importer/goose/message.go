package goose

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// message is a Goose message, from a mirror's messages row or a line of
// a session file before the database: who wrote it, its content (a JSON
// array of blocks), its metadata (visibility, the model that made it),
// and what else its record holds.
type message struct {
	id       string // its entries' id
	role     string
	content  []byte
	metadata obj
	rest     json.RawMessage // the record's members the mapping does not read
}

// mirrorMessage reads a messages row: {"id", "message_id", "session_id",
// "role", "content_json", "created_timestamp", "timestamp", "tokens",
// "metadata_json"}. A row of no message_id (none are, since Goose's
// schema 7 gave every row one) gets the one Goose's migration gave.
func mirrorMessage(in *input) message {
	r := in.row
	id := r.Str("message_id")
	if id == "" {
		if n := string(r.Raw("id")); n != "" && n != "null" {
			id = "msg_" + r.Str("session_id") + "_" + strings.Trim(n, `"`)
		}
	}
	return message{id: id, role: r.Str("role"), content: r.Raw("content_json"), metadata: r.Sub("metadata_json"),
		rest: r.Without("table", "id", "message_id", "session_id", "role", "content_json", "created_timestamp")}
}

// legacyMessage reads a line of a session file: {"id", "role", "created",
// "content", "metadata"}; a message of no id is the line's.
func legacyMessage(path string, in *input) message {
	r := in.row
	id := r.Str("id")
	if id == "" {
		id = source.LineID(path, in.l.No, 0)
	}
	return message{id: id, role: r.Str("role"), content: r.Raw("content"), metadata: r.Sub("metadata"),
		rest: r.Without("id", "role", "created", "content")}
}

// agentOnly reports whether a message is one Goose shows the model and
// not the user (a compaction's summary, a nudge).
func (m message) agentOnly() bool {
	return string(m.metadata.Raw("userVisible")) == "false" && string(m.metadata.Raw("agentVisible")) == "true"
}

// compacted is how the message Goose adds after a compaction's summary
// begins (context_mgmt: CONVERSATION_CONTINUATION_TEXT and the others).
const compacted = "Your context was compacted"

// message maps a message's content, a block an entry (or two: a tool's
// result follows its call in another message); the first entry's meta
// keeps what else the record holds ("message": its visibility, Goose's
// timestamp and tokens columns). A message whose content is no list, or
// an empty one, is an event goose/message of its record.
func (c *converter) message(in *input, m message) []source.Output {
	out := c.start(in, nil)
	inf := m.metadata.Sub("inference")
	if model := inf.Str("resolvedModel"); model != "" {
		c.st.Model = model
	} else if model := inf.Str("requestedModel"); model != "" {
		c.st.Model = model
	}
	var blocks [][]byte
	if b := source.Trim(m.content); len(b) > 0 && b[0] == '[' {
		rawjson.ArrayItems(b, func(item []byte) { blocks = append(blocks, source.Trim(item)) })
	}
	summary := ""
	if len(blocks) == 0 {
		c.st.Summary = ""
		return append(out, c.event(in, m.id, 0, "goose/message", in.row.Without("table"))...)
	}
	first := len(out)
	for k, b := range blocks {
		bo := obj(source.ObjectOf(b))
		out = append(out, c.block(in, m, k, b, bo)...)
		if bo.Str("type") == "text" {
			summary += bo.Str("text") + "\n"
		}
	}
	c.st.Summary = ""
	if m.role == "user" && m.agentOnly() {
		c.st.Summary = strings.TrimSuffix(summary, "\n") // the summary, if the next message says so
	}
	if string(m.rest) != "{}" && len(out) > first {
		o := &out[first]
		o.Entry.Meta = append(bytes.TrimSuffix(o.Entry.Meta, []byte("}")), `,"message":`...)
		o.Entry.Meta = append(append(o.Entry.Meta, rawjson.AppendCompact(nil, m.rest)...), '}')
	}
	return out
}

// block maps the k-th block of a message's content by its type (Goose's
// MessageContent): a text is a message of the message's role; a thinking
// (or the "reasoning" of older Goose) a "thinking" event; a toolRequest
// (or frontendToolRequest) a tool call; a toolResponse its result; the
// "conversationCompacted" of Goose before 1.14 an anchor "compact", as is
// the text after a compaction's summary. Every other block (image,
// redactedThinking, toolConfirmationRequest, actionRequired,
// systemNotification...) is kept whole as an event goose/<type>.
func (c *converter) block(in *input, m message, k int, b []byte, bo obj) []source.Output {
	typ := bo.Str("type")
	switch {
	case typ == "text" && isString(bo.Raw("text")):
		if m.role == "assistant" && m.agentOnly() && strings.HasPrefix(bo.Str("text"), compacted) {
			return c.compact(in, m, k, func(st *rawjson.Object) {
				withRest(st.StrIf("summary", c.st.Summary).Raw("continuation", bo.Raw("text")), bo, "text")
			})
		}
		role := m.role
		if role != "user" {
			role = "assistant"
		}
		payload := rawjson.NewObject().Str("role", role).Raw("content", bo.Raw("text"))
		if m.role != role {
			payload.Str("goose_role", m.role)
		}
		return []source.Output{c.entry(in, m.id, k, tapelog.KindMessage, withRest(payload, bo, "text").Done())}
	case (typ == "thinking" || typ == "reasoning") && isString(bo.Raw(thinkingKey(typ))):
		d := withRest(rawjson.NewObject().Raw("thinking", bo.Raw(thinkingKey(typ))), bo, thinkingKey(typ)).Done()
		return []source.Output{c.entry(in, m.id, k, tapelog.KindEvent, rawjson.NewObject().Str("name", "thinking").Raw("data", d).Done())}
	case typ == "toolRequest" || typ == "frontendToolRequest":
		if out, ok := c.toolCall(in, m, k, bo); ok {
			return out
		}
	case typ == "toolResponse":
		if out, ok := c.toolResult(in, m, k, bo); ok {
			return out
		}
	case typ == "conversationCompacted":
		return c.compact(in, m, k, func(st *rawjson.Object) { st.Raw("compaction", bo.Without()) })
	}
	if typ == "" {
		typ = "content"
	}
	return c.event(in, m.id, k, "goose/"+typ, b)
}

func thinkingKey(typ string) string {
	if typ == "reasoning" {
		return "text"
	}
	return "thinking"
}

// compact is a new anchor "compact", whose state says what the
// compaction left the model: Goose's summary, and the text that follows
// it.
func (c *converter) compact(in *input, m message, k int, with func(*rawjson.Object)) []source.Output {
	st := rawjson.NewObject().Str("source", "goose")
	with(st)
	c.st.Summary = ""
	payload := rawjson.NewObject().Str("name", "compact").Raw("state", st.Done()).Done()
	o := c.entry(in, m.id, k, tapelog.KindAnchor, payload)
	o.Anchor = true
	return []source.Output{o}
}

// toolCall maps a toolRequest: {"id", "toolCall": {"status": "success",
// "value": {"name", "arguments"}}, "metadata", "toolMeta"}. The block's
// other members, and the value's, are the call's extra. A request Goose
// could not read from the model ({"status": "error", "error"}) is no
// call: ok is false, and the block is kept as an event.
func (c *converter) toolCall(in *input, m message, k int, bo obj) ([]source.Output, bool) {
	call := bo.Sub("toolCall")
	value := call.Sub("value")
	id, name := bo.Str("id"), value.Str("name")
	if call.Str("status") != "success" || id == "" || name == "" {
		return nil, false
	}
	args := value.Raw("arguments")
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	fn := rawjson.NewObject().Str("name", name).Str("arguments", string(rawjson.AppendCompact(nil, args)))
	o := rawjson.NewObject().Str("id", id).Str("type", "function").Raw("function", fn.Done())
	extra := rawjson.NewObject()
	if t := bo.Str("type"); t != "toolRequest" {
		extra.Str("type", t)
	}
	if rest := bo.Without("type", "id", "toolCall"); string(rest) != "{}" {
		extra.Raw("block", rest)
	}
	if rest := value.Without("name", "arguments"); string(rest) != "{}" {
		extra.Raw("value", rest)
	}
	if rest := call.Without("status", "value"); string(rest) != "{}" {
		extra.Raw("call", rest)
	}
	if e := extra.Done(); string(e) != "{}" {
		o.Raw("extra", e)
	}
	return []source.Output{c.entry(in, m.id, k, tapelog.KindToolCall, wrap(`{"calls":[`, o.Done()))}, true
}

// toolResult maps a toolResponse: {"id", "toolResult": {"status":
// "success", "value": {"content": [...], "isError", "structuredContent"}}
// (before rmcp 0.3, value the list of contents itself), or {"status":
// "error", "error": "..."}, failed}. Its content is the list of contents
// (or the error); details keep the rest of the value and of the block.
func (c *converter) toolResult(in *input, m message, k int, bo obj) ([]source.Output, bool) {
	res := bo.Sub("toolResult")
	id := bo.Str("id")
	if id == "" {
		return nil, false
	}
	r := rawjson.NewObject().Str("tool_call_id", id)
	details := rawjson.NewObject()
	v := source.Trim(res.Raw("value"))
	var val obj
	if source.IsObject(v) {
		val = obj(source.ObjectOf(v))
	}
	switch status := res.Str("status"); {
	case status == "success" && len(v) > 0 && v[0] == '[':
		r.Raw("content", rawjson.AppendCompact(nil, v))
	case status == "success" && val.Has("content"):
		r.Raw("content", rawjson.AppendCompact(nil, val.Raw("content")))
		if string(val.Raw("isError")) == "true" {
			r.True("is_error")
		}
		if rest := val.Without("content"); string(rest) != "{}" {
			details.Raw("value", rest)
		}
	case status == "error" && res.Has("error"):
		r.Raw("content", rawjson.AppendCompact(nil, res.Raw("error"))).True("is_error")
	default:
		return nil, false
	}
	if rest := res.Without("status", "value", "error"); string(rest) != "{}" {
		details.Raw("result", rest)
	}
	if rest := bo.Without("type", "id", "toolResult"); string(rest) != "{}" {
		details.Raw("block", rest)
	}
	if d := details.Done(); string(d) != "{}" {
		r.Raw("details", d)
	}
	return []source.Output{c.entry(in, m.id, k, tapelog.KindToolResult, wrap(`{"results":[`, r.Done()))}, true
}

// wrap is head, item and "]}": a payload of one call or result, made in
// one copy of the item, which may be large (a file a tool read).
func wrap(head string, item []byte) []byte {
	b := make([]byte, 0, len(head)+len(item)+2)
	return append(append(append(b, head...), item...), ']', '}')
}

// withRest adds to o, as "block", the members of a block other than its
// type and those its entry holds already (read), when it has any: a
// text's annotations, a thinking's signature.
func withRest(o *rawjson.Object, bo obj, read ...string) *rawjson.Object {
	rest := bo.Without(append(read, "type")...)
	if string(rest) != "{}" {
		o.Raw("block", rest)
	}
	return o
}

func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }
