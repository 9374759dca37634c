package aider

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// close makes the entries of the block held, and holds nothing.
func (c *chatConverter) close() []source.Output {
	b := c.blk
	if b == nil {
		return nil
	}
	c.blk = nil
	switch b.kind {
	case kindPreamble:
		return c.preamble(b)
	case kindUser:
		return c.user(b)
	case kindText:
		return c.answer(b)
	}
	return c.output(b)
}

// entry is the k-th entry made from line n, of the run being read.
func (c *chatConverter) entry(n, k int, kind string, payload json.RawMessage) source.Output {
	run := c.st.Run
	return source.Output{Session: run.Session, Entry: tapelog.Entry{ID: lineID(c.tag, n, k), Kind: kind, Date: c.date(n), Payload: payload, Meta: c.meta(n)}}
}

// date is the date of an entry made from line n: the run's start, and n
// microseconds. Aider writes no time but the run's start, and a tape
// merges the files of a folder (messages, calls, events) by their dates:
// of one date, all messages would come before all calls. So the line
// number orders them as the file does, a second after the start at most
// for a run of a million lines.
func (c *chatConverter) date(n int) string {
	run := c.st.Run
	if run.Date == "" {
		return ""
	}
	if c.startOf != run.Date {
		t, err := time.Parse(time.RFC3339Nano, run.Date)
		if err != nil {
			return run.Date
		}
		c.start, c.startOf = t, run.Date
	}
	return c.start.Add(time.Duration(n) * time.Microsecond).Format(time.RFC3339Nano)
}

// event is an event entry of line n.
func (c *chatConverter) event(n int, name string, data json.RawMessage) source.Output {
	return c.entry(n, 0, tapelog.KindEvent, source.NamedData(name, data))
}

// preamble is a run's first anchor, whose state says what Aider's
// announcements after the header say (its version, model and edit
// format), and the announcements themselves as Aider's output.
func (c *chatConverter) preamble(b *block) []source.Output {
	run := c.st.Run
	var an announcement
	for _, m := range b.messages() {
		an.read(m.text)
	}
	if an.model != "" {
		run.Model = an.model
	}
	state := rawjson.NewObject().Str("source", "aider").Str("session_id", run.Session.ID).Str("file", c.path).
		Str("cwd", c.cwd()).Str("started_at", c.st.Header).StrIf("version", an.version).StrIf("model", an.model).
		StrIf("edit_format", an.format).StrIf("weak_model", an.weak).StrIf("editor_model", an.editor).Done()
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", state).Done()
	anchor := source.Output{Session: run.Session, Anchor: true,
		Entry: tapelog.Entry{ID: run.Session.ID, Kind: tapelog.KindAnchor, Date: run.Date, Payload: payload, Meta: c.meta(b.first)}}
	return append([]source.Output{anchor}, c.output(b)...)
}

// announcement is what Aider says of itself when a run starts, or when
// /model and /chat-mode make it start again (Coder.get_announcements).
type announcement struct {
	version, model, format, weak, editor string
}

// read takes what a message of Aider's says, if it is an announcement:
// "Aider v0.86.1"; "Main model: anthropic/claude-sonnet-4 with diff edit
// format, infinite output" ("Model:" when there is no weak model) and
// "Weak model: ..." (0.51 and later); "Models: gpt-4o with diff edit
// format, weak model gpt-4o-mini" (0.30 to 0.50); "Model: gpt-4 using
// diff edit format" (0.20s); "Model: gpt-4" (before).
func (a *announcement) read(text string) {
	switch {
	case strings.HasPrefix(text, "Aider v"):
		a.version = strings.TrimSpace(strings.TrimPrefix(text, "Aider v"))
	case strings.HasPrefix(text, "Main model: "), strings.HasPrefix(text, "Model: "), strings.HasPrefix(text, "Models: "):
		_, rest, _ := strings.Cut(text, ": ")
		a.model, a.format = modelAndFormat(rest)
		if _, weak, ok := strings.Cut(rest, ", weak model "); ok {
			a.weak = strings.TrimSpace(weak)
		}
	case strings.HasPrefix(text, "Weak model: "):
		a.weak = strings.TrimSpace(strings.TrimPrefix(text, "Weak model: "))
	case strings.HasPrefix(text, "Editor model: "):
		a.editor, _ = modelAndFormat(strings.TrimPrefix(text, "Editor model: "))
	}
}

// modelAndFormat reads "<model> with <format> edit format, ..." (" using "
// in the 0.20s), or the model alone.
func modelAndFormat(s string) (model, format string) {
	model, rest, ok := strings.Cut(s, " with ")
	if !ok {
		model, rest, ok = strings.Cut(s, " using ")
	}
	if !ok {
		model, _, _ = strings.Cut(s, ",")
		return strings.TrimSpace(model), ""
	}
	format, _, _ = strings.Cut(rest, " edit format")
	return strings.TrimSpace(model), strings.TrimSpace(format)
}

// message is one of Aider's output messages in a block: its first line's
// number and its text.
type message struct {
	no   int
	text string
}

// messages are b's output messages, in order.
func (b *block) messages() []message {
	out := make([]message, 0, len(b.msgs))
	for i, start := range b.msgs {
		end := len(b.lines)
		if i+1 < len(b.msgs) {
			end = b.msgs[i+1]
		}
		out = append(out, message{b.lines[start].no, strings.TrimRight(joinLines(b.lines[start:end]), "\n")})
	}
	return out
}

// joinLines is the text of lines, one a line.
func joinLines(lines []line) string {
	n := 0
	for _, l := range lines {
		n += len(l.text) + 1
	}
	var s strings.Builder
	s.Grow(n)
	for i, l := range lines {
		if i > 0 {
			s.WriteByte('\n')
		}
		s.WriteString(l.text)
	}
	return s.String()
}

// prompts are the commands whose text is a prompt to the model, in a mode
// (/ask, /code, /architect, /context, /help) or as a word (/ok): a user's
// message, not a call.
var prompts = map[string]bool{"/ask": true, "/code": true, "/architect": true, "/context": true, "/help": true, "/ok": true}

// user is what a user typed: a message, or a command ("/add x.py",
// "!make") as a call that the output after it answers. Aider writes
// "<blank>" for an input of nothing.
func (c *chatConverter) user(b *block) []source.Output {
	run := c.st.Run
	run.Command, run.Edits = "", nil
	text := joinLines(b.lines)
	if text == "<blank>" {
		return []source.Output{c.event(b.first, "aider/blank_input", []byte("{}"))}
	}
	if name, args, ok := commandCall(text); ok {
		id := callID(c.tag, b.first)
		run.Command = id
		arguments := rawjson.NewObject().Str("args", args).Done()
		return []source.Output{c.entry(b.first, 0, tapelog.KindToolCall, callsPayload([]call{{id, name, string(arguments)}}))}
	}
	payload := rawjson.NewObject().Str("role", "user").Str("content", text).Done()
	return []source.Output{c.entry(b.first, 0, tapelog.KindMessage, payload)}
}

// commandCall reads an input that is a command, and not a prompt (a
// /help without a question is a command).
func commandCall(text string) (name, args string, ok bool) {
	name, args, ok = command(text)
	return name, args, ok && (!prompts[name] || name == "/help" && args == "")
}

// command reads an input that is one of Aider's commands: "/name args",
// or "!args", which is /run.
func command(text string) (name, args string, ok bool) {
	switch {
	case strings.HasPrefix(text, "!"):
		return "/run", text[1:], true
	case len(text) > 1 && text[0] == '/' && text[1] != '/' && text[1] != ' ':
		name, args, _ = strings.Cut(text, " ")
		if i := strings.IndexByte(name, '\n'); i >= 0 {
			name, args = name[:i], text[i+1:]
		}
		return name, strings.TrimLeft(args, " "), true
	}
	return "", "", false
}

// call is one call of a tool_call entry.
type call struct{ id, name, args string }

// callsPayload is a tool_call entry's payload: {"calls": [{"id", "type":
// "function", "function": {"name", "arguments"}}]}, written at once (an
// edit's arguments are the code it changes: copied once more per level
// of objects, they cost a fifth of a conversion).
func callsPayload(calls []call) []byte {
	n := 16
	for _, c := range calls {
		n += len(c.id) + len(c.name) + len(c.args) + len(c.args)/4 + 64
	}
	b := append(make([]byte, 0, n), `{"calls":[`...)
	for i, c := range calls {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = rawjson.AppendString(b, c.id)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = rawjson.AppendString(b, c.name)
		b = append(b, `,"arguments":`...)
		b = rawjson.AppendString(b, c.args)
		b = append(b, "}}"...)
	}
	return append(b, "]}"...)
}

// callID is the id of the call made from line n.
func callID(tag string, n int) string { return "aider-call:" + lineID(tag, n, 0) }
