package codex

import (
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on rollouts of records of random shapes (strings where lists are
// expected, numbers where strings are, nested objects, missing fields,
// dates that are not dates). Seeds: 400 rollouts (40 under -short) of up to 25 lines
// (under a second); FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// keptIn says where a string at path in a record must be kept: a
// timestamp in the entries' dates or metas; types and roles (kinds and
// names say them), the status of a call that is not a web search, and the
// kind of client that started a session nowhere; everything else in a
// payload (docs/IMPORT.md).
func keptIn(rec any, path []string) sourcetest.Kept {
	p := strings.Join(path, "/")
	m, _ := rec.(map[string]any)
	structural := false
	switch {
	case path[0] == "timestamp":
		return sourcetest.InEntry
	case p == "payload/status": // a call's: kept of a web search only, as its result
		payload, _ := m["payload"].(map[string]any)
		structural = payload["type"] != "web_search_call"
	case p == "payload/source": // a session_meta's kind of client
		structural = m["type"] == "session_meta"
	default:
		structural = slices.Contains([]string{"type", "payload/type", "payload/role", "payload/content/[]/type", "payload/summary/[]/type"}, p)
	}
	if structural {
		return sourcetest.Nowhere
	}
	return sourcetest.InPayload
}

// gen makes Codex rollouts of records of random shapes.
type gen struct{ *sourcetest.Gen }

func transcript(g *sourcetest.Gen) []string { return gen{g}.transcript() }

func (g gen) transcript() []string {
	head := map[string]any{"id": "019a3000-0000-7000-8000-00000000beef", "cwd": g.Text(), "source": g.Pick("cli", "exec")}
	if g.IntN(2) == 0 {
		head["instructions"] = g.Text()
	}
	switch g.IntN(3) {
	case 0:
		head["git"] = map[string]any{"branch": g.Text(), "commit_hash": g.Text(), "repository_url": g.Text()}
	case 1: // of another shape (keys Codex does not write are not kept)
		head["git"] = g.AnyOf(g.Str(), g.IntN(9), []any{g.Str()}, map[string]any{"branch": []any{g.Str()}})
	}
	if g.IntN(4) == 0 {
		head["source"] = map[string]any{"subagent": map[string]any{"thread_spawn": map[string]any{"parent_thread_id": g.Text()}}}
	}
	lines := []string{sourcetest.JSONLine(map[string]any{"timestamp": "2025-10-30T09:00:00.000Z", "type": "session_meta", "payload": head})}
	for range g.IntN(24) {
		typ, payload := g.payload()
		rec := map[string]any{"type": typ, "payload": payload}
		if g.IntN(8) != 0 {
			rec["timestamp"] = g.Date()
		}
		lines = append(lines, sourcetest.JSONLine(rec))
	}
	return lines
}

// payload is a line's type and payload.
func (g gen) payload() (string, any) {
	item := func(m map[string]any) (string, any) { return "response_item", m }
	event := func(m map[string]any) (string, any) { return "event_msg", m }
	switch g.IntN(16) {
	case 0, 1, 2:
		return item(map[string]any{"type": "message", "role": g.Pick("user", "assistant", "developer", "system"), "content": g.List(g.part)})
	case 3:
		return item(map[string]any{"type": "message", "role": g.Pick("user", "assistant"), "content": g.Str()})
	case 4, 5:
		p := map[string]any{"type": "reasoning", "summary": g.List(g.part)}
		if g.IntN(2) == 0 {
			p["content"] = g.List(g.part)
		}
		if g.IntN(2) == 0 {
			p["encrypted_content"] = g.Text()
		}
		return item(p)
	case 6:
		return item(map[string]any{"type": "function_call", "name": g.Text(), "arguments": g.Text(), "call_id": g.Text()})
	case 7:
		switch g.IntN(3) {
		case 0:
			return item(map[string]any{"type": "custom_tool_call", "name": g.Text(), "input": g.Text(), "call_id": g.Text(), "status": g.Text()})
		case 1:
			return item(map[string]any{"type": "local_shell_call", "call_id": g.Text(), "status": g.Text(), "action": g.Value(2)})
		}
		return item(map[string]any{"type": "web_search_call", "status": g.Text(), "action": g.Value(2)})
	case 8:
		return item(map[string]any{"type": g.Pick("function_call_output", "custom_tool_call_output"), "call_id": g.Text(), "output": g.Value(2)})
	case 9:
		return event(map[string]any{"type": g.Pick("user_message", "agent_message"), "message": g.Text()})
	case 10:
		return event(map[string]any{"type": "agent_reasoning", "text": g.Text()})
	case 11:
		return "compacted", map[string]any{"message": g.Text()}
	case 12:
		return "turn_context", map[string]any{"cwd": g.Text(), "model": g.Text(), "approval_policy": g.Value(1)}
	case 13:
		return event(map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": map[string]any{"input_tokens": g.IntN(1000), "output_tokens": g.IntN(1000)}}})
	case 14:
		return g.Pick("response_item", "event_msg", "a_later_line"), g.Value(2)
	}
	m := map[string]any{"type": g.Str()}
	for range g.IntN(3) {
		m[g.Key()] = g.Value(2)
	}
	return g.Pick("response_item", "event_msg"), m
}

func (g gen) part() any {
	switch g.IntN(6) {
	case 0:
		return map[string]any{"type": "input_image", "image_url": g.Text()}
	case 1:
		return map[string]any{"type": "refusal", "refusal": g.Text()}
	}
	return map[string]any{"type": g.Pick("input_text", "output_text", "summary_text"), "text": g.Text()}
}
