package openclaw

import (
	"fmt"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// msg is a message record's message as the mapping reads it: pi-ai's
// UserMessage, AssistantMessage and ToolResultMessage, and pi's own
// custom, hookMessage and bashExecution messages. Its raw members are
// parts of the line.
type msg struct {
	raw        []byte
	role       string
	content    []byte
	stopReason string
	errMessage string
	// assistant: what its run reads, whatever their types
	usage, timestamp         []byte
	model, modelID, provider string
	api                      string
	// toolResult
	toolCallID, toolName string
	isError              bool
	details              []byte
	// custom, hookMessage
	customType string
	display    []byte
	// bashExecution
	command, output, fullOutputPath string
	exitCode                        []byte
	cancelled, truncated, excluded  bool
	rest                            []rawjson.Member // the members the role's mapping does not read
	ok                              bool             // every member read is of the type pi writes
}

// known are the members of a message the mapping reads, by role; the
// assistant's usage, model, provider, api and timestamp are its run's.
var known = map[string]map[string]bool{
	"user":          set("role", "content", "timestamp"),
	"assistant":     set("role", "content", "timestamp", "api", "provider", "model", "modelId", "usage", "stopReason", "errorMessage"),
	"toolResult":    set("role", "content", "timestamp", "toolCallId", "toolName", "isError", "details"),
	"custom":        set("role", "content", "timestamp", "customType", "display", "details"),
	"hookMessage":   set("role", "content", "timestamp", "customType", "display", "details"),
	"bashExecution": set("role", "timestamp", "command", "output", "exitCode", "cancelled", "truncated", "fullOutputPath", "excludeFromContext"),
}

func set(keys ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// readMsg reads a message's members. ok is false when it is not an
// object, or a member read is of another type than pi writes.
func (c *converter) readMsg(raw []byte) msg {
	m := msg{raw: raw, ok: len(raw) > 0 && raw[0] == '{'}
	if !m.ok {
		return m
	}
	all := c.msgMembers[:0]
	rawjson.ObjectMembers(raw, func(key, value []byte) {
		all = append(all, rawjson.Member{Key: key, Value: source.Trim(value)})
	})
	c.msgMembers = all
	if v, found := rawjson.Lookup(all, "role"); found {
		m.role, m.ok = source.StringValue(v)
	}
	keys := known[m.role]
	for _, mb := range source.LastOfEach(all) {
		k, v := string(mb.Key), mb.Value
		switch k { // an assistant's run reads these, whatever the role's mapping does
		case "usage":
			m.usage = v
		case "timestamp":
			m.timestamp = v
		case "model":
			m.model, _ = source.StringValue(v)
		case "modelId":
			m.modelID, _ = source.StringValue(v)
		case "provider":
			m.provider, _ = source.StringValue(v)
		case "api":
			m.api, _ = source.StringValue(v)
		}
		if !keys[k] {
			mb.Key = []byte(objectKey(mb.Key))
			m.rest = append(m.rest, mb)
			continue
		}
		str := func(dst *string) {
			s, isString := source.StringValue(v)
			m.ok = m.ok && (isString || string(v) == "null")
			*dst = s
		}
		flag := func(dst *bool) {
			*dst = string(v) == "true"
			m.ok = m.ok && (*dst || string(v) == "false" || string(v) == "null")
		}
		switch k {
		case "content":
			m.content = v
		case "errorMessage":
			str(&m.errMessage)
		case "toolCallId":
			str(&m.toolCallID)
		case "toolName":
			str(&m.toolName)
		case "isError":
			flag(&m.isError)
		case "details":
			m.details = v
		case "customType":
			str(&m.customType)
		case "display":
			m.display = v
		case "command":
			str(&m.command)
		case "output":
			str(&m.output)
		case "fullOutputPath":
			str(&m.fullOutputPath)
		case "exitCode":
			m.exitCode = v
		case "cancelled":
			flag(&m.cancelled)
		case "truncated":
			flag(&m.truncated)
		case "excludeFromContext":
			flag(&m.excluded)
		case "api", "provider", "model", "modelId":
			var s string
			str(&s)
		case "stopReason":
			str(&m.stopReason)
		}
	}
	if string(m.details) == "null" {
		m.details = nil
	}
	return m
}

// message maps a message record by its message's role. A message of
// another shape than the mapping reads (not an object, a member of
// another type, a role it does not know: branchSummary,
// compactionSummary...) is kept as an event openclaw/message, with its
// usage's run when it is an assistant's, as ccusage counts it.
func (in *input) message() []source.Output {
	m := in.c.readMsg(in.r.member("message"))
	if m.ok {
		var out []source.Output
		var ok bool
		switch m.role {
		case "user":
			out, ok = in.userMessage(m)
		case "assistant":
			out, ok = in.assistant(m)
		case "toolResult":
			out, ok = in.toolResult(m)
		case "custom", "hookMessage":
			out, ok = in.customRole(m)
		case "bashExecution":
			out, ok = in.bash(m)
		}
		if ok {
			return append(out, in.recordRest()...)
		}
	}
	out := in.event("openclaw/message", in.r.withoutEnvelope())
	if m.role == "assistant" {
		if o, ok := in.run(m); ok {
			out = append(out, o)
		}
	}
	return out
}

// recordRest is an event openclaw/message of the record's members beside
// its envelope and its message, when it has any (pi writes none).
func (in *input) recordRest() []source.Output {
	var rest []rawjson.Member
	for _, m := range in.r.members {
		if k := string(m.Key); !envelope[k] && k != "message" {
			rest = append(rest, m)
		}
	}
	if rest == nil {
		return nil
	}
	return in.event("openclaw/message", source.MembersObject(rest, nil))
}

// userMessage is a message {"role": "user", "content"}.
func (in *input) userMessage(m msg) ([]source.Output, bool) {
	content, ok := in.c.contentOf(m.content)
	if !ok {
		return nil, false
	}
	payload := withExtra(rawjson.NewObject().Str("role", "user").Raw("content", content), m.rest).Done()
	return []source.Output{in.entry(tapelog.KindMessage, payload, in.meta())}, true
}

// customRole is an extension's message (role custom; hookMessage before
// January 2026), which enters the model's context as a user's: a message,
// marked synthetic, as a custom_message record's.
func (in *input) customRole(m msg) ([]source.Output, bool) {
	content, ok := in.c.contentOf(m.content)
	if !ok {
		return nil, false
	}
	o := rawjson.NewObject().Str("role", "user").Raw("content", content)
	if m.details != nil {
		o.Raw("details", rawjson.AppendCompact(nil, m.details))
	}
	meta := in.meta().True("synthetic").StrIf("custom_type", m.customType)
	if m.display != nil && string(m.display) != "null" {
		meta.Raw("display", rawjson.AppendCompact(nil, m.display))
	}
	return []source.Output{in.entry(tapelog.KindMessage, withExtra(o, m.rest).Done(), meta)}, true
}

// assistant maps an assistant message: in this order, a thinking event of
// its thinking parts, a message of its text and other parts, a tool_call
// entry of its calls, an error of its errorMessage, then the run event of
// its usage. A message that makes none of the four is kept as an event
// openclaw/assistant (an empty reply, an aborted one without a word).
func (in *input) assistant(m msg) ([]source.Output, bool) {
	if len(m.content) > 0 && m.content[0] != '[' && m.content[0] != '"' && string(m.content) != "null" {
		return nil, false
	}
	var parts []part
	if len(m.content) > 0 && m.content[0] == '[' {
		parts = decodeParts(m.content, in.c.parts)
		in.c.parts = parts
	}
	rest := m.rest // the first entry made keeps them
	take := func(o *rawjson.Object) *rawjson.Object {
		withExtra(o, rest)
		rest = nil
		return o
	}
	var out []source.Output
	if o, ok := in.thinking(parts, take); ok {
		out = append(out, o)
	}
	isText := func(p part) bool { return p.kind != thinkingPart && p.kind != callPart }
	var text []byte
	switch {
	case len(m.content) > 0 && m.content[0] == '"':
		text = rawjson.AppendCompact(nil, m.content)
	case hasAny(parts, isText):
		text = listContent(parts, isText)
	}
	if text != nil {
		payload := take(rawjson.NewObject().Str("role", "assistant").Raw("content", text)).Done()
		out = append(out, in.entry(tapelog.KindMessage, payload, in.meta()))
	}
	if o, ok := in.calls(parts, take); ok {
		out = append(out, o)
	}
	if m.errMessage != "" {
		kind := m.stopReason
		if kind == "" {
			kind = "error"
		}
		payload := take(rawjson.NewObject().Str("kind", kind).Str("message", m.errMessage)).Done()
		out = append(out, in.entry(tapelog.KindError, payload, in.meta()))
	}
	if len(out) == 0 {
		out = in.event("openclaw/assistant", in.r.member("message"))
	}
	if o, ok := in.run(m); ok {
		out = append(out, o)
	}
	return out, true
}

func hasAny(parts []part, f func(part) bool) bool {
	for _, p := range parts {
		if f(p) {
			return true
		}
	}
	return false
}

// thinking is the thinking event of the thinking parts, their texts
// joined by newlines, with the last signature and whether one was
// redacted.
func (in *input) thinking(parts []part, take func(*rawjson.Object) *rawjson.Object) (source.Output, bool) {
	var texts [][]byte
	signature, redacted := "", false
	for _, p := range parts {
		if p.kind != thinkingPart {
			continue
		}
		texts = append(texts, p.text)
		if p.signature != "" {
			signature = p.signature
		}
		redacted = redacted || p.redacted
	}
	if texts == nil {
		return source.Output{}, false
	}
	data := rawjson.NewObject().Raw("thinking", joinStrings(texts, `\n`)).StrIf("signature", signature)
	if redacted {
		data.True("redacted")
	}
	return in.entry(tapelog.KindEvent, source.NamedData("thinking", take(data).Done()), in.meta()), true
}

// calls is the tool_call entry of the call parts. A call without an id
// gets <entry id>:call<n>.
func (in *input) calls(parts []part, take func(*rawjson.Object) *rawjson.Object) (source.Output, bool) {
	var items [][]byte
	for i, p := range parts {
		if p.kind != callPart {
			continue
		}
		id := p.id
		if id == "" {
			id = fmt.Sprintf("%s:call%d", in.idBase(), i)
		}
		args := "{}"
		if s, ok := source.StringValue(p.args); ok {
			args = s
		} else if p.args != nil {
			args = string(rawjson.AppendCompact(nil, p.args))
		}
		fn := rawjson.NewObject().Str("name", p.name).Str("arguments", args).Done()
		items = append(items, withExtra(rawjson.NewObject().Str("id", id).Str("type", "function").Raw("function", fn), p.extra).Done())
	}
	if len(items) == 0 {
		return source.Output{}, false
	}
	payload := take(rawjson.NewObject().Raw("calls", rawjson.Array(items...))).Done()
	return in.entry(tapelog.KindToolCall, payload, in.meta()), true
}

// idBase is the id of the record's first entry.
func (in *input) idBase() string {
	if in.r.ID != "" {
		return in.r.ID
	}
	return source.LineID(in.c.idPath, in.l.No, 0)
}

// toolResult is a tool_result entry of one result: {"tool_call_id",
// "name", "content", "details", "is_error"}. It failed when isError says
// so, or its details' status is "error" or "failed" (OpenClaw's tools
// report some failures only there).
func (in *input) toolResult(m msg) ([]source.Output, bool) {
	content, ok := in.c.contentOf(m.content)
	if !ok {
		return nil, false
	}
	o := rawjson.NewObject().StrIf("tool_call_id", m.toolCallID).StrIf("name", m.toolName).Raw("content", content)
	if m.details != nil {
		o.Raw("details", rawjson.AppendCompact(nil, m.details))
	}
	if m.isError || failedDetails(m.details) {
		o.True("is_error")
	}
	payload := rawjson.NewObject().Raw("results", rawjson.Array(withExtra(o, m.rest).Done())).Done()
	return []source.Output{in.entry(tapelog.KindToolResult, payload, in.meta())}, true
}

// failedDetails reports whether a tool's details say it failed.
func failedDetails(details []byte) bool {
	failed := false
	rawjson.ObjectMembers(details, func(key, value []byte) {
		if string(key) == "status" {
			s, _ := source.StringValue(source.Trim(value))
			failed = s == "error" || s == "failed"
		}
	})
	return failed
}

// bash is a command the user ran with pi's "!" (bashExecution): a
// tool_call of it, named bash, id <entry id>:bash, and its tool_result,
// failed when it exited with another code than 0 or was cancelled.
func (in *input) bash(m msg) ([]source.Output, bool) {
	id := in.idBase() + ":bash"
	args := rawjson.NewObject().Str("command", m.command).Done()
	fn := rawjson.NewObject().Str("name", "bash").Str("arguments", string(args)).Done()
	call := rawjson.NewObject().Str("id", id).Str("type", "function").Raw("function", fn).Done()
	meta := func() *rawjson.Object {
		mt := in.meta().True("user_requested")
		if m.excluded {
			mt.True("exclude_from_context")
		}
		return mt
	}
	out := []source.Output{in.entry(tapelog.KindToolCall, rawjson.NewObject().Raw("calls", rawjson.Array(call)).Done(), meta())}
	res := rawjson.NewObject().Str("tool_call_id", id).Str("name", "bash").Str("content", m.output)
	if m.exitCode != nil && string(m.exitCode) != "null" {
		res.Raw("exit_code", rawjson.AppendCompact(nil, m.exitCode))
	}
	if m.cancelled {
		res.True("cancelled")
	}
	if m.truncated {
		res.True("truncated")
	}
	res.StrIf("full_output_path", m.fullOutputPath)
	if m.cancelled || m.exitCode != nil && string(m.exitCode) != "null" && string(m.exitCode) != "0" {
		res.True("is_error")
	}
	payload := rawjson.NewObject().Raw("results", rawjson.Array(withExtra(res, m.rest).Done())).Done()
	return append(out, in.entry(tapelog.KindToolResult, payload, meta())), true
}
