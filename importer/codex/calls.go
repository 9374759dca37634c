package codex

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// failed reports whether a call's output says it failed: a shell
// command's output whose metadata has a non-zero exit code, or an object
// with "success": false.
//
// It reads output by rawjson as failedJSON reads it by encoding/json, and
// leaves to failedJSON what it does not read (an escaped or case-folded
// key, a member of another type, text that is not valid JSON). Codex
// writes the output of every call as a string of JSON, which
// encoding/json checked and decoded twice: a tenth of the converter's
// time (BenchmarkConvert). TestReadersAgreeWithEncodingJSON and
// FuzzReaders hold it to failedJSON. ld, when it is not nil, lends room
// for the output's members.
func failed(output json.RawMessage, ld *lineDecoder) bool {
	t := source.Trim(output)
	switch {
	case len(t) == 0 || string(t) == "null":
		return false // nothing, or a null string
	case t[0] == '"':
		s, ok := rawjson.String(t)
		if !ok {
			return failedJSON(output)
		}
		t = []byte(s)
	case !utf8.Valid(t):
		return failedJSON(output)
	}
	// JSON's white space only: bytes.TrimSpace would take U+00A0 too,
	// which encoding/json does not.
	if t = bytes.TrimLeft(t, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return false // not an object, or not JSON: encoding/json fails
	}
	var room []rawjson.Member
	if ld != nil {
		room = ld.output[:0]
	}
	members, ok := rawjson.SplitObject(t, room)
	if !ok {
		return failedJSON(output)
	}
	if ld != nil {
		ld.output = members
	}
	var success maybe[bool]
	var exit maybe[float64]
	d := fastDecoder{}
	for _, m := range members {
		switch string(m.Key) {
		case "success":
			d.maybeBool(m.Value, &success)
		case "metadata":
			d.exitCode(m.Value, &exit)
		default:
			d.unknown(m.Key, outputKeys)
		}
	}
	if d.giveUp {
		return failedJSON(output)
	}
	return success.ok && !success.v || exit.ok && exit.v != 0
}

var (
	outputKeys   = []string{"success", "metadata"}
	metadataKeys = []string{"exit_code"}
)

// exitCode reads a metadata object's exit_code into dst, as encoding/json
// reads it into a struct's *float64: null leaves the struct as it is.
func (d *fastDecoder) exitCode(v []byte, dst *maybe[float64]) {
	switch v[0] {
	case 'n':
		return
	case '{':
	default:
		d.giveUp = true
		return
	}
	rawjson.ObjectMembers(v, func(key, v []byte) {
		if string(key) == "exit_code" {
			d.maybeFloat(v, dst)
		} else {
			d.unknown(key, metadataKeys)
		}
	})
}

// failedJSON is failed by encoding/json.
func failedJSON(output json.RawMessage) bool {
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
	calls   []byte          // the entry's payload so far: {"calls":[ and each call (appendCall)
	results []source.Output // a web search's outcome, which has no output item
}

// call adds a tool call to the held group.
func (c *converter) call(in *input) {
	it := &in.it
	if c.group == nil {
		c.saved, c.echoShared = c.st, true // kept now: the held lines change st
		c.group = &callGroup{line: in.l.No, offset: in.l.Offset, calls: append(make([]byte, 0, 256), `{"calls":[`...)}
		// Room for what usually follows: a token count between the
		// calls, and the line that ends the run (Line appends to it).
		c.group.out = append(make([]source.Output, 0, 3), source.Output{Session: c.st.Session, Entry: c.entry(in, 0, tapelog.KindToolCall, nil)})
	}
	g := c.group
	if len(g.calls) > len(`{"calls":[`) {
		g.calls = append(g.calls, ',')
	}
	id := it.CallID
	switch it.Type {
	case "function_call":
		g.calls = appendCall(g.calls, "function", id, it.Name, argText(it.Arguments))
	case "custom_tool_call":
		g.calls = appendCall(g.calls, "custom", id, it.Name, argText(it.Input))
	default: // local_shell_call, web_search_call
		name := strings.TrimSuffix(it.Type, "_call")
		if id == "" {
			id = c.ids.ID(in.l.No, 0) // web searches carry no id in a rollout
		}
		g.calls = appendCall(g.calls, "function", id, name, string(source.OrNull(source.Trim(it.Action))))
		if it.Type == "web_search_call" {
			g.results = append(g.results, source.Output{Session: c.st.Session, Entry: c.entry(in, 1, tapelog.KindToolResult, webSearchResult(id, it.Status))})
		}
	}
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
	c.group, c.echoShared = nil, false
	g.out[0].Entry.Payload = append(g.calls, "]}"...)
	return append(g.out, g.results...)
}
