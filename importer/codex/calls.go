package codex

import (
	"encoding/json"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// failed reports whether a call's output says it failed: a shell
// command's output whose metadata has a non-zero exit code, or an object
// with "success": false.
func failed(output json.RawMessage) bool {
	var s string
	if json.Unmarshal(output, &s) == nil {
		output = json.RawMessage(s)
	}
	var o struct {
		Success  *bool `json:"success"`
		Metadata struct {
			ExitCode *float64 `json:"exit_code"`
		} `json:"metadata"`
	}
	if json.Unmarshal(output, &o) != nil {
		return false
	}
	return o.Success != nil && !*o.Success || o.Metadata.ExitCode != nil && *o.Metadata.ExitCode != 0
}

// callGroup is a run of tool calls, held until a record that is not a
// call comes: the calls of one response, written one line each, become
// one tool_call entry.
type callGroup struct {
	line    int
	offset  int64
	out     []source.Output // the tool_call entry first, then what was written between the calls
	calls   []any
	results []source.Output // a web search's outcome, which has no output item
}

// call adds a tool call to the held group.
func (c *converter) call(in input) {
	it := in.it
	if c.group == nil {
		c.saved = source.MustJSON(c.st) // encoded now: the held lines change st
		c.group = &callGroup{line: in.l.No, offset: in.l.Offset}
		c.group.out = []source.Output{{Session: c.st.Session, Entry: c.entry(in, 0, tapelog.KindToolCall, nil)}}
	}
	g := c.group
	id := it.CallID
	var call map[string]any
	switch it.Type {
	case "function_call":
		var args string
		if json.Unmarshal(it.Arguments, &args) != nil {
			args = string(it.Arguments)
		}
		call = map[string]any{"id": id, "type": "function", "function": map[string]any{"name": it.Name, "arguments": args}}
	case "custom_tool_call":
		var input string
		if json.Unmarshal(it.Input, &input) != nil {
			input = string(it.Input)
		}
		call = map[string]any{"id": id, "type": "custom", "custom": map[string]any{"name": it.Name, "input": input}}
	default: // local_shell_call, web_search_call
		name := strings.TrimSuffix(it.Type, "_call")
		if id == "" {
			id = source.LineID(c.path, in.l.No, 0) // web searches carry no id in a rollout
		}
		call = map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": string(source.OrNull(source.Trim(it.Action)))}}
		if it.Type == "web_search_call" {
			res := map[string]any{"tool_call_id": id, "content": it.Status}
			if it.Status != "" && it.Status != "completed" {
				res["is_error"] = true
			}
			g.results = append(g.results, source.Output{Session: c.st.Session, Entry: c.entry(in, 1, tapelog.KindToolResult, source.MustJSON(map[string]any{"results": []any{res}}))})
		}
	}
	g.calls = append(g.calls, call)
}

// closeGroup emits the held calls.
func (c *converter) closeGroup() []source.Output {
	g := c.group
	c.group = nil
	g.out[0].Entry.Payload = source.MustJSON(map[string]any{"calls": g.calls})
	return append(g.out, g.results...)
}
