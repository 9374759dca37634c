package crush

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on mirror files of rows of random shapes: parts and tables of unknown
// kinds, strings where objects are expected, columns Crush does not
// write. FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// keptIn says where a string at path in a row must be kept
// (docs/IMPORT.md): the table nowhere; a message's role and a part's type
// and finish reason nowhere (the structure of its entries); a message's
// or a file's ids, and a message's model and provider, in the entry (its
// meta); everything else in a payload.
func keptIn(rec any, path []string) sourcetest.Kept {
	m, _ := rec.(map[string]any)
	table, _ := m["table"].(string)
	_, known := map[string]bool{"sessions": true, "messages": true, "files": true}[table]
	switch {
	case path[0] == "table" && known:
		return sourcetest.Nowhere
	case table == "messages" && path[0] == "role":
		return sourcetest.Nowhere
	case table == "messages" && len(path) == 3 && path[0] == "parts" && path[2] == "type":
		return sourcetest.Nowhere
	case table == "messages" && len(path) == 4 && path[0] == "parts" && path[2] == "data" && path[3] == "reason":
		return sourcetest.Nowhere
	case (table == "messages" || table == "files") && slices.Contains([]string{"id", "session_id", "model", "provider"}, path[0]) && len(path) == 1:
		return sourcetest.InEntry
	}
	return sourcetest.InPayload
}

// transcript is a mirror file of rows of random shapes.
func transcript(g *sourcetest.Gen) []string {
	var lines []string
	if g.IntN(5) != 0 {
		lines = append(lines, sourcetest.JSONLine(sessionRow(g)))
	}
	for i := range g.IntN(24) {
		lines = append(lines, sourcetest.JSONLine(genRow(g, i)))
	}
	return lines
}

func sessionRow(g *sourcetest.Gen) map[string]any {
	return map[string]any{"table": "sessions", "id": "s1", "title": g.Text(), "parent_session_id": g.AnyOf(nil, g.Text()),
		"prompt_tokens": g.AnyOf(g.IntN(90000), g.Str()), "completion_tokens": g.IntN(900), "cost": g.AnyOf(0.25, 0, g.Str()),
		"summary_message_id": g.AnyOf(nil, "r0000001", g.Text()), "todos": g.Value(2), "created_at": g.IntN(1 << 31), "updated_at": g.AnyOf(g.IntN(1<<31), g.Str()),
		"db": g.Text(), "project": g.Text(), "last_model": g.Text(), "last_provider": g.Text()}
}

// genRow is the i-th row of a mirror file, mostly of Crush's shapes.
func genRow(g *sourcetest.Gen, i int) map[string]any {
	r := map[string]any{"id": fmt.Sprintf("r%07d", i), "session_id": g.AnyOf("s1", g.Text()), "created_at": g.AnyOf(g.IntN(1<<31), g.Str()), "updated_at": g.IntN(1 << 31)}
	switch g.IntN(10) {
	case 0:
		for k, v := range sessionRow(g) {
			r[k] = v
		}
	case 1:
		r["table"], r["path"], r["content"], r["version"] = "files", g.Text(), g.Text(), g.AnyOf(g.IntN(5), g.Str())
	case 2:
		r["table"] = g.Str()
		r[g.Key()] = g.Value(2)
	default:
		r["table"], r["role"] = "messages", g.Pick("user", "assistant", "tool", g.Str())
		r["model"], r["provider"], r["finished_at"] = g.AnyOf("", g.Text()), g.AnyOf(nil, g.Text()), g.AnyOf(nil, g.IntN(1<<31), g.Str())
		r["is_summary_message"] = g.AnyOf(0, 1, g.Str())
		r["parts"] = g.AnyOf(g.List(func() any { return part(g) }), g.Str(), g.Value(1))
	}
	if g.IntN(6) == 0 {
		r[g.Key()] = g.Value(2)
	}
	return r
}

// part is a message's part, mostly of a type Crush writes.
func part(g *sourcetest.Gen) any {
	var typ string
	var d map[string]any
	switch g.IntN(9) {
	case 0, 1:
		typ, d = "text", map[string]any{"text": g.Text()}
	case 2:
		typ, d = "reasoning", map[string]any{"thinking": g.Text(), "signature": g.Text(), "thought_signature": "", "responses_data": nil, "started_at": g.IntN(9)}
	case 3:
		typ, d = "tool_call", map[string]any{"id": g.Text(), "name": g.Text(), "input": g.AnyOf(g.Str(), `{"command":"ls"}`, g.Value(1)), "provider_executed": g.AnyOf(true, false), "finished": g.AnyOf(true, false, g.Str())}
	case 4:
		typ, d = "tool_result", map[string]any{"tool_call_id": g.Text(), "name": g.Text(), "content": g.Text(), "data": g.AnyOf("", g.Str()), "mime_type": g.Text(), "metadata": g.Text(), "is_error": g.AnyOf(true, false, g.Str())}
	case 5:
		typ, d = "finish", map[string]any{"reason": g.Pick("stop", "end_turn", "error", "canceled", g.Str()), "time": g.AnyOf(0, g.IntN(1<<31), g.Str()), "message": g.Text(), "details": g.Text()}
	case 6:
		typ, d = "shell_command", map[string]any{"command": g.Text(), "output": g.Text(), "exit_code": g.AnyOf(0, 2, g.Str())}
	case 7:
		typ, d = g.Pick("image_url", "binary", g.Str()), map[string]any{"url": g.Text(), "Path": g.Text(), "Data": g.Str()}
	default:
		return g.AnyOf(g.Str(), g.Value(2), map[string]any{"type": g.Str(), "data": g.Value(2)})
	}
	p := map[string]any{"type": typ, "data": g.AnyOf(d, d, d, g.Str())}
	if g.IntN(8) == 0 {
		p[g.Key()] = g.Value(1)
	}
	return p
}
