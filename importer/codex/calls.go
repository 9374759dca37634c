package codex

import (
	"encoding/json"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
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
	calls   []byte          // the entry's payload so far: {"calls":[ and each call's text (callText)
	results []source.Output // a web search's outcome, which has no output item
}

// call adds a tool call to the held group.
func (c *converter) call(in input) {
	it := in.it
	if c.group == nil {
		c.saved = c.st.clone() // kept now: the held lines change st
		c.group = &callGroup{line: in.l.No, offset: in.l.Offset, calls: []byte(`{"calls":[`)}
		c.group.out = []source.Output{{Session: c.st.Session, Entry: c.entry(in, 0, tapelog.KindToolCall, nil)}}
	}
	g := c.group
	id := it.CallID
	var call []byte
	switch it.Type {
	case "function_call":
		call = callText("function", id, it.Name, argText(it.Arguments))
	case "custom_tool_call":
		call = callText("custom", id, it.Name, argText(it.Input))
	default: // local_shell_call, web_search_call
		name := strings.TrimSuffix(it.Type, "_call")
		if id == "" {
			id = source.LineID(c.path, in.l.No, 0) // web searches carry no id in a rollout
		}
		call = callText("function", id, name, string(source.OrNull(source.Trim(it.Action))))
		if it.Type == "web_search_call" {
			g.results = append(g.results, source.Output{Session: c.st.Session, Entry: c.entry(in, 1, tapelog.KindToolResult, webSearchResult(id, it.Status))})
		}
	}
	if len(g.calls) > len(`{"calls":[`) {
		g.calls = append(g.calls, ',')
	}
	g.calls = append(g.calls, call...)
}

// argText is a call's arguments or input as its entry keeps them: the
// string they hold, else their JSON text (null, absent: ""). A string,
// the arguments of every call Codex writes, is read by rawjson.String;
// anything else as before, by encoding/json.
func argText(raw json.RawMessage) string {
	if t := source.Trim(raw); len(t) > 0 && t[0] == '"' {
		if s, ok := rawjson.String(t); ok {
			return s
		}
	}
	var args string
	if json.Unmarshal(raw, &args) != nil {
		args = string(raw)
	}
	return args
}

// closeGroup emits the held calls.
func (c *converter) closeGroup() []source.Output {
	g := c.group
	c.group = nil
	g.out[0].Entry.Payload = append(g.calls, "]}"...)
	return append(g.out, g.results...)
}
