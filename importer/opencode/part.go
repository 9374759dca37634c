package opencode

import (
	"slices"
	"strconv"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// part maps a part's row by its data's type: a text is a message of its
// message's role; a reasoning a "thinking" event; a tool its call and,
// once OpenCode has its state completed or error, its result; a
// compaction an anchor. Every other part (step-start, step-finish, file,
// patch, snapshot, agent, subtask, retry...) is kept whole as an event
// "opencode/<type>" ("kilo/<type>").
func (c *converter) part(in *input) []source.Output {
	out := c.start(in, nil)
	data := in.row.Sub("data")
	typ := data.Str("type")
	switch {
	case typ == "text" && isString(data.Raw("text")):
		role := c.st.Role
		if role == "" {
			role = "assistant"
		}
		payload := rawjson.NewObject().Str("role", role).Raw("content", data.Raw("text"))
		return append(out, c.entryOf(in, tapelog.KindMessage, withRest(payload, data, "text").Done()))
	case typ == "reasoning" && isString(data.Raw("text")):
		d := withRest(rawjson.NewObject().Raw("thinking", data.Raw("text")), data, "text").Done()
		return append(out, c.entryOf(in, tapelog.KindEvent, rawjson.NewObject().Str("name", "thinking").Raw("data", d).Done()))
	case typ == "tool" && data.Str("callID") != "" && data.Str("tool") != "" && source.IsObject(source.Trim(data.Raw("state"))):
		return append(out, c.tool(in, data)...)
	case typ == "compaction":
		state := rawjson.NewObject().Str("source", c.name).Raw("part", source.MembersObject(data, nil)).Done()
		payload := rawjson.NewObject().Str("name", "compact").Raw("state", state).Done()
		o := c.entryOf(in, tapelog.KindAnchor, payload)
		o.Anchor = true
		return append(out, o)
	}
	if typ == "" {
		typ = "part"
	}
	return append(out, c.event(in, 0, c.name+"/"+typ, in.row.Raw("data"))...)
}

// tool maps a tool part: {"callID", "tool", "state": {"status", "input",
// "output", "error", "title", "metadata", "time"}}. The call's arguments
// are its input; a completed or failed one also makes its result, whose
// content is the output (or the error) and whose details keep the rest
// of the state. A call still pending or running (its session went quiet
// before OpenCode finished it) has no result.
func (c *converter) tool(in *input, data obj) []source.Output {
	callID := data.Str("callID")
	state := data.Sub("state")
	args := state.Raw("input")
	if len(args) == 0 {
		args = []byte("{}")
	}
	status := state.Str("status")
	content := ""
	switch status {
	case "completed":
		content = "output"
	case "error":
		content = "error"
	}
	rest := source.MembersObject(state, func(k string) bool { return k == "input" || k == content && content != "" })
	call := rawjson.NewObject().Str("id", callID).Str("type", "function").
		Raw("function", rawjson.NewObject().Str("name", data.Str("tool")).Str("arguments", string(rawjson.AppendCompact(nil, args))).Done())
	if content == "" {
		// Not finished: the state so far stays with the call.
		call.Raw("extra", withRest(rawjson.NewObject().Raw("state", rest), data, "callID", "tool", "state").Done())
	}
	out := []source.Output{c.entry(in, 0, tapelog.KindToolCall, rawjson.NewObject().Raw("calls", rawjson.Array(call.Done())).Done())}
	if content == "" {
		return out
	}
	res := rawjson.NewObject().Str("tool_call_id", callID).Raw("content", rawjson.AppendCompact(nil, source.OrNull(state.Raw(content))))
	if status == "error" {
		res.True("is_error")
	}
	res.Raw("details", rest)
	withRest(res, data, "callID", "tool", "state")
	result := c.entry(in, 1, tapelog.KindToolResult, rawjson.NewObject().Raw("results", rawjson.Array(res.Done())).Done())
	if end := msDate(state.Sub("time").Int("end")); end != "" {
		result.Entry.Date = end
	}
	return append(out, result)
}

// run is the run event of a reply: its token counts as OpenCode keeps
// them in the message's data ({"tokens": {"input", "output",
// "reasoning", "cache": {"read", "write"}}, "cost", "modelID",
// "providerID"}), the data whole under "message". Its usage_id is the
// message's id: ccusage counts a message once. A reply of no tokens and
// no error (one its agent never finished) makes no run: ok is false.
func (c *converter) run(in *input, data obj) (source.Output, bool) {
	t := data.Sub("tokens")
	cache := t.Sub("cache")
	e := data.Raw("error")
	failed := len(e) > 0 && string(e) != "null"
	if t.Int("input")+t.Int("output")+t.Int("reasoning")+cache.Int("read")+cache.Int("write") == 0 && !failed {
		return source.Output{}, false
	}
	counts := rawjson.NewObject().Int("input_tokens", t.Int("input")).Int("output_tokens", t.Int("output")).
		Int("cache_read_input_tokens", cache.Int("read")).Int("cache_creation_input_tokens", cache.Int("write"))
	if r := t.Int("reasoning"); r != 0 {
		counts.Int("reasoning_output_tokens", r)
	}
	status := "ok"
	if failed {
		status = "error"
	}
	d := rawjson.NewObject().Str("status", status).StrIf("model", data.Str("modelID")).StrIf("provider", data.Str("providerID")).
		Raw("usage", counts.Done()).Str("usage_id", c.name+":"+in.row.Str("id"))
	if cost := data.Raw("cost"); isNumber(cost) {
		d.Raw("cost_usd", cost)
	}
	d.Raw("message", rawjson.AppendCompact(nil, in.row.Raw("data")))
	return c.entryOf(in, tapelog.KindEvent, rawjson.NewObject().Str("name", "run").Raw("data", d.Done()).Done()), true
}

// withRest adds to o, as "part", the members of a part's data other than
// those its entry holds already (read) and those that repeat its row (its
// type, and the ids of the part, its message and its session), when it
// has any: a text's time, a synthetic text's flag.
func withRest(o *rawjson.Object, data obj, read ...string) *rawjson.Object {
	rest := source.MembersObject(data, func(k string) bool {
		switch k {
		case "type":
			return true
		case "id", "sessionID", "messageID":
			return isString(data.Raw(k))
		}
		return slices.Contains(read, k)
	})
	if string(rest) != "{}" {
		o.Raw("part", rest)
	}
	return o
}

func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

func isNumber(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	_, err := strconv.ParseFloat(string(v), 64)
	return err == nil
}
