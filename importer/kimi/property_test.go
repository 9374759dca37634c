package kimi

import (
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on transcripts of records of random shapes, Kimi CLI's and Kimi Code's
// mixed (strings where parts are expected, numbers where strings are,
// parts of unknown kinds, members the mapping does not know, dates that
// are not dates). Seeds: 400 transcripts (40 under -short) of up to 24
// lines; FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// keptIn says where a string at path in a record must be kept
// (docs/IMPORT.md): dates, the metadata line, a prompt's origin, a
// context message's ids and origin and a loop event's ids in the
// entries' dates, metas or anchors; types, roles and Kimi Code's agentId
// nowhere, nor anything of a subagent's event copied into its parent's
// file when the subagent writes its own (a SubagentEvent with an
// agent_id); everything else in a payload.
func keptIn(rec any, path []string) sourcetest.Kept {
	m, _ := rec.(map[string]any)
	typ, code := m["type"].(string)
	last, p := path[len(path)-1], strings.Join(path, "/")
	msg, _ := m["message"].(map[string]any)
	switch {
	case path[0] == "timestamp" || path[0] == "time" || path[0] == "created_at" || typ == "metadata":
		return sourcetest.InEntry
	case code && (path[0] == "type" || path[0] == "agentId"):
		return sourcetest.Nowhere
	case !code && msg != nil && copiedEvent(msg):
		return sourcetest.Nowhere
	case last == "type" || p == "message/role" || p == "summary/role":
		return sourcetest.Nowhere
	case code && (path[0] == "origin" ||
		typ == "context.append_message" && len(path) > 1 && path[0] == "message" && slices.Contains(metaKeys, path[1]) ||
		typ == "context.append_loop_event" && len(path) > 1 && path[0] == "event" && slices.Contains([]string{"uuid", "stepUuid", "turnId", "step", "parentUuid"}, path[1])):
		return sourcetest.InEntry
	}
	return sourcetest.InPayload
}

// copiedEvent reports whether a Kimi CLI message is a SubagentEvent with
// an agent_id: a copy of what the subagent's own file holds.
func copiedEvent(msg map[string]any) bool {
	payload, _ := msg["payload"].(map[string]any)
	agent, _ := payload["agent_id"].(string)
	return msg["type"] == "SubagentEvent" && agent != ""
}

// gen makes Kimi transcripts of records of random shapes.
type gen struct {
	*sourcetest.Gen
	prompt any // the last Kimi Code prompt's input, which a context message may copy
}

func transcript(g *sourcetest.Gen) []string {
	gg := &gen{Gen: g}
	var lines []string
	if g.IntN(3) == 0 {
		lines = append(lines, sourcetest.JSONLine(map[string]any{"type": "metadata", "protocol_version": g.Text(), "created_at": gg.millis()}))
	}
	for range g.IntN(24) {
		var rec map[string]any
		if g.IntN(2) == 0 {
			rec = gg.cliRecord()
		} else {
			rec = gg.codeRecord()
		}
		lines = append(lines, sourcetest.JSONLine(rec))
	}
	return lines
}

// seconds is where Kimi CLI writes time.time(): mostly a number, or
// another value, or nothing.
func (g *gen) seconds() any {
	switch g.IntN(10) {
	case 0:
		return g.Value(1)
	case 1:
		return nil
	}
	return 1766217600 + float64(g.IntN(100000))/8
}

// millis is where Kimi Code writes Date.now().
func (g *gen) millis() any {
	switch g.IntN(10) {
	case 0:
		return g.Value(1)
	case 1:
		return nil
	}
	return 1785722400000 + g.IntN(1000000)
}

// cliRecord is a Kimi CLI record: {"timestamp", "message": {"type",
// "payload"}}.
func (g *gen) cliRecord() map[string]any {
	rec := map[string]any{"message": g.cliMessage(true)}
	if ts := g.seconds(); ts != nil {
		rec["timestamp"] = ts
	}
	if g.IntN(12) == 0 {
		rec[g.Key()] = g.Value(1)
	}
	return rec
}

func (g *gen) cliMessage(top bool) map[string]any {
	var typ string
	var payload any
	switch g.IntN(12) {
	case 0:
		typ, payload = g.Pick("TurnBegin", "SteerInput"), map[string]any{"user_input": g.AnyOf(g.Text(), g.List(g.part))}
	case 1, 2:
		typ, payload = "ContentPart", g.part()
	case 3:
		typ = "ToolCall"
		payload = map[string]any{"type": "function", "id": g.Text(), "function": map[string]any{"name": g.Text(), "arguments": g.AnyOf(g.Text(), nil)}, "extras": g.AnyOf(nil, g.Value(1))}
	case 4:
		typ = "ToolResult"
		payload = map[string]any{"tool_call_id": g.Text(), "return_value": map[string]any{"is_error": g.AnyOf(true, false, g.Str()),
			"output": g.AnyOf(g.Text(), g.List(g.part)), "message": g.Text(), "display": g.AnyOf([]any{}, g.Value(2)), "extras": g.AnyOf(nil, g.Value(1))}}
	case 5:
		typ = "StatusUpdate"
		payload = map[string]any{"context_usage": 0.5, "message_id": g.Text(), "token_usage": map[string]any{
			"input_other": g.AnyOf(g.IntN(5000), g.Str()), "output": g.IntN(300), "input_cache_read": g.IntN(9000), "input_cache_creation": g.IntN(50), "total": g.IntN(20000)}}
	case 6:
		typ, payload = g.Pick("CompactionBegin", "CompactionEnd", "TurnEnd", "StepInterrupted"), g.AnyOf(map[string]any{}, g.Value(1))
	case 7:
		if !top {
			typ, payload = "StepBegin", map[string]any{"n": 1}
			break
		}
		typ = "SubagentEvent"
		if g.IntN(2) == 0 {
			payload = map[string]any{"task_tool_call_id": g.Text(), "event": g.cliMessage(false)}
		} else {
			payload = map[string]any{"parent_tool_call_id": g.Text(), "agent_id": g.Str(), "subagent_type": g.Text(), "event": g.cliMessage(false)}
		}
	case 8:
		typ, payload = g.Str(), g.Value(2)
	case 9:
		typ, payload = g.Pick("ApprovalRequest", "BtwBegin", "PlanDisplay"), map[string]any{"id": g.Text(), "description": g.Text()}
	default:
		typ, payload = g.Pick("TurnBegin", "ToolCall", "ToolResult", "StatusUpdate"), g.Value(2)
	}
	msg := map[string]any{"type": typ, "payload": payload}
	if g.IntN(15) == 0 {
		msg[g.Key()] = g.Value(1)
	}
	return msg
}

// part is a content part, mostly of a shape kosong writes.
func (g *gen) part() any {
	switch g.IntN(8) {
	case 0, 1, 2:
		return map[string]any{"type": "text", "text": g.Text()}
	case 3:
		return map[string]any{"type": "think", "think": g.Text(), "encrypted": g.AnyOf(nil, g.Text())}
	case 4:
		key := g.Pick("image_url", "imageUrl")
		return map[string]any{"type": "image_url", key: map[string]any{"url": g.Text(), "id": g.AnyOf(nil, g.Text())}}
	case 5:
		return map[string]any{"type": g.Pick("audio_url", "video_url"), "audio_url": map[string]any{"url": g.Text()}}
	case 6:
		return map[string]any{"type": "text", "text": g.Text(), g.Key(): g.Value(1)}
	}
	return g.Value(2)
}

// codeRecord is a Kimi Code record: {"type", ..., "agentId", "time"}.
func (g *gen) codeRecord() map[string]any {
	rec := map[string]any{"agentId": g.AnyOf("main", "main", g.Value(1))}
	if t := g.millis(); t != nil {
		rec["time"] = t
	}
	switch g.IntN(12) {
	case 0, 1:
		rec["type"] = g.Pick("turn.prompt", "turn.steer")
		g.prompt = g.List(g.part)
		rec["input"], rec["origin"] = g.prompt, g.AnyOf("user", map[string]any{"kind": g.Pick("user", "task")}, g.Text())
	case 2:
		rec["type"] = "context.append_message"
		content := g.AnyOf(g.List(g.part), g.prompt, g.Text())
		rec["message"] = map[string]any{"role": g.Pick("user", "assistant", "system", "tool", g.Str()), "content": content,
			"toolCalls": g.List(g.call), "toolCallId": g.AnyOf(nil, g.Text()), "origin": g.AnyOf(nil, "injection", g.Text()), "id": g.AnyOf(nil, g.Text()), "note": g.AnyOf(nil, g.Text())}
	case 3, 4, 5:
		rec["type"] = "context.append_loop_event"
		rec["event"] = g.loopEvent()
	case 6:
		rec["type"] = "usage.record"
		rec["model"], rec["usageScope"] = g.Text(), g.AnyOf("turn", "turn", "session", nil, g.Str())
		rec["usage"] = map[string]any{"inputOther": g.AnyOf(g.IntN(5000), g.Str()), "output": g.IntN(300), "inputCacheRead": g.IntN(9000), "inputCacheCreation": g.IntN(20)}
	case 7:
		rec["type"] = "context.apply_compaction"
		rec["summary"] = g.AnyOf(g.Text(), map[string]any{"role": "user", "content": g.List(g.part)})
		rec["compactedCount"] = g.IntN(20)
	case 8:
		rec["type"] = g.Pick("config.update", "profile.bind")
		rec["environmentDisclosure"], rec["systemPrompt"] = map[string]any{"cwd": g.Text()}, g.Text()
	case 9:
		rec["type"] = g.Pick("context.clear", "context.undo", "turn.ended", "llm.request", g.Str())
		rec[g.Key()] = g.Value(2)
	case 10:
		rec["type"] = g.Value(1)
		rec[g.Key()] = g.Value(2)
	default:
		rec["type"] = g.Pick("turn.prompt", "context.append_message", "context.append_loop_event", "usage.record")
		rec[g.Pick("input", "message", "event", "usage")] = g.Value(2)
	}
	return rec
}

func (g *gen) call() any {
	if g.IntN(2) == 0 {
		return map[string]any{"type": "function", "id": g.Text(), "function": map[string]any{"name": g.Text(), "arguments": g.Text()}}
	}
	return map[string]any{"type": "function", "id": g.Text(), "name": g.Text(), "arguments": g.AnyOf(g.Text(), nil), "extras": g.AnyOf(nil, g.Value(1))}
}

func (g *gen) loopEvent() map[string]any {
	ids := map[string]any{"uuid": g.Text(), "stepUuid": g.Text(), "turnId": g.Text(), "step": g.IntN(9)}
	with := func(m map[string]any) map[string]any {
		for k, v := range ids {
			if g.IntN(2) == 0 {
				m[k] = v
			}
		}
		return m
	}
	switch g.IntN(6) {
	case 0, 1:
		return with(map[string]any{"type": "content.part", "part": g.part()})
	case 2:
		return with(map[string]any{"type": "tool.call", "toolCallId": g.Text(), "name": g.Text(), "args": g.Value(2), "extras": g.AnyOf(nil, g.Value(1))})
	case 3:
		return map[string]any{"type": "tool.result", "toolCallId": g.Text(), "parentUuid": g.Text(),
			"result": map[string]any{"output": g.AnyOf(g.Text(), g.List(g.part)), "isError": g.AnyOf(true, false, g.Str()), "note": g.AnyOf(nil, g.Text())}}
	case 4:
		return with(map[string]any{"type": g.Pick("step.begin", "step.end"), "finishReason": g.Text(), "usage": g.Value(1)})
	}
	return map[string]any{"type": g.Text(), g.Key(): g.Value(2)}
}
