package kimi

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// envelope maps a Kimi CLI record, {"timestamp", "message": {"type",
// "payload"}}; whole is the record's members, kept whole when its message
// is of another shape.
func (in *input) envelope(message []byte, whole fields) []source.Output {
	f := fieldsOf(message)
	typ, ok := f.str("type")
	payload := f.get("payload")
	if !ok || !f.only("type", "payload") || !isObject(payload) && !isNull(payload) {
		name := "kimi/record"
		if ok {
			name = "kimi/" + typ
		}
		return in.event(name, whole.object())
	}
	if isNull(payload) {
		payload = []byte("{}")
	}
	return in.wire(typ, payload)
}

// wire maps one of Kimi CLI's wire messages by its type; a type the
// mapping does not read, and a payload of another shape than it reads,
// is kept as an event kimi/<type>.
func (in *input) wire(typ string, payload []byte) []source.Output {
	f := fieldsOf(payload)
	var out []source.Output
	switch typ {
	case "TurnBegin", "SteerInput":
		out = in.userInput(typ, f)
	case "ContentPart":
		out = in.contentPart(payload)
	case "ToolCall":
		out = in.toolCall(f)
	case "ToolResult":
		out = in.toolResult(f)
	case "StatusUpdate":
		out = in.statusUpdate(f)
	case "CompactionEnd":
		// The compaction is done, and the context goes on from its
		// summary, which Kimi CLI writes into context.jsonl alone.
		state := rawjson.NewObject().Str("source", "kimi")
		if len(f) > 0 {
			state.Raw("compaction", f.object())
		}
		return []source.Output{in.anchor(in.sess, "", "compact", state.Done())}
	case "SubagentEvent":
		if out, ok := in.subagentEvent(f); ok {
			return out
		}
	}
	if out == nil {
		return in.event("kimi/"+typ, payload)
	}
	return out
}

// userInput maps a TurnBegin or a SteerInput, {"user_input": a string or
// a list of parts}: the user's message (a steer's meta says steer).
func (in *input) userInput(typ string, f fields) []source.Output {
	v := f.get("user_input")
	var c content
	if isString(v) {
		c.message = v
	} else if parts, ok := readParts(v); ok {
		c = contentOf(parts)
	}
	if c.message == nil && c.thinking == nil || !f.only("user_input") {
		return nil
	}
	return in.messages("user", c, func() *rawjson.Object {
		m := in.meta()
		if typ == "SteerInput" {
			m.True("steer")
		}
		return m
	})
}

// contentPart maps a ContentPart, one part of the assistant's answer (Kimi
// CLI merges a step's streamed text, and its thinking, into one each).
func (in *input) contentPart(payload []byte) []source.Output {
	p := readPart(payload)
	if p.kind == otherPart {
		return nil
	}
	return in.messages("assistant", contentOf([]part{p}), in.meta)
}

// toolCall maps a ToolCall, {"type": "function", "id", "function":
// {"name", "arguments"}, "extras"}: a tool_call entry of one call.
func (in *input) toolCall(f fields) []source.Output {
	id, idOK := f.str("id")
	fn := fieldsOf(f.get("function"))
	name, nameOK := fn.str("name")
	args := fn.get("arguments")
	_, argsOK := source.StringValue(args)
	typ, _ := f.str("type")
	if !idOK || !nameOK || !argsOK && !isNull(args) || typ != "function" || !fn.only("name", "arguments") || !f.only("type", "id", "function", "extras") {
		return nil
	}
	return []source.Output{in.calls([][]byte{call(id, name, arguments(args), f.get("extras"))}, in.meta())}
}

// toolResult maps a ToolResult, {"tool_call_id", "return_value":
// {"is_error", "output", "message", "display", "extras"}}: a tool_result
// entry, failed when is_error is true; the message (what the model was
// told beside the output), the display blocks (what the user was shown: a
// diff, a brief) and the extras are kept in the result.
func (in *input) toolResult(f fields) []source.Output {
	id, ok := f.str("tool_call_id")
	rv := fieldsOf(f.get("return_value"))
	isErr := string(rv.get("is_error"))
	if !ok || !f.only("tool_call_id", "return_value") || !isObject(f.get("return_value")) ||
		isErr != "true" && isErr != "false" || !rv.only("is_error", "output", "message", "display", "extras") {
		return nil
	}
	o := result(id, rv.get("output"), isErr == "true")
	if v := rv.get("message"); !isNull(v) && string(v) != `""` {
		o.Raw("message", rawjson.AppendCompact(nil, v))
	}
	if v := rv.get("display"); !isNull(v) && string(v) != "[]" {
		o.Raw("display", rawjson.AppendCompact(nil, v))
	}
	if v := rv.get("extras"); !isNull(v) {
		o.Raw("extras", rawjson.AppendCompact(nil, v))
	}
	return []source.Output{in.results([][]byte{o.Done()}, in.meta())}
}

// subagentEvent maps a SubagentEvent: an event of a subagent, copied into
// its parent's wire.jsonl.
//
// Before Kimi CLI 1.25 ({"task_tool_call_id", "event": {"type",
// "payload"}}) these copies are all there is of a subagent: its events
// make its own tape, session <the parent's>/agent <the Task call's id>,
// whose first anchor names its parent. Their usage is not counted, as
// ccusage does not count it.
//
// From 1.25 ({"parent_tool_call_id", "agent_id", "subagent_type",
// "event"}) the subagent writes its own wire.jsonl, in subagents/<agent
// id>/, which makes its tape: the copies make no entry (decision 0089).
func (in *input) subagentEvent(f fields) ([]source.Output, bool) {
	if agent, ok := f.str("agent_id"); ok && agent != "" {
		return []source.Output{}, true
	}
	task, ok := f.str("task_tool_call_id")
	ev := fieldsOf(f.get("event"))
	typ, typOK := ev.str("type")
	payload := ev.get("payload")
	if !ok || task == "" || in.nested || in.sess.Agent != "" || !typOK || !isObject(payload) ||
		!ev.only("type", "payload") || !f.only("task_tool_call_id", "event") {
		return nil, false
	}
	child := source.Session{Source: in.sess.Source, ID: in.sess.ID, Agent: task}
	var out []source.Output
	if !in.c.st.Started[child.Key()] {
		state := rawjson.NewObject().Str("source", "kimi").Str("session_id", child.ID).Str("agent_id", task).
			Str("parent_session", child.ID).Str("parent_tool_call_id", task).Str("file", in.c.path).Str("agent", "kimi-cli")
		out = append(out, in.anchor(child, child.ID+"/agent/"+task, "session/start", state.Done()))
	}
	sub := *in
	sub.sess, sub.nested = child, true
	out = append(out, sub.wire(typ, payload)...)
	in.k = sub.k
	return out, true
}
