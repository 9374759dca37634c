package cline

import (
	"bytes"
	"strings"

	"github.com/tape-dev/tape/internal/rawjson"
)

// Before their native tool calls (Cline 3.3x, Roo Code 3.3x), Cline (2.0
// on) and its forks had the model call a tool by writing it in its text,
// as XML: <read_file>\n<path>src/a.go</path>\n</read_file>. They ran the
// first such call of a message, and answered it in the next user
// message, with a text block "[read_file for 'src/a.go'] Result:" (or
// "[attempt_completion] Result:") and the result's blocks after it.
//
// The mapping makes of the first call a message's text writes a tool
// call, id "<the message's id>:call", {"name", "arguments": its
// parameters as a JSON object of strings}, and of the text before and
// after it the message; of the answer, the call's result: the blocks
// after the header (but the context the agent adds, <environment_details>)
// up to the next header, failed when it begins with what the agents write
// of a denied or failed call. The header itself is not kept: it repeats
// the call. A call the next message does not answer stays pending.

// xmlTools are the tools the three agents let a model call in XML.
var xmlTools = map[string]bool{
	"execute_command": true, "read_file": true, "write_to_file": true, "replace_in_file": true, "search_files": true,
	"list_files": true, "list_code_definition_names": true, "browser_action": true, "use_mcp_tool": true,
	"access_mcp_resource": true, "ask_followup_question": true, "plan_mode_respond": true, "act_mode_respond": true,
	"load_mcp_documentation": true, "attempt_completion": true, "new_task": true, "condense": true,
	"summarize_task": true, "report_bug": true, "new_rule": true, "web_fetch": true, "web_search": true,
	"apply_diff": true, "insert_content": true, "search_and_replace": true, "codebase_search": true,
	"switch_mode": true, "fetch_instructions": true, "update_todo_list": true, "run_slash_command": true,
	"generate_image": true, "edit_file": true, "search_replace": true, "apply_patch": true, "use_skill": true,
}

// xmlCall is the tool call a message's text writes as XML.
type xmlCall struct {
	block         int // the text block it is in
	id, name      string
	args          []byte // its parameters, as a JSON object
	context       string // its "context" parameter, for a call that condenses the task
	hasContext    bool
	before, after string // the block's text around it
}

// text is the text of the block around the call: what is before it and
// what is after it, a blank line between.
func (x *xmlCall) text() string {
	before, after := strings.TrimRight(x.before, " \t\r\n"), strings.TrimLeft(x.after, " \t\r\n")
	if before != "" && after != "" {
		return before + "\n\n" + after
	}
	return before + after
}

// summary is the summary a call that condenses the task holds (Cline's
// summarize_task and condense), nil for any other.
func (x *xmlCall) summary() *string {
	if (x.name == "summarize_task" || x.name == "condense") && x.hasContext {
		return &x.context
	}
	return nil
}

// xmlCall finds the first call an assistant message's text writes as
// XML, and notes it as the call the next user message answers.
func (c *converter) xmlCall(in *input, blocks []block) *xmlCall {
	c.pending = nil
	for i := range blocks {
		b := &blocks[i]
		if b.kind != textBlock || !b.plain || !bytes.Contains(b.text, []byte("</")) {
			continue
		}
		before, name, params, after, ok := findXMLCall(b.decoded())
		if !ok {
			continue
		}
		call := &xmlCall{block: i, id: in.id + ":call", name: name, before: before, after: after}
		args := rawjson.NewObject()
		for _, p := range params {
			args.Str(p.name, p.value)
			if p.name == "context" {
				call.context, call.hasContext = p.value, true
			}
		}
		call.args = args.Done()
		c.pending = call
		return call
	}
	return nil
}

// param is a parameter of a call written as XML.
type param struct{ name, value string }

// findXMLCall finds the first call text writes as XML: <name>, for a name
// of xmlTools, then parameters and white space up to </name>. It returns
// the text before and after it, and the parameters in order.
func findXMLCall(text string) (before, name string, params []param, after string, ok bool) {
	for from := 0; from < len(text); {
		at := strings.IndexByte(text[from:], '<')
		if at < 0 {
			return "", "", nil, "", false
		}
		at += from
		end := tagEnd(text, at+1)
		if end < len(text) && text[end] == '>' && xmlTools[text[at+1:end]] {
			name = text[at+1 : end]
			closeTag := "</" + name + ">"
			if n := strings.Index(text[end+1:], closeTag); n >= 0 {
				if params, ok = xmlParams(text[end+1 : end+1+n]); ok {
					return text[:at], name, params, text[end+1+n+len(closeTag):], true
				}
			}
		}
		from = at + 1
	}
	return "", "", nil, "", false
}

// tagEnd is where a tag's name that starts at i ends: past its lower
// case letters, digits and '_'.
func tagEnd(s string, i int) int {
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= '0' && s[i] <= '9') {
		i++
	}
	return i
}

// xmlParams reads the inside of a call written as XML: parameters
// <name>value</name> and white space, nothing else. A parameter whose
// value may hold its own closing tag (a file's content, a diff) ends at
// the last one.
func xmlParams(inner string) ([]param, bool) {
	var ps []param
	rest := inner
	for {
		rest = strings.TrimLeft(rest, " \t\r\n")
		if rest == "" {
			return ps, true
		}
		if rest[0] != '<' {
			return nil, false
		}
		end := tagEnd(rest, 1)
		if end == 1 || end >= len(rest) || rest[end] != '>' {
			return nil, false
		}
		name, body := rest[1:end], rest[end+1:]
		closeTag := "</" + name + ">"
		n := strings.Index(body, closeTag)
		if name == "content" || name == "diff" {
			n = strings.LastIndex(body, closeTag)
		}
		if n < 0 {
			return nil, false
		}
		ps = append(ps, param{name, body[:n]})
		rest = body[n+len(closeTag):]
	}
}

// xmlAnswer is what a user message answers the call the message before
// it wrote as XML: its blocks from the header to the next header.
type xmlAnswer struct {
	call     *xmlCall
	from, to int // the header's block, and the first block after the answer
	blocks   []block
}

// xmlResult finds the answer, in a user message's blocks, to the call
// the message before wrote as XML; nil when it has none.
func (c *converter) xmlResult(blocks []block) *xmlAnswer {
	call := c.pending
	if call == nil {
		return nil
	}
	for i := range blocks {
		if !blocks[i].isHeader(call.name) {
			continue
		}
		to := len(blocks)
		for j := i + 1; j < len(blocks); j++ {
			if blocks[j].isHeader("") {
				to = j
				break
			}
		}
		return &xmlAnswer{call: call, from: i, to: to, blocks: blocks}
	}
	return nil
}

// has reports whether the i-th block is of the answer (the context the
// agent adds among its blocks is not).
func (x *xmlAnswer) has(i int) bool {
	return i >= x.from && i < x.to && !x.blocks[i].env
}

// failures begin the answer to a call the person denied, or that failed.
var failures = []string{"The user denied this operation", "The tool execution failed", "Error", "[ERROR]", "<error>"}

// result is the answer as a result of the call: {"tool_call_id",
// "content": the text, when it is one plain text block, else the blocks
// as parts, "is_error": true when it failed}.
func (x *xmlAnswer) result() []byte {
	var parts []*block
	for i := x.from + 1; i < x.to; i++ {
		if x.has(i) {
			parts = append(parts, &x.blocks[i])
		}
	}
	var content []byte
	switch {
	case len(parts) == 0:
		content = []byte(`""`)
	case len(parts) == 1 && parts[0].kind == textBlock && parts[0].plain:
		content = parts[0].text
	default:
		items := make([][]byte, len(parts))
		for i, b := range parts {
			items[i] = b.part()
		}
		content = rawjson.Array(items...)
	}
	failed := false
	if len(parts) > 0 && parts[0].kind == textBlock {
		first := strings.TrimLeft(parts[0].decoded(), " \t\r\n")
		for _, f := range failures {
			failed = failed || strings.HasPrefix(first, f)
		}
	}
	return appendResult(nil, x.call.id, content, failed, nil)
}

// isHeader reports whether a block heads the answer to a call of the
// tool name ("" for any): a text "[name for '...'] Result:" or "[name]
// Result:".
func (b *block) isHeader(name string) bool {
	if b.kind != textBlock || !b.plain || len(b.text) < 12 || b.text[1] != '[' ||
		!bytes.HasSuffix(bytes.TrimRight(b.text, `"`), []byte("] Result:")) {
		return false
	}
	if name == "" {
		return true
	}
	t := b.decoded()
	return strings.HasPrefix(t, "["+name+"]") || strings.HasPrefix(t, "["+name+" for ")
}
