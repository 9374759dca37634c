package pi

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// message maps a message record by its message's role. A message of a
// shape the mapping cannot read (no object, a role it does not know, a
// content it cannot read) is kept whole.
func (c *converter) message(in *input) []source.Output {
	raw := in.rec.raw("message")
	if len(raw) == 0 || raw[0] != '{' {
		return []source.Output{c.kept(in)}
	}
	m := members(raw)
	role, _ := m.str("role")
	var out []source.Output
	switch role {
	case "user":
		out = c.user(in, m)
	case "assistant":
		out = c.assistant(in, m)
	case "toolResult":
		out = c.toolResult(in, m)
	case "bashExecution":
		out = c.bash(in, m)
	case "custom", "hookMessage": // an extension's message (hookMessage before version 3)
		out = c.custom(in, m, []string{"role", "timestamp"})
	case "developer", "system":
		if content, ok := readContent(m.raw("content")); ok {
			out = []source.Output{c.entry(in, 0, tapelog.KindSystem, rawjson.NewObject().Raw("content", content).Done(), nil)}
		}
	}
	if out == nil {
		return []source.Output{c.kept(in)}
	}
	return out
}

// user maps a user's message: a message entry, synthetic when Pi says so
// (oh-my-pi's "synthetic").
func (c *converter) user(in *input, m object) []source.Output {
	content, ok := readContent(m.raw("content"))
	if !ok {
		return nil
	}
	meta := c.meta(in)
	if m.isTrue("synthetic") {
		meta.True("synthetic")
	}
	payload := rawjson.NewObject().Str("role", "user").Raw("content", content).Done()
	return []source.Output{c.entry(in, 0, tapelog.KindMessage, payload, meta)}
}

// toolResult maps a tool's result: a tool_result entry answering the
// call of its toolCallId, failed when isError, with the tool's details.
func (c *converter) toolResult(in *input, m object) []source.Output {
	callID, ok := m.str("toolCallId")
	if !ok {
		return nil
	}
	res := rawjson.NewObject().Str("tool_call_id", callID).Raw("content", compact(source.OrNull(m.raw("content"))))
	if m.isTrue("isError") {
		res.True("is_error")
	}
	if m.has("details") {
		res.Raw("details", compact(m.raw("details")))
	}
	payload := rawjson.NewObject().Raw("results", rawjson.Array(res.Done())).Done()
	return []source.Output{c.entry(in, 0, tapelog.KindToolResult, payload, nil)}
}

// bash maps a shell command the user ran (!cmd): a call of "bash", whose
// id is the entry's, and its result, failed when the command exited
// other than 0 or was cancelled; the rest of the message (exitCode,
// truncated, fullOutputPath...) is the result's details. A command left
// out of the model's context (!!cmd) has "context": false in its meta.
func (c *converter) bash(in *input, m object) []source.Output {
	cmd, ok := m.str("command")
	output, ok2 := m.str("output")
	if !ok || !ok2 {
		return nil
	}
	meta := func() *rawjson.Object {
		meta := c.meta(in)
		if m.isTrue("excludeFromContext") {
			meta.Raw("context", []byte("false"))
		}
		return meta
	}
	callID := c.id(in, 0)
	args := string(rawjson.NewObject().Str("command", cmd).Done())
	call := rawjson.NewObject().Str("id", callID).Str("type", "function").
		Raw("function", rawjson.NewObject().Str("name", "bash").Str("arguments", args).Done()).Done()
	res := rawjson.NewObject().Str("tool_call_id", callID).Str("content", output)
	if code := m.raw("exitCode"); len(code) > 0 && code[0] != 'n' && string(code) != "0" || m.isTrue("cancelled") {
		res.True("is_error")
	}
	if r := m.rest("role", "command", "output", "timestamp"); r != nil {
		res.Raw("details", r)
	}
	return []source.Output{
		c.entry(in, 0, tapelog.KindToolCall, rawjson.NewObject().Raw("calls", rawjson.Array(call)).Done(), meta()),
		c.entry(in, 1, tapelog.KindToolResult, rawjson.NewObject().Raw("results", rawjson.Array(res.Done())).Done(), meta()),
	}
}

// custom maps an extension's message (a custom_message record, or a
// message of role custom): a user message, synthetic, naming its
// customType in its meta; its details, when it has some, an event
// "pi/custom_message" of the members that are not its content (customType,
// display, details).
func (c *converter) custom(in *input, m object, skip []string) []source.Output {
	content, ok := readContent(m.raw("content"))
	if !ok || !nullOrString(m.raw("customType")) {
		return nil // kept whole
	}
	meta := c.meta(in).True("synthetic")
	if t, ok := m.str("customType"); ok {
		meta.Str("custom_type", t)
	}
	payload := rawjson.NewObject().Str("role", "user").Raw("content", content).Done()
	out := []source.Output{c.entry(in, 0, tapelog.KindMessage, payload, meta)}
	if m.has("details") {
		out = append(out, c.event(in, 1, "pi/custom_message", m.rest(plus(skip, "content")...)))
	}
	return out
}
