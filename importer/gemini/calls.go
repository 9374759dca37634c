package gemini

import (
	"encoding/json"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// toolCall is a ToolCallRecord: a call the model made, and, once it is
// done, its result and status ("success", "error", "cancelled"; a call
// still running or awaiting approval has none of these, and no result).
type toolCall struct {
	ID        json.RawMessage `json:"id"`
	Name      json.RawMessage `json:"name"`
	Args      json.RawMessage `json:"args"`
	Result    json.RawMessage `json:"result"`
	Status    json.RawMessage `json:"status"`
	Timestamp json.RawMessage `json:"timestamp"`
	AgentID   json.RawMessage `json:"agentId"`
}

// calls maps a message's toolCalls: each call a tool_call entry at the
// message's date, and its result, once it has one, a tool_result entry
// at the call's timestamp (Gemini CLI records a call when it is done).
// A list, or a call, of another shape is kept as an event.
func (c *converter) calls(in input, mid string, l *last) []source.Output {
	raw := source.Trim(in.rec.ToolCalls)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	items, ok := list(raw)
	if !ok {
		return []source.Output{c.event(in, hashID(mid+"/toolCalls", raw), "gemini/toolCalls", raw)}
	}
	var out []source.Output
	for _, item := range items {
		var tc toolCall
		if !source.IsObject(item) || json.Unmarshal(item, &tc) != nil {
			tc = toolCall{}
		}
		id, okID := stringOf(tc.ID)
		name, okName := stringOf(tc.Name)
		status, okStatus := stringOf(tc.Status)
		if st := source.Trim(tc.Status); len(st) == 0 || string(st) == "null" {
			okStatus = true
		}
		if !okID || id == "" || !okName || !okStatus {
			out = append(out, c.event(in, hashID(mid+"/toolCall", item), "gemini/toolCall", item))
			continue
		}
		if l.Calls == nil {
			l.Calls = map[string]byte{}
		}
		if l.Calls[id]&callMade == 0 {
			l.Calls[id] |= callMade
			args := string(rawjson.AppendCompact(nil, source.OrNull(source.Trim(tc.Args))))
			payload := source.MustJSON(map[string]any{"calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}}})
			out = append(out, source.Output{Session: c.st.Session, Entry: c.entry(in, mid+"/call/"+id, tapelog.KindToolCall, payload)})
		}
		done := status == "success" || status == "error" || status == "cancelled"
		result := source.Trim(tc.Result)
		if l.Calls[id]&resultMade != 0 || !done && (len(result) == 0 || string(result) == "null") {
			continue
		}
		l.Calls[id] |= resultMade
		r, response := callResult(id, status, result, tc.AgentID)
		if response != nil {
			if l.Results == nil {
				l.Results = map[string]uint64{}
			}
			l.Results[id] = sum(response)
		}
		payload := source.MustJSON(map[string]any{"results": []any{r}})
		date := in.date
		if d, bad := source.RecordDate(tc.Timestamp, ""); bad == "" && d != "" {
			date = d
		}
		out = append(out, source.Output{Session: c.st.Session, Entry: c.entryAt(in, mid+"/result/"+id, tapelog.KindToolResult, payload, date)})
	}
	return out
}

// callResult is a call's result: its content the functionResponse's
// response when the result is that one part ({"output": ...} or {"error":
// ...}), else the result as written; failed when the call's status is
// error or cancelled, which it keeps.
//
// response is the functionResponse's response, compact, when it is the
// content.
func callResult(id, status string, result json.RawMessage, agentID json.RawMessage) (r map[string]any, response []byte) {
	r = map[string]any{"tool_call_id": id, "content": json.RawMessage(rawjson.AppendCompact(nil, source.OrNull(result)))}
	if parts, ok := readParts(result); ok && len(parts) == 1 && parts[0].fr != nil && parts[0].fr.id == id {
		response = parts[0].fr.response
		r["content"] = source.OrNull(response)
	}
	if status == "error" || status == "cancelled" {
		r["is_error"] = true
	}
	if status != "success" && status != "" {
		r["status"] = status
	}
	if a, ok := stringOf(agentID); ok && a != "" {
		r["agent_id"] = a
	}
	return r, response
}
