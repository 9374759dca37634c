package codex

import (
	"encoding/json"
	"maps"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// echoes are the events that hold a message Codex may also write as
// a response item, by the role of that message.
var echoes = map[string]string{"user_message": "user", "agent_message": "assistant", "agent_reasoning": "reasoning"}

func (c *converter) eventMsg(in *input) []source.Output {
	role, echo := echoes[in.it.Type]
	switch {
	case in.it.Type == "token_count":
		return c.tokenCount(in)
	case !echo:
		return c.kept(in)
	}
	text, ok := eventText(in.it.Message, in.cl.Payload)
	if !ok {
		return c.kept(in) // no text where the mapping reads it: kept whole
	}
	if c.echoed(role, true, text) {
		return nil
	}
	if role == "reasoning" {
		payload := c.keep(appendReasoning(c.scratch[:0], text, "", nil))
		return c.chunks.output(c.st.Session, c.entry(in, 0, tapelog.KindEvent, payload))
	}
	payload := c.keep(appendEventMessage(c.scratch[:0], role, text))
	return c.chunks.output(c.st.Session, c.entry(in, 0, tapelog.KindMessage, payload))
}

// echoed reports whether a message is the second of the two records Codex
// writes of one message (an event, and a response item, in either order):
// the text of the one before of the same role, from the other kind of
// record, not yet echoed. A rollout
// that holds only one of them (some Codex versions write only the event)
// loses nothing, and a person who says the same thing twice is heard
// twice.
func (c *converter) echoed(role string, fromEvent bool, text string) bool {
	switch {
	case c.st.Echo == nil:
		c.st.Echo = map[string]string{}
	case c.echoShared:
		c.st.Echo = maps.Clone(c.st.Echo) // c.saved holds this one
	}
	c.echoShared = false
	from := "item\x00"
	if fromEvent {
		from = "event\x00"
	}
	if last, ok := c.st.Echo[role]; ok && !strings.HasPrefix(last, from) && last[strings.IndexByte(last, 0)+1:] == text {
		delete(c.st.Echo, role)
		return true
	}
	c.st.Echo[role] = from + text
	return false
}

// responseItem maps a response item: messages, reasoning, tool calls and
// their outputs.
func (c *converter) responseItem(in *input) []source.Output {
	it := &in.it
	switch {
	case it.Type == "message":
		return c.message(in)
	case it.Type == "reasoning":
		summary, ok := readText(it.Summary, &c.dec)
		text, ok2 := readText(it.Content, &c.dec)
		if !ok || !ok2 {
			return c.kept(in) // a summary or content of a shape the mapping cannot read
		}
		if c.echoed("reasoning", false, summary) {
			return nil
		}
		payload := c.keep(appendReasoning(c.scratch[:0], summary, text, it.Encrypted))
		return c.chunks.output(c.st.Session, c.entry(in, 0, tapelog.KindEvent, payload))
	case isCall(it.Type):
		c.call(in)
		return nil
	case it.CallID != "" && strings.HasSuffix(it.Type, "_output"):
		payload := c.keep(appendResult(c.scratch[:0], it.CallID, it.Output, failed(it.Output, &c.dec)))
		return c.chunks.output(c.st.Session, c.entry(in, 0, tapelog.KindToolResult, payload))
	}
	return c.kept(in)
}

// kept keeps a record the mapping does not turn into anything else as an
// event of its payload, named after the payload's type (the line's, for a
// payload without one).
func (c *converter) kept(in *input) []source.Output {
	name := in.it.Type
	if name == "" {
		name = in.cl.Type
	}
	return c.event(in, "codex/"+name, in.cl.Payload)
}

// message maps a message item: user and assistant text as chat messages,
// developer and system text as system entries.
func (c *converter) message(in *input) []source.Output {
	parts, ok := readParts(in.it.Content, &c.dec)
	if !ok {
		return c.kept(in) // a content of a shape the mapping cannot read
	}
	text := joinTexts(parts)
	kind, role := tapelog.KindMessage, in.it.Role
	if (role == "user" || role == "assistant") && c.echoed(role, false, text) {
		return nil
	}
	var payload json.RawMessage
	switch role {
	case "developer", "system":
		kind = tapelog.KindSystem
		payload = c.keep(appendMessage(c.scratch[:0], "", parts, text))
	default:
		if role == "" {
			role = "assistant"
		}
		payload = c.keep(appendMessage(c.scratch[:0], role, parts, text))
	}
	synthetic := role == "user" && isInjected(text)
	return c.chunks.output(c.st.Session, c.entryMeta(in, 0, kind, payload, synthetic))
}
