package cursor

import (
	"regexp"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// transcriptLine maps a line of an agent transcript: {"role", "message":
// {"content"}}, content a string or blocks. The lines have no dates and
// no ids: the entries are undated, and their ids are the line's
// (source.LineID).
func (c *converter) transcriptLine(in *input) []source.Output {
	out := c.startTranscript(in)
	role := in.rec.Str("role")
	msg := in.rec.Sub("message")
	content := source.Trim(msg.Raw("content"))
	known := msg != nil && (role == "user" || role == "assistant" || role == "tool") &&
		(isString(content) || len(content) > 0 && content[0] == '[')
	if !known {
		name := "record"
		if role != "" {
			name = role
		}
		return append(out, c.event(in, "cursor/"+name, in.l.Data))
	}
	out = append(out, c.content(in, role, content)...)
	if r := rest(in.rec, "role", "message"); string(r) != "{}" {
		out = append(out, c.event(in, "cursor/record", r)) // members a later Cursor added
	}
	if r := rest(msg, "content", "role"); string(r) != "{}" {
		out = append(out, c.event(in, "cursor/message", r))
	}
	return out
}

// content maps a message's content of a role it maps: a string a
// message (the user's with its title), blocks each as block maps it.
func (c *converter) content(in *input, role string, content []byte) []source.Output {
	switch {
	case role == "user" && isString(content):
		return c.userText(in, content)
	case isString(content):
		return []source.Output{c.message(in, role, content, nil)}
	}
	var out []source.Output
	rawjson.ArrayItems(content, func(item []byte) {
		out = append(out, c.block(in, role, item)...)
	})
	return out
}

// message2 maps a message of a CLI chat's blob: {"role", "content", "id",
// "providerOptions"}, content as a transcript's; its other members (the
// id, "1" for every reply; providerOptions) an event cursor/blob; a role
// tape does not map, or content of another shape, an event cursor/<role>.
func (c *converter) message2(in *input) []source.Output {
	role := in.rec.Str("role")
	content := source.Trim(in.rec.Raw("content"))
	if !(role == "user" || role == "assistant" || role == "tool") || !(isString(content) || len(content) > 0 && content[0] == '[') {
		name := "blob"
		if role != "" {
			name = role
		}
		return []source.Output{c.event(in, "cursor/"+name, rawjson.AppendCompact(nil, obj(in.rec).Without()))}
	}
	out := c.content(in, role, content)
	if r := rest(in.rec, "role", "content"); string(r) != "{}" {
		out = append(out, c.event(in, "cursor/blob", r))
	}
	return out
}

// startTranscript makes the session's first anchor, at its first line:
// the cwd the first user message's <user_info> names (Workspace Path),
// else the one the project's folder name says (decodeProject).
func (c *converter) startTranscript(in *input) []source.Output {
	if c.st.Started {
		return nil
	}
	c.st.Started = true
	c.st.Session = fileSession(c.path)
	project := projectOf(c.path)
	cwd := workspacePath(in.l.Data)
	if cwd == "" {
		cwd = decodeProject(project)
	}
	c.st.CWD = cwd
	s := c.st.Session
	state := rawjson.NewObject().Str("source", "cursor").Str("session_id", s.ID).Str("file", c.path).StrIf("cwd", cwd).StrIf("project", project)
	id := s.ID
	if s.Agent != "" {
		state.Str("agent_id", s.Agent).Str("parent_session", s.ID)
		id += "/agent/" + s.Agent
	}
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", state.Done()).Done()
	e := tapelog.Entry{ID: id, Kind: tapelog.KindAnchor, Payload: payload, Meta: source.Meta(c.path, in.l.No, "", "", nil).Done()}
	return []source.Output{{Session: s, Anchor: true, Entry: e}}
}

// workspaceRE finds the folder Cursor's context names in a user message:
// "Workspace Path: /home/ana/app", in its <user_info>.
var workspaceRE = regexp.MustCompile(`Workspace Path: ([^\\\n"]+)`)

// workspacePath is the folder a line's <user_info> names, "" for none.
func workspacePath(line []byte) string {
	m := workspaceRE.FindSubmatch(line)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(string(m[1]))
}

// userText maps a user's text: a message, as written (with the context
// Cursor adds, <user_info> and the like, around the <user_query>); and
// the first query's first line is the chat's title.
func (c *converter) userText(in *input, text []byte) []source.Output {
	out := []source.Output{c.message(in, "user", text, nil)}
	if c.st.Title != "" {
		return out
	}
	s, _ := source.StringValue(text)
	return append(out, c.title(in, titleOf(s), "user_query")...)
}

// queryRE finds what the user typed in a message Cursor wrapped in context.
var queryRE = regexp.MustCompile(`(?s)<user_query>\s*(.*?)\s*</user_query>`)

// titleOf is the title a user's message gives a chat: the first line of
// its <user_query> (of the whole text, without one), cut to 80 runes.
func titleOf(s string) string {
	if m := queryRE.FindStringSubmatch(s); m != nil {
		s = m[1]
	} else if strings.Contains(s, "<user_info>") {
		return ""
	}
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return s
}

// block maps a content block: text a message of the role (the user's
// with its title), thinking a thinking event, tool_use a call,
// tool_result its result (failed when is_error); any other block, or one
// of a shape the mapping does not read, an event "cursor/<type>".
func (c *converter) block(in *input, role string, item []byte) []source.Output {
	b := obj(source.ObjectOf(item))
	switch typ := b.Str("type"); {
	case typ == "text" && isString(b.Raw("text")):
		var out []source.Output
		if role == "user" {
			out = c.userText(in, b.Raw("text"))
		} else {
			out = []source.Output{c.message(in, role, b.Raw("text"), nil)}
		}
		if r := rest(b, "type", "text"); string(r) != "{}" {
			out = append(out, c.event(in, "cursor/text", r)) // a member Cursor does not write
		}
		return out
	case (typ == "thinking" || typ == "reasoning" || typ == "redacted_thinking") && thinkingKey(b) != "":
		k := thinkingKey(b)
		return []source.Output{c.thinking(in, b.Raw(k), rest(b, "type", k))}
	case typ == "tool_use" && b.Str("id") != "" && b.Str("name") != "":
		return []source.Output{c.call(in, b.Str("id"), b.Str("name"), compactText(b.Raw("input")), rest(b, "type", "id", "name", "input"))}
	case typ == "tool-call" && b.Str("toolCallId") != "" && b.Str("toolName") != "": // a CLI chat's blob
		return []source.Output{c.call(in, b.Str("toolCallId"), b.Str("toolName"), compactText(b.Raw("args")), rest(b, "type", "toolCallId", "toolName", "args"))}
	case typ == "tool-result" && b.Str("toolCallId") != "":
		read := []string{"type", "toolCallId", "result"}
		if e := string(b.Raw("isError")); e == "true" || e == "false" {
			read = append(read, "isError")
		}
		return []source.Output{c.result(in, b.Str("toolCallId"), resultText(b.Raw("result")), b.True("isError"), rest(b, read...))}
	case typ == "tool_result" && b.Str("tool_use_id") != "":
		read := []string{"type", "tool_use_id", "content"}
		if e := string(b.Raw("is_error")); e == "true" || e == "false" {
			read = append(read, "is_error")
		}
		return []source.Output{c.result(in, b.Str("tool_use_id"), resultText(b.Raw("content")), b.True("is_error"), rest(b, read...))}
	}
	name := b.Str("type")
	if name == "" {
		name = "block"
	}
	return []source.Output{c.event(in, "cursor/"+name, rawjson.AppendCompact(nil, item))}
}

// thinkingKey is the member of a thinking block that holds its text, a
// string: "thinking", else "text" (a reasoning block's), else "data" (a
// redacted one's); "" for none.
func thinkingKey(b obj) string {
	for _, k := range []string{"thinking", "text", "data"} {
		if isString(b.Raw(k)) {
			return k
		}
	}
	return ""
}

// resultText is a tool result's content: a string as written; an array
// of text blocks ({"type": "text", "text"} alone) as their texts joined by
// newlines; any other value (blocks of other kinds among them) as it is.
func resultText(v []byte) []byte {
	v = source.Trim(v)
	switch {
	case len(v) == 0:
		return []byte(`""`)
	case isString(v) || v[0] != '[':
		return v
	}
	var parts []string
	texts := true
	rawjson.ArrayItems(v, func(item []byte) {
		b := obj(source.ObjectOf(item))
		if b.Str("type") == "text" && isString(b.Raw("text")) && len(b) == 2 {
			parts = append(parts, b.Str("text"))
			return
		}
		texts = false
	})
	if !texts {
		return rawjson.AppendCompact(nil, v)
	}
	return rawjson.AppendString(nil, strings.Join(parts, "\n"))
}
