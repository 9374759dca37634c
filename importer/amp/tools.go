package amp

import (
	"encoding/json"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// calls are the tool calls of an assistant's message: its tool_use
// blocks ({"type": "tool_use", "id", "name", "input", "complete"}), which
// make one tool_call entry at the place of the first.
type calls struct {
	first int // the index of the first block that is a call; -1 for none
	has   map[int]bool
	list  [][]byte
}

func (c calls) payload() json.RawMessage {
	return rawjson.NewObject().Raw("calls", rawjson.Array(c.list...)).Done()
}

// calls reads the message's tool calls: each {"id", "type": "function",
// "function": {"name", "arguments": its input as JSON text}}, and the
// block's other members (inputPartialJSON, an incomplete call's
// inputIncomplete...) under "amp". A tool_use without a string id and name
// is kept as a block.
func (m *mapping) calls(g *msg) calls {
	c := calls{first: -1, has: map[int]bool{}}
	for i, b := range g.blocks {
		t, ms := blockType(b)
		if t != "tool_use" {
			continue
		}
		id, ok1 := nonEmpty(lookup(ms, "id"))
		name, ok2 := str(lookup(ms, "name"))
		if !ok1 || !ok2 {
			continue
		}
		args := "{}"
		if in := source.Trim(lookup(ms, "input")); len(in) > 0 {
			args = string(compact(in))
		}
		fn := rawjson.NewObject().Str("name", name).Str("arguments", args).Done()
		call := rawjson.NewObject().Str("id", id).Str("type", "function").Raw("function", fn)
		extra := source.MembersObject(ms, func(k string) bool {
			return k == "type" || k == "id" || k == "name" || k == "input" || k == "complete"
		})
		if string(extra) != "{}" {
			call.Raw("amp", extra)
		}
		if c.first < 0 {
			c.first = i
		}
		c.has[i] = true
		c.list = append(c.list, call.Done())
	}
	return c
}

// ended are the statuses of a tool run that has ended; Amp writes a run
// as it goes: queued, in-progress, blocked-on-user (waiting for the user
// to allow it).
var ended = map[string]bool{"done": true, "error": true, "cancelled": true, "rejected-by-user": true}

// result maps a tool_result block of a user's message ({"type":
// "tool_result", "toolUseID", "run": {"status", "result", "error", ...},
// "userInput"}): a run that has ended is a tool_result entry, failed
// unless it is done; one that has not is an event amp/tool_run, and its
// call waits for the result a later version of the thread holds. ok is
// false for a block of another shape.
func (m *mapping) result(g *msg, i int, ms []rawjson.Member) bool {
	callID, ok := nonEmpty(lookup(ms, "toolUseID"))
	run := source.ObjectOf(lookup(ms, "run"))
	status, ok2 := str(lookup(run, "status"))
	if !ok || !ok2 {
		return false
	}
	for _, mb := range ms {
		if k := string(mb.Key); k != "type" && k != "toolUseID" && k != "run" && k != "userInput" {
			return false
		}
	}
	if !ended[status] {
		m.event(m.tid+"/"+g.key+"/run/"+callID+"/"+status, "amp/tool_run", source.MembersObject(ms, nil))
		return true
	}
	content, used := []byte(nil), ""
	for _, k := range []string{"result", "error", "reason"} {
		if v := source.Trim(lookup(run, k)); !absent(v) {
			content, used = v, k
			break
		}
	}
	other := source.MembersObject(run, func(k string) bool { return k == "status" || k == used })
	input := source.Trim(lookup(ms, "userInput"))
	// Written in one buffer of its size: a tool's output is most of a
	// thread, and each copy of it counts.
	b := make([]byte, 0, len(content)+len(callID)+len(other)+len(input)+80)
	b = rawjson.AppendString(append(b, `{"results":[{"tool_call_id":`...), callID)
	b = rawjson.AppendCompact(append(b, `,"content":`...), content)
	if status != "done" {
		b = rawjson.AppendString(append(b, `,"is_error":true,"status":`...), status)
	}
	if string(other) != "{}" {
		b = append(append(b, `,"run":`...), other...)
	}
	if len(input) > 0 {
		b = rawjson.AppendCompact(append(b, `,"user_input":`...), input)
	}
	b = append(b, "}]}"...)
	m.emit(tapelog.Entry{ID: m.tid + "/" + g.key + "/result/" + callID, Kind: tapelog.KindToolResult, Payload: b}, false, nil)
	return true
}
