package gemini

import (
	"encoding/json"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// Where a message was read.
const (
	fromLine     = ""         // a record on a line of its own
	fromDocument = "document" // a document's messages (or a legacy record's, on one line)
	fromSet      = "set"      // the history of a $set
)

// item maps an item of a list of messages (a document's, a $set's): a
// message, or, when it is none, an event gemini/message of it.
func (c *converter) item(in input, raw []byte, from string) []source.Output {
	var rec record
	var fs []field
	if isObject(raw) {
		fs = fields(raw)
		rec = recordOf(fs)
	}
	if fs == nil && !isObject(raw) || kindOf(rec) != kindMessage {
		out := c.start(in.l, nil)
		return append(out, c.event(in, hashID(c.st.Session.ID+"/message", raw), c.d.name+"/message", raw))
	}
	in.rec, in.raw, in.fields, in.from, in.bad = rec, raw, fs, from, nil
	if from == fromDocument {
		c.modelOf(rec)
	}
	return c.message(c.dated(in))
}

// message maps a message by its type: "user", "gemini" (the model's),
// "error", and any other ("info", "warning") as an event. Its entries'
// ids are its id and the part they come from, so that the message
// written again makes the same ones (seen.go).
func (c *converter) message(in input) []source.Output {
	out := c.start(in.l, nil)
	c.st.Messages++
	id := str(in.rec.ID)
	mid := id
	if mid == "" {
		mid = source.LineID(c.path, in.l.No, 0)
		if in.from != fromLine {
			mid = hashID(c.st.Session.ID+"/message", in.raw)
		}
	}
	l, replay := c.lastFor(id, in.from)
	var made []source.Output
	switch typ := str(in.rec.Type); typ {
	case c.d.model:
		made = c.gemini(in, mid, l)
	case "user":
		made = c.user(in, mid, l)
	case "error":
		made = c.errorMessage(in, mid, l)
	default:
		if typ == "" {
			typ = "message"
		}
		if !l.Text {
			l.Text = true
			made = []source.Output{c.event(in, mid, c.d.name+"/"+typ, in.raw)}
		}
	}
	for i := range made {
		made[i].Replay = replay
	}
	c.st.Last = nil
	if id != "" {
		c.st.Last = l
		c.st.Seen.add(id)
	}
	return append(out, made...)
}

// lastFor is what was made of the message with id (a new last when it is
// not the last message read), and whether its entries may be on the tape
// already: a $set's messages, and a message read before that is not the
// last, which the converter does not know the parts of.
func (c *converter) lastFor(id, from string) (*last, bool) {
	if from == fromDocument {
		return &last{ID: id}, false // a document is read whole, from its start
	}
	if id != "" && c.st.Last != nil && c.st.Last.ID == id {
		return c.st.Last, false
	}
	return &last{ID: id}, from == fromSet || id != "" && c.st.Seen.may(id)
}

// user maps a user's message: its text, or its parts, as a message. Its
// functionResponse parts are the results of tool calls (Gemini CLI 0.44
// and later record what it sends back to the model as a message): a
// tool_result entry, unless they repeat the results the calls of the
// message before already made (then nothing).
func (c *converter) user(in input, mid string, l *last) []source.Output {
	if l.Text {
		return nil
	}
	l.Text = true
	parts, ok := readParts(in.rec.Content)
	if !ok || len(parts) == 0 {
		return []source.Output{c.event(in, mid, c.d.name+"/user", in.raw)}
	}
	var results [][]byte
	var rest []part
	for _, p := range parts {
		if p.fr != nil {
			results = append(results, p.fr.result())
		} else {
			rest = append(rest, p)
		}
	}
	var out []source.Output
	if len(results) > 0 && (len(rest) > 0 || !c.echoes(parts)) {
		payload := rawjson.NewObject().Raw("results", rawjson.Array(results...)).Done()
		out = append(out, source.Output{Session: c.st.Session, Entry: c.entry(in, mid+"/results", tapelog.KindToolResult, payload)})
	}
	display, hasDisplay := c.display(in.rec.DisplayContent, rest)
	if len(rest) > 0 || hasDisplay {
		out = append(out, source.Output{Session: c.st.Session, Entry: c.entry(in, mid, tapelog.KindMessage, chatMessage("user", rest, display, hasDisplay))})
	}
	return out
}

// echoes reports whether a user message of tool results is the results
// the last message's calls made: each part the response a result of one
// of its calls was made of.
func (c *converter) echoes(parts []part) bool {
	g := c.st.Last
	if g == nil || g.Type != c.d.model {
		return false
	}
	for _, p := range parts {
		if h, ok := g.Results[p.fr.id]; !ok || h != sum(p.fr.response) {
			return false
		}
	}
	return true
}

// display is a message's displayContent (what the user typed, where the
// content holds what was sent: files read in, for one), when it says
// something its content does not: its text, or its parts as written.
func (c *converter) display(raw json.RawMessage, content []part) (any, bool) {
	raw = source.Trim(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false
	}
	parts, ok := readParts(raw)
	if !ok || !textOnly(parts) {
		return raw, true
	}
	text := joinText(parts)
	if textOnly(content) && joinText(content) == text {
		return nil, false
	}
	return text, true
}

// gemini maps the model's message: its thoughts, its text, its tool calls
// and their results, and its tokens; each once, however often Gemini CLI
// writes the message again as they come.
func (c *converter) gemini(in input, mid string, l *last) []source.Output {
	l.Type = c.d.model
	out := c.thoughts(in, mid, l)
	if !l.Text {
		out = append(out, c.reply(in, mid, l)...)
	}
	out = append(out, c.calls(in, mid, l)...)
	if in.from != fromSet { // a $set's messages are copies: their tokens were counted, or are not
		out = append(out, c.usage(in, mid, l)...)
	}
	return out
}

// thoughts maps the thoughts Gemini CLI summarized, [{"subject",
// "description", "timestamp"}], as thinking events, each as written, at
// the message's date (a thought's own is in its data).
func (c *converter) thoughts(in input, mid string, l *last) []source.Output {
	raw := source.Trim(in.rec.Thoughts)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	list, ok := items(raw)
	if !ok {
		if l.Thoughts > 0 {
			return nil
		}
		l.Thoughts = 1
		return []source.Output{c.event(in, mid+"/thoughts", c.d.name+"/thoughts", raw)}
	}
	var out []source.Output
	for i := l.Thoughts; i < len(list); i++ {
		payload := source.NamedData("thinking", list[i])
		out = append(out, source.Output{Session: c.st.Session, Entry: c.entry(in, mid+"/thought/"+itoa(i+1), tapelog.KindEvent, payload)})
	}
	l.Thoughts = max(l.Thoughts, len(list))
	return out
}

// reply maps the model's content: its thought parts as thinking events,
// the rest as an assistant message. A content of a shape the mapping
// cannot read is kept as an event gemini/content.
func (c *converter) reply(in input, mid string, l *last) []source.Output {
	raw := source.Trim(in.rec.Content)
	parts, ok := readParts(raw)
	if !ok {
		l.Text = true
		data := rawjson.NewObject().Raw("content", compact(raw))
		if d := source.Trim(in.rec.DisplayContent); len(d) > 0 {
			data.Raw("displayContent", compact(d))
		}
		return []source.Output{c.event(in, mid+"/content", c.d.name+"/content", data.Done())}
	}
	var out []source.Output
	var rest []part
	k := 0
	for _, p := range parts {
		if !p.thought {
			rest = append(rest, p)
			continue
		}
		k++
		data := rawjson.NewObject()
		if p.signature != "" {
			data.Str("signature", p.signature)
		}
		payload := rawjson.NewObject().Raw("data", data.Str("thinking", p.text).Done()).Str("name", "thinking").Done()
		out = append(out, source.Output{Session: c.st.Session, Entry: c.entry(in, mid+"/thinking/"+itoa(k), tapelog.KindEvent, payload)})
	}
	display, hasDisplay := c.display(in.rec.DisplayContent, rest)
	if textOnly(rest) && joinText(rest) == "" && !hasDisplay {
		l.Text = len(out) > 0
		return out // no words yet: a message that holds only tool calls
	}
	l.Text = true
	return append(out, source.Output{Session: c.st.Session, Entry: c.entry(in, mid, tapelog.KindMessage, chatMessage("assistant", rest, display, hasDisplay))})
}

// errorMessage maps an error Gemini CLI showed the user: an error entry
// of its text, or an event gemini/error of a content that is not text.
func (c *converter) errorMessage(in input, mid string, l *last) []source.Output {
	if l.Text {
		return nil
	}
	l.Text = true
	parts, ok := readParts(in.rec.Content)
	if !ok || len(parts) == 0 || !textOnly(parts) || in.rec.DisplayContent != nil {
		return []source.Output{c.event(in, mid, c.d.name+"/error", in.raw)}
	}
	payload := source.MustJSON(map[string]any{"kind": c.d.name, "message": joinText(parts)})
	return []source.Output{{Session: c.st.Session, Entry: c.entry(in, mid, tapelog.KindError, payload)}}
}
