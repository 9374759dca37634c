package crush

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// message maps a message's line by its parts, each {"type", "data"}, in
// order: a text is a message of the row's role; a reasoning a "thinking"
// event; a tool_call a call, a tool_result its result (in the tool's
// message that follows, paired by the call's id); a shell_command (a
// command the user ran with "!") a call of "shell" and its result; the
// finish of a reply a run event (its status, model and finish reason:
// Crush keeps no token counts per message); every other part (image_url,
// binary, a finish other than the one Crush adds to each message of the
// user and of tools, a type tape does not know) an event "crush/<type>".
// A summary message (is_summary_message, or the session's
// summary_message_id) starts with a compaction's anchor.
func (c *converter) message(in *input) []source.Output {
	out := c.start(in, nil)
	role := in.row.Str("role")
	if role == "assistant" {
		if m := in.row.Str("model"); m != "" {
			c.st.Model = m
		}
	}
	id := in.row.Str("id")
	if in.row.Int("is_summary_message") != 0 || id != "" && id == c.st.Summary {
		state := rawjson.NewObject().Str("source", "crush").Str("session_id", c.st.Session.ID).StrIf("message_id", id).Done()
		o := c.entry(in, tapelog.KindAnchor, rawjson.NewObject().Str("name", "compact").Raw("state", state).Done())
		o.Anchor = true
		out = append(out, o)
	}
	parts := source.Trim(in.row.Raw("parts"))
	if len(parts) == 0 || parts[0] != '[' {
		// Not the array Crush writes: kept whole, with who wrote it.
		return append(out, c.event(in, "crush/message", c.messageData(in))...)
	}
	made := len(out)
	rawjson.ArrayItems(parts, func(item []byte) {
		out = append(out, c.part(in, role, obj(source.ObjectOf(item)), item)...)
	})
	if len(out) == made {
		// No part made an entry (none, or only Crush's own finish of a
		// user's message): the message is still said.
		out = append(out, c.event(in, "crush/message", c.messageData(in))...)
	}
	return out
}

// messageData is what an event of a message keeps of its row: the role,
// the parts, the model and provider.
func (c *converter) messageData(in *input) []byte {
	return source.MembersObject(in.row, func(k string) bool {
		return k != "role" && k != "parts" && k != "model" && k != "provider"
	})
}

// part maps one part of a message.
func (c *converter) part(in *input, role string, p obj, raw []byte) []source.Output {
	data := p.Sub("data")
	if p == nil || data == nil && len(p.Raw("data")) > 0 || hasOthers(p) {
		return c.event(in, "crush/part", rawjson.AppendCompact(nil, raw))
	}
	switch typ := p.Str("type"); typ {
	case "text":
		if isString(data.Raw("text")) {
			r := role
			if r == "" {
				r = "assistant"
			}
			payload := rawjson.NewObject().Str("role", r).Raw("content", data.Raw("text"))
			return []source.Output{c.entry(in, tapelog.KindMessage, withRest(payload, data, "text").Done())}
		}
	case "reasoning":
		if isString(data.Raw("thinking")) {
			d := withRest(rawjson.NewObject().Raw("thinking", data.Raw("thinking")), data, "thinking").Done()
			return []source.Output{c.entry(in, tapelog.KindEvent, source.NamedData("thinking", d))}
		}
	case "tool_call":
		if data.Str("id") != "" && data.Str("name") != "" && isStringOrAbsent(data.Raw("input")) {
			return []source.Output{c.toolCall(in, data)}
		}
	case "tool_result":
		if data.Str("tool_call_id") != "" && isStringOrAbsent(data.Raw("content")) {
			return []source.Output{c.toolResult(in, data)}
		}
	case "shell_command":
		if isString(data.Raw("command")) && isStringOrAbsent(data.Raw("output")) {
			return c.shell(in, data)
		}
	case "finish":
		if role == "assistant" {
			return []source.Output{c.finish(in, data)}
		}
		if isOwnFinish(data) {
			return nil
		}
	}
	return c.event(in, "crush/"+orPart(p.Str("type")), rawjson.AppendCompact(nil, p.Raw("data")))
}

// isOwnFinish reports whether a finish part is the one Crush adds to
// every message it makes of the user and of tools: {"reason": "stop",
// "time": 0}, which says nothing.
func isOwnFinish(data obj) bool {
	for _, m := range data {
		switch k, v := string(m.Key), string(m.Value); {
		case k == "reason" && v == `"stop"`, k == "time" && v == "0":
		default:
			return false
		}
	}
	return true
}

func orPart(typ string) string {
	if typ == "" {
		return "part"
	}
	return typ
}

// toolCall maps {"id", "name", "input", "provider_executed", "finished"}:
// the call, its arguments the input as Crush keeps it (JSON text). A call
// Crush did not see finish, or that its provider ran, keeps what says so.
func (c *converter) toolCall(in *input, data obj) source.Output {
	call := rawjson.NewObject().Str("id", data.Str("id")).Str("type", "function").
		Raw("function", rawjson.NewObject().Str("name", data.Str("name")).Raw("arguments", orEmpty(data.Raw("input"))).Done())
	extra := source.MembersObject(data, func(k string) bool {
		v := string(data.Raw(k))
		return k == "id" || k == "name" || k == "input" || k == "finished" && v == "true" ||
			k == "provider_executed" && v == "false" || k == "type" && v == `""`
	})
	if string(extra) != "{}" {
		call.Raw("extra", extra)
	}
	return c.entry(in, tapelog.KindToolCall, rawjson.NewObject().Raw("calls", rawjson.Array(call.Done())).Done())
}

// toolResult maps {"tool_call_id", "name", "content", "data",
// "mime_type", "metadata", "is_error"}: the result of the call of that
// id, its content the content; the rest, where it says something (the
// tool's name, its metadata as Crush keeps it, JSON text; an image's data
// and type), in details.
func (c *converter) toolResult(in *input, data obj) source.Output {
	res := rawjson.NewObject().Str("tool_call_id", data.Str("tool_call_id")).Raw("content", orEmpty(data.Raw("content")))
	if data.True("is_error") {
		res.True("is_error")
	}
	details := source.MembersObject(data, func(k string) bool {
		v := string(data.Raw(k))
		return k == "tool_call_id" || k == "content" || k == "is_error" && (v == "true" || v == "false") || v == `""`
	})
	if string(details) != "{}" {
		res.Raw("details", details)
	}
	return c.entry(in, tapelog.KindToolResult, rawjson.NewObject().Raw("results", rawjson.Array(res.Done())).Done())
}

// shell maps a command the user ran in Crush's shell mode, {"command",
// "output", "exit_code"}: a call of "shell" and its result, failed when
// the command's exit code was not 0. The call's id is made of the
// message's id and the entry's place: Crush gives it none.
func (c *converter) shell(in *input, data obj) []source.Output {
	callID := "shell:" + source.WithPart(in.row.Str("id"), in.k)
	args := rawjson.NewObject().Raw("command", data.Raw("command")).Done()
	call := rawjson.NewObject().Str("id", callID).Str("type", "function").
		Raw("function", rawjson.NewObject().Str("name", "shell").Str("arguments", string(args)).Done())
	out := []source.Output{c.entry(in, tapelog.KindToolCall, rawjson.NewObject().Raw("calls", rawjson.Array(call.Done())).Done())}
	res := rawjson.NewObject().Str("tool_call_id", callID).Raw("content", orEmpty(data.Raw("output")))
	if code := string(data.Raw("exit_code")); code != "" && code != "0" {
		res.True("is_error")
	}
	if rest := source.MembersObject(data, func(k string) bool { return k == "command" || k == "output" }); string(rest) != "{}" {
		res.Raw("details", rest)
	}
	return append(out, c.entry(in, tapelog.KindToolResult, rawjson.NewObject().Raw("results", rawjson.Array(res.Done())).Done()))
}

// finish maps the finish of a reply, {"reason", "time", "message",
// "details"}: a run event, "error" for a reply that failed (its message
// and details say why), "canceled" for one the user stopped, else "ok";
// with the message's model and provider, and the finish whole. Dated when
// the reply finished.
func (c *converter) finish(in *input, data obj) source.Output {
	status := "ok"
	switch data.Str("reason") {
	case "error":
		status = "error"
	case "canceled":
		status = "canceled"
	}
	d := rawjson.NewObject().Str("status", status).StrIf("model", in.row.Str("model")).StrIf("provider", in.row.Str("provider")).
		Raw("finish", source.MembersObject(data, nil)).Done()
	o := c.entry(in, tapelog.KindEvent, source.NamedData("run", d))
	if at := dateAt(data.Int("time")); at != "" {
		o.Entry.Date = at
	}
	return o
}

// withRest adds to o, as "part", the members of a part's data other than
// those its entry holds already (read), when it has any: a reasoning's
// signature and times.
func withRest(o *rawjson.Object, data obj, read ...string) *rawjson.Object {
	rest := source.MembersObject(data, func(k string) bool {
		for _, r := range read {
			if k == r {
				return true
			}
		}
		v := string(data.Raw(k))
		return v == `""` || v == "null" // Crush writes every member, empty or not
	})
	if string(rest) != "{}" {
		o.Raw("part", rest)
	}
	return o
}

// hasOthers reports whether a part holds members other than the type and
// data Crush writes: it is then kept whole.
func hasOthers(p obj) bool {
	for _, m := range p {
		if k := string(m.Key); k != "type" && k != "data" {
			return true
		}
	}
	return false
}

// orEmpty is a string value of a line as it is written (a JSON string,
// copied without decoding it), or "" when the member is absent.
func orEmpty(v []byte) []byte {
	if len(v) == 0 {
		return []byte(`""`)
	}
	return v
}

func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

func isStringOrAbsent(v []byte) bool { return len(v) == 0 || isString(v) }
