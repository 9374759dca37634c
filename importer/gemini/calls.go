package gemini

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// toolCall is a ToolCallRecord: a call the model made, and, once it is
// done, its result and status ("success", "error", "cancelled"; a call
// still running or awaiting approval has none of these, and no result).
type toolCall struct {
	id, name, status                 string
	okID, okName, okStatus           bool
	args, result, timestamp, agentID []byte
}

func readCall(raw []byte) toolCall {
	tc := toolCall{okStatus: true}
	if !isObject(raw) {
		return tc
	}
	for _, f := range fields(raw) {
		switch f.key {
		case "id":
			tc.id, tc.okID = stringOf(f.value)
		case "name":
			tc.name, tc.okName = stringOf(f.value)
		case "status":
			tc.status, tc.okStatus = stringOf(f.value)
			tc.okStatus = tc.okStatus || absent(f.value)
		case "args":
			tc.args = f.value
		case "result":
			tc.result = f.value
		case "timestamp":
			tc.timestamp = f.value
		case "agentId":
			tc.agentID = f.value
		}
	}
	return tc
}

// calls maps a message's toolCalls: each call a tool_call entry at the
// message's date, and its result, once it has one, a tool_result entry
// at the call's timestamp (Gemini CLI records a call when it is done).
// A list, or a call, of another shape is kept as an event.
func (c *converter) calls(in input, mid string, l *last) []source.Output {
	raw := source.Trim(in.rec.ToolCalls)
	if absent(raw) {
		return nil
	}
	list, ok := items(raw)
	if !ok {
		return []source.Output{c.event(in, hashID(mid+"/toolCalls", raw), c.d.name+"/toolCalls", raw)}
	}
	var out []source.Output
	for _, item := range list {
		tc := readCall(item)
		id := tc.id
		if !tc.okID || id == "" || !tc.okName || !tc.okStatus {
			out = append(out, c.event(in, hashID(mid+"/toolCall", item), c.d.name+"/toolCall", item))
			continue
		}
		if l.Calls == nil {
			l.Calls = map[string]byte{}
		}
		if l.Calls[id]&callMade == 0 {
			l.Calls[id] |= callMade
			args := compact(source.Trim(tc.args))
			call := rawjson.NewObject().Raw("function", rawjson.NewObject().Str("arguments", string(args)).Str("name", tc.name).Done()).
				Str("id", id).Str("type", "function").Done()
			payload := rawjson.NewObject().Raw("calls", rawjson.Array(call)).Done()
			out = append(out, source.Output{Session: c.st.Session, Entry: c.entry(in, mid+"/call/"+id, tapelog.KindToolCall, payload)})
		}
		done := tc.status == "success" || tc.status == "error" || tc.status == "cancelled"
		if l.Calls[id]&resultMade != 0 || !done && absent(tc.result) {
			continue
		}
		l.Calls[id] |= resultMade
		r, response := callResult(tc)
		if response != nil {
			if l.Results == nil {
				l.Results = map[string]uint64{}
			}
			l.Results[id] = sum(response)
		}
		payload := rawjson.NewObject().Raw("results", rawjson.Array(r)).Done()
		date := in.date
		if d, bad := source.RecordDate(tc.timestamp, ""); bad == "" && d != "" {
			date = d
		}
		out = append(out, source.Output{Session: c.st.Session, Entry: c.entryAt(in, mid+"/result/"+id, tapelog.KindToolResult, payload, date)})
	}
	return out
}

// callResult is a call's result: its content the functionResponse's
// response when the result is that one part ({"output": ...} or {"error":
// ...}), else the result as written; failed when the call's status is
// error or cancelled, which it keeps. response is the functionResponse's
// response, compact, when it is the content.
func callResult(tc toolCall) (r []byte, response []byte) {
	var content []byte
	if parts, ok := readParts(tc.result); ok && len(parts) == 1 && parts[0].fr != nil && parts[0].fr.id == tc.id {
		response = parts[0].fr.response
		content = response
	} else {
		content = compact(source.Trim(tc.result))
	}
	o := rawjson.NewObject()
	if a, ok := stringOf(tc.agentID); ok && a != "" {
		o.Str("agent_id", a)
	}
	o.Raw("content", content)
	if tc.status == "error" || tc.status == "cancelled" {
		o.True("is_error")
	}
	if tc.status != "success" && tc.status != "" {
		o.Str("status", tc.status)
	}
	return o.Str("tool_call_id", tc.id).Done(), response
}
