package copilot

import (
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// userMessage maps a prompt: the text the user saw ("content"), its
// attachments, and the text sent to the model when Copilot wrapped it
// ("transformedContent": the date, reminders, a custom agent's
// instructions). A prompt Copilot wrote itself (a skill's, another
// agent's, autopilot's next step) is marked synthetic.
func (c *converter) userMessage(in *input) []source.Output {
	content, ok := rawjson.String(in.f.Content)
	transformed, ok2 := optString(in.f.Transformed)
	origin, ok3 := optString(in.f.Source)
	if !ok || !ok2 || !ok3 {
		return c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)
	}
	p := rawjson.NewObject().Str("role", "user").Str("content", content)
	if a := source.Trim(in.f.Attachments); given(a) && string(a) != "[]" {
		p.Raw("attachments", compact(a))
	}
	if transformed != "" && transformed != content {
		p.Str("transformed_content", transformed)
	}
	m := c.meta(in).StrIf("origin", origin)
	if strings.HasPrefix(origin, "skill-") || strings.HasPrefix(origin, "agent-") ||
		string(source.Trim(in.f.Autopilot)) == "true" || strings.HasPrefix(content, "<skill-context") {
		m.True("synthetic")
	}
	e := tapelog.Entry{ID: c.id(in, 0), Kind: tapelog.KindMessage, Payload: p.Done(), Meta: m.Done(), Date: in.date}
	return []source.Output{{Session: in.s, Entry: e}}
}

// assistantMessage maps a reply: its thinking, its text, and the tool
// calls it asks for, in that order; server-side tool items as an event.
// A reply of another shape than Copilot writes is kept whole, as an event.
func (c *converter) assistantMessage(in *input) []source.Output {
	content, ok := optString(in.f.Content)
	thought, ok2 := optString(in.f.ReasoningText)
	opaque, ok3 := optString(in.f.Opaque)
	encrypted, ok4 := optString(in.f.Encrypted)
	calls, ok5 := readRequests(in.f.ToolRequests)
	if !ok || !ok2 || !ok3 || !ok4 || !ok5 {
		return c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)
	}
	var out []source.Output
	if thought != "" && c.echoed(in, 'm', thought) {
		thought = ""
	}
	if thought != "" || opaque != "" || encrypted != "" {
		out = append(out, c.entry(in, len(out), tapelog.KindEvent, thinking(thought, opaque, encrypted)))
	}
	if content != "" || given(in.f.Citations) {
		p := rawjson.NewObject().Str("role", "assistant").Str("content", content)
		if given(in.f.Citations) {
			p.Raw("citations", compact(in.f.Citations))
		}
		out = append(out, c.entry(in, len(out), tapelog.KindMessage, p.Done()))
	}
	if len(calls) > 0 {
		out = append(out, c.entry(in, len(out), tapelog.KindToolCall, c.requested(calls)))
	}
	if given(in.f.ServerTools) {
		out = append(out, c.entry(in, len(out), tapelog.KindEvent, source.NamedData("copilot/server_tools", in.f.ServerTools)))
	}
	return out
}

// reasoning maps an assistant.reasoning: a thinking event, unless the
// reply it belongs to already said it.
func (c *converter) reasoning(in *input) []source.Output {
	text, ok := rawjson.String(in.f.Content)
	if !ok {
		return c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)
	}
	if c.echoed(in, 'r', text) {
		return nil
	}
	return c.one(in, 0, tapelog.KindEvent, thinking(text, "", ""))
}

// thinking is the payload of a thinking event.
func thinking(text, signature, encrypted string) []byte {
	data := rawjson.NewObject().StrIf("thinking", text).StrIf("signature", signature).StrIf("encrypted_content", encrypted).Done()
	return rawjson.NewObject().Str("name", "thinking").Raw("data", data).Done()
}

// echoed reports whether a thought is the one the other kind of record
// (an assistant.reasoning, an assistant.message's reasoningText: kind 'r'
// or 'm') of the same agent said last, not yet echoed; and notes it.
func (c *converter) echoed(in *input, kind byte, text string) bool {
	other := byte('r')
	if kind == 'r' {
		other = 'm'
	}
	key := in.s.Agent + "\x00"
	if c.st.Thought == key+string(other)+"\x00"+text {
		c.st.Thought = ""
		return true
	}
	c.st.Thought = key + string(kind) + "\x00" + text
	return false
}

// systemMessage maps the system or developer prompt Copilot sends.
func (c *converter) systemMessage(in *input) []source.Output {
	content, ok := rawjson.String(in.f.Content)
	name, ok2 := optString(in.f.Name)
	if !ok || !ok2 {
		return c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)
	}
	p := rawjson.NewObject().Str("content", content).StrIf("name", name)
	if given(in.f.Metadata) {
		p.Raw("metadata", compact(in.f.Metadata))
	}
	return c.one(in, 0, tapelog.KindSystem, p.Done())
}
