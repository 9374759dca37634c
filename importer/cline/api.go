package cline

import (
	"bytes"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// api_conversation_history.json is what the model was sent and said: an
// array of Anthropic messages, {"role", "content"}, content a string or a
// list of blocks, with what each agent adds beside them: Cline's "ts",
// "id" (the response's), "modelInfo" and "metrics" (3.3x and later), Roo
// Code's "ts", "isSummary" and "condenseId" (a condensed history's
// summary), "condenseParent", "truncationId", "truncationParent" and
// "isTruncationMarker", its reasoning items ({"type": "reasoning",
// "summary", "encrypted_content"}) and "reasoning_content",
// "reasoning_details".

// apiRead are the members of a message the mapping reads; the others go
// into the meta of its first entry, as "message": so do an id that is not
// a string and an isSummary that is not a boolean, and the reasoning of a
// message that is not the assistant's.
func apiRead(ms []rawjson.Member, role string, summary bool) []string {
	read := []string{"role", "content", "ts"}
	if _, ok := str(ms, "id"); ok {
		read = append(read, "id")
	}
	if s := string(member(ms, "isSummary")); s == "true" || s == "false" {
		read = append(read, "isSummary")
	}
	if role == "assistant" && !summary {
		read = append(read, "reasoning_content", "reasoning_details")
	}
	return read
}

// apiMessage maps a message of the model's.
func (c *converter) apiMessage(in *input, ms []rawjson.Member, raw []byte) []source.Output {
	if t, _ := str(ms, "type"); t == "reasoning" {
		if _, ok := rawjson.Lookup(ms, "role"); !ok {
			// Roo Code's reasoning item: OpenAI's summary and encrypted
			// content, beside the messages.
			in.uuid, _ = str(ms, "id")
			out := c.start(in, nil)
			return append(out, in.event("reasoning", others(ms, "type", "ts")))
		}
	}
	role, _ := str(ms, "role")
	content, hasContent := rawjson.Lookup(ms, "content")
	content = source.Trim(content)
	shaped := role == "user" || role == "assistant"
	if hasContent && (len(content) == 0 || content[0] != '"' && content[0] != '[' && string(content) != "null") {
		shaped = false
	}
	if !shaped {
		return append(c.start(in, nil), in.event("cline/api_message", raw))
	}
	in.uuid, _ = str(ms, "id")
	blocks := c.readBlocks(content)
	if role == "user" {
		in.cwd = cwdOf(blocks)
	}
	out := c.start(in, nil)
	summary := string(member(ms, "isSummary")) == "true"
	if extra := others(ms, apiRead(ms, role, summary)...); extra != nil {
		in.first = func(o *rawjson.Object) { o.Raw("message", extra) }
	}
	var entries []source.Output
	switch {
	case summary:
		entries = in.summary(blocks, content)
	case role == "user":
		// Roo Code's mark of a truncated context is no one's words.
		in.synthetic = string(member(ms, "isTruncationMarker")) == "true"
		entries = c.userBlocks(in, blocks)
	default:
		entries = append(in.reasoning(ms), c.assistantBlocks(in, blocks)...)
	}
	if len(entries) == 0 {
		// No content (null, [], absent): kept as it was written.
		in.first = nil
		entries = append(entries, in.event("cline/api_message", raw))
	}
	return append(out, entries...)
}

// summary maps the summary Roo Code writes of a condensed history
// ("isSummary": true): a new anchor "compact", from which the model's
// context is the summary and what follows. Its state is {"source",
// "summary": the text}; a summary of other blocks than text keeps its
// content as written, as "content".
func (in *input) summary(blocks []block, content []byte) []source.Output {
	state := rawjson.NewObject().Str("source", "cline")
	var text strings.Builder
	texts := true
	for i := range blocks {
		if blocks[i].kind != textBlock || !blocks[i].plain {
			texts = false
			break
		}
		if i > 0 {
			text.WriteString("\n\n")
		}
		text.WriteString(blocks[i].decoded())
	}
	if texts {
		state.Str("summary", text.String())
	} else {
		state.Raw("content", rawjson.AppendCompact(nil, content))
	}
	return []source.Output{in.compact(state)}
}

// compact is a new anchor "compact" of state.
func (in *input) compact(state *rawjson.Object) source.Output {
	payload := rawjson.NewObject().Str("name", "compact").Raw("state", state.Done()).Done()
	o := in.entry(tapelog.KindAnchor, payload, in.meta())
	o.Anchor = true
	return o
}

// reasoning maps what an assistant message holds of its model's
// reasoning beside its blocks (Roo Code's and Kilo Code's DeepSeek
// "reasoning_content", OpenRouter's "reasoning_details"): a thinking
// event, {"thinking"} and the details as written.
func (in *input) reasoning(ms []rawjson.Member) []source.Output {
	text, hasText := rawjson.Lookup(ms, "reasoning_content")
	details, hasDetails := rawjson.Lookup(ms, "reasoning_details")
	if !hasText && !hasDetails {
		return nil
	}
	data := rawjson.NewObject()
	if hasText {
		data.Raw("thinking", rawjson.AppendCompact(nil, source.Trim(text)))
	}
	if hasDetails {
		data.Raw("reasoning_details", rawjson.AppendCompact(nil, source.Trim(details)))
	}
	return []source.Output{in.entry(tapelog.KindEvent, source.NamedData("thinking", data.Done()), in.meta())}
}

// environmentDetails opens the context Cline and its forks add to a
// user's message for the model (the open files, the time, the working
// directory's files): not what the person wrote. Claude Dev 1.x called
// it potentiallyRelevant.
const (
	environmentDetails  = "<environment_details>"
	potentiallyRelevant = "<potentially_relevant_details>"
)

// isEnvironment reports whether a text block is such context: its text,
// a JSON string as written, starts with <environment_details> after
// white space. It decodes only a text that starts with another escape.
func (b *block) isEnvironment() bool {
	if b.kind != textBlock || len(b.text) < 2 {
		return false
	}
	s := b.text[1:] // after the opening quote
	for len(s) > 1 {
		switch {
		case s[0] == ' ':
			s = s[1:]
			continue
		case s[0] == '\\' && (s[1] == 'n' || s[1] == 't' || s[1] == 'r'):
			s = s[2:]
			continue
		}
		break
	}
	if bytes.HasPrefix(s, []byte(environmentDetails)) || bytes.HasPrefix(s, []byte(potentiallyRelevant)) {
		return true
	}
	if len(s) == 0 || s[0] != '\\' {
		return false
	}
	t := strings.TrimLeft(b.decoded(), " \t\r\n")
	return strings.HasPrefix(t, environmentDetails) || strings.HasPrefix(t, potentiallyRelevant)
}

// cwdOf is the working directory a user message's context names: Cline's
// "# Current Working Directory (<path>) Files", Roo Code's "# Current
// Workspace Directory (<path>) Files", which the task's first message
// holds.
func cwdOf(blocks []block) string {
	for i := range blocks {
		if !blocks[i].env || !bytes.Contains(blocks[i].text, []byte(" Directory (")) {
			continue
		}
		text := blocks[i].decoded()
		for _, marker := range []string{"Current Working Directory (", "Current Workspace Directory ("} {
			if at := strings.Index(text, marker); at >= 0 {
				rest := text[at+len(marker):]
				if end := strings.Index(rest, ") Files"); end > 0 && !strings.Contains(rest[:end], "\n") {
					return rest[:end]
				}
			}
		}
	}
	return ""
}

// userBlocks maps a user message's blocks: its tool results (and the
// result of the call the message before wrote as XML), one tool_result
// entry; the context the agent added, a synthetic message; the rest, the
// message the person (or the agent, for the model) wrote.
func (c *converter) userBlocks(in *input, blocks []block) []source.Output {
	var results [][]byte
	var env, parts []*block
	xml := c.xmlResult(blocks)
	c.pending = nil
	for i := range blocks {
		b := &blocks[i]
		switch {
		case xml != nil && xml.has(i):
		case b.kind == resultBlock:
			results = append(results, b.appendResult(nil))
		case b.env:
			env = append(env, b)
		default:
			parts = append(parts, b)
		}
	}
	if xml != nil {
		results = append(results, xml.result())
	}
	var out []source.Output
	if results != nil {
		payload := list("results", results)
		out = append(out, in.entry(tapelog.KindToolResult, payload, in.meta()))
	}
	if env != nil {
		out = append(out, in.chat("user", env, true))
	}
	if parts != nil {
		out = append(out, in.chat("user", parts, false))
	}
	return out
}

// assistantBlocks maps an assistant message's blocks: thinking and other
// blocks as events, the text as a message, the tool calls (its tool_use
// blocks, and the first call its text writes as XML) as one tool_call
// entry; a call that condenses the task (summarize_task, condense) starts
// a new anchor after it.
func (c *converter) assistantBlocks(in *input, blocks []block) []source.Output {
	var out []source.Output
	var calls [][]byte
	var parts []*block
	var summary *string
	call := c.xmlCall(in, blocks)
	for i := range blocks {
		b := &blocks[i]
		switch {
		case call != nil && i == call.block:
			if text := call.text(); text != "" {
				parts = append(parts, &block{kind: textBlock, plain: true, text: rawjson.AppendString(nil, text)})
			}
			calls = append(calls, appendCall(nil, call.id, call.name, call.args, nil))
			summary = call.summary()
		case b.kind == textBlock || b.kind == imageBlock:
			parts = append(parts, b)
		case b.kind == callBlock:
			calls = append(calls, b.appendCall(nil))
			if s := callSummary(b); s != nil {
				summary = s
			}
		case b.kind == thinkingBlock:
			out = append(out, in.entry(tapelog.KindEvent, source.NamedData("thinking", withoutType(b.raw)), in.meta()))
		default:
			out = append(out, in.blockEvent(b))
		}
	}
	if parts != nil {
		out = append(out, in.chat("assistant", parts, false))
	}
	if calls != nil {
		payload := list("calls", calls)
		out = append(out, in.entry(tapelog.KindToolCall, payload, in.meta()))
	}
	if summary != nil {
		out = append(out, in.compact(rawjson.NewObject().Str("source", "cline").Str("summary", *summary)))
	}
	return out
}

// callSummary is the summary a tool_use that condenses the task holds
// (Cline's summarize_task and condense: their "context").
func callSummary(b *block) *string {
	if b.name != "summarize_task" && b.name != "condense" {
		return nil
	}
	s, ok := str(source.ObjectOf(b.input), "context")
	if !ok {
		return nil
	}
	return &s
}

// list is the payload {"<key>": [items...]}, written once: a tool's
// output may be large.
func list(key string, items [][]byte) []byte {
	n := len(key) + 8
	for _, it := range items {
		n += len(it) + 1
	}
	p := append(append(append(make([]byte, 0, n), `{"`...), key...), `":[`...)
	for i, it := range items {
		if i > 0 {
			p = append(p, ',')
		}
		p = append(p, it...)
	}
	return append(p, "]}"...)
}

// blockEvent keeps an assistant's block that its entries do not hold: a
// redacted thinking, a document, a block of a type a later agent adds,
// as "cline/<type>" with the block without its type; a block of another
// shape (not an object, no type, a member the mapping reads of another
// type) as "cline/block", the block as written.
func (in *input) blockEvent(b *block) source.Output {
	name, data := "cline/block", b.raw
	mapped := b.typ == "text" || b.typ == "thinking" || b.typ == "tool_use" || b.typ == "tool_result" || b.typ == "image"
	if isPlain(b.typ) && !mapped {
		name, data = "cline/"+b.typ, withoutType(b.raw)
	}
	return in.entry(tapelog.KindEvent, source.NamedData(name, data), in.meta())
}

// chat is a message entry of blocks: its content the text, when it is
// one plain text block; else a list of parts (block.part). Synthetic
// ones say so in their meta.
func (in *input) chat(role string, parts []*block, synthetic bool) source.Output {
	var content []byte
	if len(parts) == 1 && parts[0].kind == textBlock && parts[0].plain {
		content = parts[0].text // a JSON string, as written
	} else {
		items := make([][]byte, len(parts))
		for i, b := range parts {
			items[i] = b.part()
		}
		content = rawjson.Array(items...)
	}
	meta := in.meta()
	if synthetic || in.synthetic {
		meta.True("synthetic")
	}
	// content is compact: a string as written, or parts made compact.
	payload := make([]byte, 0, len(content)+len(role)+24)
	payload = append(append(append(payload, `{"role":"`...), role...), `","content":`...)
	payload = append(append(payload, content...), '}')
	return in.entry(tapelog.KindMessage, payload, meta)
}
