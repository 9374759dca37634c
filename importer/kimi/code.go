package kimi

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// envelopeKeys are the members of every Kimi Code record that place it
// rather than say what it holds: its type, its time, and its agent (the
// file's).
var envelopeKeys = []string{"type", "time", "agentId"}

// codeData is a Kimi Code record without its envelope: what an event that
// keeps it holds. A time that is not a date is in the entry's meta
// instead (source.Meta); an agentId that is not a string is kept.
func codeData(f fields) []byte {
	o := rawjson.NewObject()
	for _, m := range f {
		switch string(m.Key) {
		case "type", "time":
			continue
		case "agentId":
			if _, ok := source.StringValue(m.Value); ok {
				continue
			}
		}
		o.Raw(string(m.Key), rawjson.AppendCompact(nil, m.Value))
	}
	return o.Done()
}

// code maps a Kimi Code record by its type. A type the mapping does not
// read, and a record of another shape than it reads (a member it does not
// know, a value of another type), is kept as an event kimi/<type>.
func (in *input) code(typ string, f fields) []source.Output {
	if v := f.get("agentId"); v != nil && !isString(v) {
		return in.event("kimi/"+typ, codeData(f))
	}
	var out []source.Output
	switch typ {
	case "turn.prompt", "turn.steer":
		out = in.prompt(typ, f)
	case "context.append_message":
		out = in.appendMessage(f)
	case "context.append_loop_event":
		out = in.loopEvent(f)
	case "context.apply_compaction":
		out = in.compaction(f)
	case "context.clear":
		// The model's context is empty from here: a new phase.
		state := rawjson.NewObject().Str("source", "kimi")
		if rest := f.rest(envelopeKeys...); len(rest) > 0 {
			state.Raw("clear", codeData(f))
		}
		return []source.Output{in.anchor(in.sess, "", "clear", state.Done())}
	case "usage.record":
		out = in.usageRecord(f)
	case "config.update", "profile.bind":
		// The agent's settings: the working directory it discloses goes
		// into the meta, where the sessions view reads it.
		cwd, _ := fieldsOf(f.get("environmentDisclosure")).str("cwd")
		if cwd == "" {
			cwd, _ = f.str("cwd")
		}
		data := source.NamedData("kimi/"+typ, codeData(f))
		return []source.Output{in.entry(tapelog.KindEvent, data, in.withCWD(in.meta(), cwd))}
	}
	if out == nil {
		return in.event("kimi/"+typ, codeData(f))
	}
	return out
}

// prompt maps a turn.prompt or turn.steer, {"input": a list of parts,
// "origin"}: the user's message, whose meta says its origin (synthetic
// when it is not the user's: a skill, a cron job, a hook...) and a
// steer's steer.
func (in *input) prompt(typ string, f fields) []source.Output {
	parts, ok := readParts(f.get("input"))
	if !ok || !f.only("type", "time", "agentId", "input", "origin") {
		return nil
	}
	c := contentOf(parts)
	if c.message == nil && c.thinking == nil {
		return nil
	}
	in.c.st.Prompt = sum(f.get("input"))
	origin := f.get("origin")
	return in.messages("user", c, func() *rawjson.Object {
		m := in.meta()
		if !isNull(origin) {
			m.Raw("origin", rawjson.AppendCompact(nil, origin))
		}
		if kind := originKind(origin); kind != "" && kind != "user" {
			m.True("synthetic")
		}
		if typ == "turn.steer" {
			m.True("steer")
		}
		return m
	})
}

// originKind is a prompt's or message's origin: a string, or an object's
// kind.
func originKind(v []byte) string {
	if s, ok := source.StringValue(v); ok {
		return s
	}
	s, _ := fieldsOf(v).str("kind")
	return s
}

// sum is a short sum of a JSON value as written, compacted.
func sum(v []byte) string {
	s := sha256.Sum256(rawjson.AppendCompact(nil, v))
	return hex.EncodeToString(s[:12])
}

// messageKeys are the members of a Kimi Code ContextMessage.
var messageKeys = []string{"role", "content", "toolCalls", "toolCallId", "name", "id", "providerMessageId",
	"origin", "isError", "note", "partial", "tools", "toolCallDisplays"}

// metaKeys are those of them a message's meta keeps as written.
var metaKeys = []string{"name", "id", "providerMessageId", "origin", "note", "partial", "tools", "toolCallDisplays"}

// appendMessage maps a context.append_message, {"message": a
// ContextMessage}: a message put into the model's context (a prompt, a
// system reminder, a hook's or a shell command's output, a compaction's
// summary; a Kimi CLI session's whole history, as Kimi Code's migration
// writes it). A user's message whose content is that of the turn.prompt
// before it is the prompt copied into the context: it makes no entry.
func (in *input) appendMessage(f fields) []source.Output {
	msg := fieldsOf(f.get("message"))
	role, _ := msg.str("role")
	if !isObject(f.get("message")) || !f.only("type", "time", "agentId", "message") || !msg.only(messageKeys...) {
		return nil
	}
	if in.copied(msg) {
		in.c.st.Prompt = ""
		return []source.Output{}
	}
	meta := func() *rawjson.Object {
		m := in.meta()
		for _, k := range metaKeys {
			if v := msg.get(k); !isNull(v) {
				m.Raw(k, rawjson.AppendCompact(nil, v))
			}
		}
		if kind := originKind(msg.get("origin")); role == "user" && kind != "" && kind != "user" {
			m.True("synthetic")
		}
		return m
	}
	var c content
	if v := msg.get("content"); isString(v) {
		c.message = v
	} else if parts, ok := readParts(msg.get("content")); ok {
		c = contentOf(parts)
	} else if !isNull(msg.get("content")) {
		return nil
	}
	switch role {
	case "tool":
		id, ok := msg.str("toolCallId")
		isErr := msg.get("isError")
		if !ok || !isNull(isErr) && !isBool(isErr) || !noCalls(msg.get("toolCalls")) {
			return nil
		}
		return []source.Output{in.results([][]byte{result(id, msg.get("content"), string(isErr) == "true").Done()}, meta())}
	case "user", "assistant", "system":
	default:
		return nil
	}
	var items [][]byte
	ok := true
	rawjson.ArrayItems(msg.get("toolCalls"), func(item []byte) {
		b, good := contextCall(item)
		items, ok = append(items, b), ok && good
	})
	if !ok || !isNull(msg.get("toolCalls")) && !isArray(msg.get("toolCalls")) || !isNull(msg.get("toolCallId")) || !isNull(msg.get("isError")) {
		return nil
	}
	out := in.messages(role, c, meta)
	if len(items) > 0 {
		out = append(out, in.calls(items, meta()))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// copied reports whether a context message is the turn.prompt before it
// copied into the context: a user's message of the prompt's content, and
// nothing more than its id and origin.
func (in *input) copied(msg fields) bool {
	role, _ := msg.str("role")
	return role == "user" && in.c.st.Prompt != "" && sum(msg.get("content")) == in.c.st.Prompt &&
		noCalls(msg.get("toolCalls")) && msg.only("role", "content", "toolCalls", "origin", "id")
}

// noCalls reports whether a message's toolCalls are none: absent, null
// or empty.
func noCalls(v []byte) bool { return isNull(v) || string(v) == "[]" }

// contextCall reads one of a ContextMessage's toolCalls: {"type":
// "function", "id", "name", "arguments", "extras"} (protocol 1.1 and
// later), or {"type", "id", "function": {"name", "arguments"}} (1.0, as
// Kimi Code's migration of a Kimi CLI session writes it).
func contextCall(item []byte) ([]byte, bool) {
	f := fieldsOf(item)
	id, idOK := f.str("id")
	typ, _ := f.str("type")
	fn := f
	if v := f.get("function"); v != nil {
		fn = fieldsOf(v)
		if !fn.only("name", "arguments") || !f.only("type", "id", "function", "extras", "_streamIndex") {
			return nil, false
		}
	} else if !f.only("type", "id", "name", "arguments", "extras", "_streamIndex") {
		return nil, false
	}
	name, nameOK := fn.str("name")
	args := fn.get("arguments")
	_, argsOK := source.StringValue(args)
	if !idOK || !nameOK || typ != "function" || !argsOK && !isNull(args) {
		return nil, false
	}
	return call(id, name, arguments(args), f.get("extras")), true
}

// loopEvent maps a context.append_loop_event, {"event": one event of the
// agent loop}: a content part of the assistant's answer, a tool call, a
// tool's result. The loop's other events (step.begin, step.end, whose
// usage the usage.record after it counts) are kept as events
// kimi/<their type>. An event's ids (uuid, stepUuid, turnId, step,
// parentUuid) are kept in the meta, as "loop".
func (in *input) loopEvent(f fields) []source.Output {
	ev := fieldsOf(f.get("event"))
	typ, ok := ev.str("type")
	if !ok || !isObject(f.get("event")) || !f.only("type", "time", "agentId", "event") {
		return nil
	}
	ids := []string{"uuid", "stepUuid", "turnId", "step", "parentUuid"}
	meta := func() *rawjson.Object {
		m := in.meta()
		if rest := ev.rest("type", "part", "toolCallId", "name", "args", "extras", "result"); len(rest) > 0 {
			m.Raw("loop", rest.object())
		}
		return m
	}
	switch typ {
	case "content.part":
		if p := readPart(ev.get("part")); p.kind != otherPart && ev.only(append(ids, "type", "part")...) {
			return in.messages("assistant", contentOf([]part{p}), meta)
		}
	case "tool.call":
		id, idOK := ev.str("toolCallId")
		name, nameOK := ev.str("name")
		if idOK && nameOK && ev.only(append(ids, "type", "toolCallId", "name", "args", "extras")...) {
			return []source.Output{in.calls([][]byte{call(id, name, arguments(ev.get("args")), ev.get("extras"))}, meta())}
		}
	case "tool.result":
		id, idOK := ev.str("toolCallId")
		res := fieldsOf(ev.get("result"))
		isErr := string(res.get("isError"))
		if idOK && isObject(ev.get("result")) && res.get("output") != nil && res.only("output", "isError", "note") &&
			(isErr == "" || isErr == "true" || isErr == "false") && ev.only(append(ids, "type", "toolCallId", "result")...) {
			o := result(id, res.get("output"), isErr == "true")
			if v := res.get("note"); !isNull(v) {
				o.Raw("note", rawjson.AppendCompact(nil, v))
			}
			return []source.Output{in.results([][]byte{o.Done()}, meta())}
		}
	}
	return in.event("kimi/"+typ, ev.without("type"))
}

// compaction maps a context.apply_compaction: the context goes on from
// its summary, a new anchor compact whose state says the summary (summary
// or contextSummary, a string or the text of a message of nothing else)
// and the compaction's counts.
func (in *input) compaction(f fields) []source.Output {
	state := rawjson.NewObject().Str("source", "kimi")
	used := ""
	for _, k := range []string{"summary", "contextSummary"} {
		v := f.get(k)
		if s, ok := source.StringValue(v); ok {
			state.Str("summary", s)
			used = k
			break
		}
		msg := fieldsOf(v)
		if !noCalls(msg.get("toolCalls")) || !msg.only("role", "content", "toolCalls") {
			continue
		}
		if parts, ok := readParts(msg.get("content")); ok {
			if c := contentOf(parts); c.thinking == nil && c.message != nil && c.message[0] == '"' {
				state.Raw("summary", c.message)
				used = k
				break
			}
		}
	}
	rest := f.rest(append([]string{used}, envelopeKeys...)...)
	if len(rest) > 0 {
		state.Raw("compaction", codeData(fields(rest)))
	}
	return []source.Output{in.anchor(in.sess, "", "compact", state.Done())}
}
