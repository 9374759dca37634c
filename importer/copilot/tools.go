package copilot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// request is a tool call an assistant.message asks for, as written.
type request struct {
	ID, Name, Arguments, Type, Intention, Title, MCPServer, MCPTool []byte
}

// readRequest reads the members of a request the mapping reads.
func readRequest(item []byte) request {
	var r request
	rawjson.ObjectMembers(item, func(key, v []byte) {
		switch memberName(key) {
		case "toolCallId":
			r.ID = v
		case "name":
			r.Name = v
		case "arguments":
			r.Arguments = v
		case "type":
			r.Type = v
		case "intentionSummary":
			r.Intention = v
		case "toolTitle":
			r.Title = v
		case "mcpServerName":
			r.MCPServer = v
		case "mcpToolName":
			r.MCPTool = v
		}
	})
	return r
}

// call is a request as read: the strings of a tape's call.
type call struct {
	id, name, args, kind              string
	intention, title, server, mcpTool string
}

// readRequests reads an assistant.message's toolRequests: absent, null or
// a list of objects each with a string toolCallId and name (and strings,
// or nothing, for the other members read). ok is false for any other
// shape, and the reply is kept whole.
func readRequests(raw json.RawMessage) (calls []call, ok bool) {
	raw = source.Trim(raw)
	if !given(raw) {
		return nil, true
	}
	if raw[0] != '[' {
		return nil, false
	}
	ok = true
	rawjson.ArrayItems(raw, func(item []byte) {
		if !ok {
			return
		}
		if item[0] != '{' {
			ok = false
			return
		}
		var cl call
		if cl, ok = readCall(readRequest(item)); ok {
			calls = append(calls, cl)
		}
	})
	if !ok {
		return nil, false
	}
	return calls, true
}

// readCall reads a request: ok is false when its id or name is not a
// string, or another member read is neither a string nor absent.
func readCall(r request) (cl call, ok bool) {
	id, ok := rawjson.String(r.ID)
	name, ok2 := rawjson.String(r.Name)
	if !ok || !ok2 {
		return call{}, false
	}
	cl = call{id: id, name: name, args: argsText(r.Arguments)}
	for _, m := range []struct {
		to  *string
		raw []byte
	}{{&cl.kind, r.Type}, {&cl.intention, r.Intention}, {&cl.title, r.Title}, {&cl.server, r.MCPServer}, {&cl.mcpTool, r.MCPTool}} {
		if *m.to, ok = optString(m.raw); !ok {
			return call{}, false
		}
	}
	return cl, true
}

// argsText is a call's arguments as a tape's call holds them: JSON text
// (a string as it is, "" for none).
func argsText(raw json.RawMessage) string {
	raw = source.Trim(raw)
	if s, ok := rawjson.String(raw); ok {
		return s
	}
	if !given(raw) {
		return ""
	}
	return string(compact(raw))
}

// callSum is what tells a tool's start that repeats its request: a sum of
// its name and arguments.
func callSum(name, args string) string {
	sum := sha256.Sum256([]byte(name + "\x00" + args))
	return hex.EncodeToString(sum[:8])
}

// requested is the payload of a tool_call entry of calls, which are noted
// as waiting for their start.
func (c *converter) requested(calls []call) []byte {
	items := make([][]byte, len(calls))
	for i, cl := range calls {
		if c.st.Calls == nil {
			c.st.Calls = map[string]string{}
		}
		c.st.Calls[cl.id] = callSum(cl.name, cl.args)
		items[i] = cl.json()
	}
	return rawjson.NewObject().Raw("calls", rawjson.Array(items...)).Done()
}

// json is a call as a tape holds it: a custom (grammar) tool's as
// {"type": "custom", "custom": {"name", "input"}}, any other's as a
// function's; what Copilot says of its purpose and its MCP server beside.
func (cl call) json() []byte {
	o := rawjson.NewObject().Str("id", cl.id)
	if cl.kind == "custom" {
		o.Str("type", "custom").Raw("custom", rawjson.NewObject().Str("name", cl.name).Str("input", cl.args).Done())
	} else {
		o.Str("type", "function").Raw("function", rawjson.NewObject().Str("name", cl.name).Str("arguments", cl.args).Done())
	}
	return o.StrIf("intention", cl.intention).StrIf("title", cl.title).StrIf("mcp_server", cl.server).StrIf("mcp_tool", cl.mcpTool).Done()
}

// userRequested maps a tool the user ran (tool.user_requested): a call.
func (c *converter) userRequested(in *input) []source.Output {
	id, ok := rawjson.String(in.f.ToolCallID)
	name, ok2 := rawjson.String(in.f.ToolName)
	if !ok || !ok2 {
		return c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)
	}
	return c.one(in, 0, tapelog.KindToolCall, c.requested([]call{{id: id, name: name, args: argsText(in.f.Arguments)}}))
}

// executionStart maps a tool's start. The start of a call that was asked
// for, with the same name and arguments, makes no entry: it says again
// what the call said. A start of a call that nothing asked for is the
// call; one whose name or arguments differ from the request is kept whole.
func (c *converter) executionStart(in *input) []source.Output {
	id, ok := rawjson.String(in.f.ToolCallID)
	name, ok2 := rawjson.String(in.f.ToolName)
	if !ok || !ok2 {
		return c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)
	}
	args := argsText(in.f.Arguments)
	if sum, asked := c.st.Calls[id]; asked {
		delete(c.st.Calls, id)
		if sum == callSum(name, args) {
			return nil
		}
		return c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)
	}
	cl := call{id: id, name: name, args: args}
	return c.one(in, 0, tapelog.KindToolCall, rawjson.NewObject().Raw("calls", rawjson.Array(cl.json())).Done())
}

// executionComplete maps a tool's end: a result of its call, failed when
// success is false or an error is given. The result's content is the
// text sent to the model; the rest of the result (the detailed content
// the timeline shows, structured contents) is kept beside it as "detail",
// with the error and the tool's telemetry.
func (c *converter) executionComplete(in *input) []source.Output {
	id, ok := rawjson.String(in.f.ToolCallID)
	success := string(source.Trim(in.f.Success))
	if !ok || given(in.f.Success) && success != "true" && success != "false" {
		return c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)
	}
	delete(c.st.Calls, id) // one that never started
	r := rawjson.NewObject().Str("tool_call_id", id)
	if res := source.Trim(in.f.Result); given(res) {
		content, detail := splitResult(res)
		r.Raw("content", content)
		if detail != nil {
			r.Raw("detail", detail)
		}
	}
	if success == "false" || given(in.f.Error) {
		r.True("is_error")
	}
	if given(in.f.Error) {
		r.Raw("error", compact(in.f.Error))
	}
	if t := source.Trim(in.f.Telemetry); given(t) && string(t) != "{}" {
		r.Raw("telemetry", compact(t))
	}
	return c.one(in, 0, tapelog.KindToolResult, rawjson.NewObject().Raw("results", rawjson.Array(r.Done())).Done())
}

// splitResult reads a tool's result: an object whose content is a string
// is that string, and the object without it (nil when nothing else is
// there); any other result is its content, as written.
func splitResult(res json.RawMessage) (content, detail []byte) {
	if res[0] != '{' {
		return compact(res), nil
	}
	var text []byte
	rest := []byte{'{'}
	rawjson.ObjectMembers(res, func(key, value []byte) {
		if string(key) == "content" {
			text = value
			return
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		rest = append(append(append(rest, '"'), key...), '"', ':')
		rest = rawjson.AppendCompact(rest, value)
	})
	if len(text) == 0 || text[0] != '"' {
		return compact(res), nil
	}
	if len(rest) == 1 {
		return compact(text), nil
	}
	return compact(text), append(rest, '}')
}
