package goose

import (
	"slices"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on mirror files and session files of lines of random shapes: blocks
// and tables of unknown kinds, strings where objects are expected,
// members Goose does not write. FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// keptIn says where a string at path in a line must be kept
// (docs/IMPORT.md): a row's table, a message's ids, session id and role
// nowhere (they are the entries' ids and the messages' roles), nor a
// block's type or a tool call's or result's status; what else a message's
// record holds (its metadata, Goose's timestamp column, a column tape
// does not know) in the meta of its first entry; everything else in a
// payload.
func keptIn(rec any, path []string) sourcetest.Kept {
	m, _ := rec.(map[string]any)
	table, isRow := m["table"].(string)
	_, hasTable := m["table"]
	message := table == "messages" || !hasTable && m["role"] != nil && m["content"] != nil
	content := "content"
	if hasTable {
		content = "content_json"
	}
	switch {
	case path[0] == "table":
		return sourcetest.Nowhere
	case message && slices.Contains([]string{"id", "message_id", "session_id", "role", "created", "created_timestamp"}, path[0]):
		return sourcetest.Nowhere
	case message && path[0] == content:
		if len(path) == 3 && path[2] == "type" || len(path) == 4 && (path[3] == "status") {
			return sourcetest.Nowhere
		}
		return sourcetest.InPayload
	case message:
		return sourcetest.InEntry // in the meta of the message's first entry
	case isRow && table == "sessions" && path[0] == "created_at":
		return sourcetest.InPayload
	}
	return sourcetest.InPayload
}

// transcript is a mirror file, or a session file of Goose before its
// database, of lines of random shapes.
func transcript(g *sourcetest.Gen) []string {
	var lines []string
	legacy := g.IntN(3) == 0
	if g.IntN(5) != 0 {
		if legacy {
			lines = append(lines, sourcetest.JSONLine(map[string]any{"working_dir": g.Text(), "description": g.Text(), "message_count": g.IntN(9),
				"accumulated_input_tokens": g.IntN(900), g.Key(): g.Value(2)}))
		} else {
			lines = append(lines, sourcetest.JSONLine(sessionRow(g)))
		}
	}
	for i := range g.IntN(20) {
		switch {
		case legacy:
			lines = append(lines, sourcetest.JSONLine(legacyLine(g, i)))
		default:
			lines = append(lines, sourcetest.JSONLine(mirrorRow(g, i)))
		}
	}
	return lines
}

func sessionRow(g *sourcetest.Gen) map[string]any {
	return map[string]any{"table": "sessions", "id": "20251128_1", "name": g.Text(), "description": g.Text(), "working_dir": g.Text(),
		"created_at": g.AnyOf("2025-11-28 10:00:00", g.IntN(1<<31), g.Date(), nil), "updated_at": g.Date(),
		"model_config_json": g.AnyOf(map[string]any{"model_name": g.Text(), "context_limit": 5}, g.Str(), nil),
		"provider_name":     g.Text(), "accumulated_input_tokens": g.AnyOf(g.IntN(5000), g.Str()), "output_tokens": g.IntN(300),
		"extension_data": g.Value(2), "parent_session_id": g.AnyOf(nil, g.Text()), "db": g.Text()}
}

// mirrorRow is the i-th row of a mirror file, mostly of Goose's shapes.
func mirrorRow(g *sourcetest.Gen, i int) map[string]any {
	switch g.IntN(8) {
	case 0:
		return map[string]any{"table": "usage_ledger", "id": i, "session_id": "20251128_1", "model": g.Text(), "input_tokens": g.IntN(99), "cost_source": g.Text()}
	case 1:
		return sessionRow(g)
	case 2:
		return map[string]any{"table": g.Str(), g.Key(): g.Value(2)}
	}
	r := map[string]any{"table": "messages", "id": i, "message_id": g.AnyOf(g.Str(), nil), "session_id": "20251128_1", "role": g.Pick("user", "assistant", g.Str()),
		"content_json": g.AnyOf(blocks(g), blocks(g), g.Str()), "created_timestamp": g.AnyOf(1764300000+i, g.Str()),
		"timestamp": g.Text(), "metadata_json": metadata(g)}
	if g.IntN(6) == 0 {
		r[g.Key()] = g.Value(2)
	}
	return r
}

// legacyLine is the i-th message line of a session file.
func legacyLine(g *sourcetest.Gen, i int) map[string]any {
	r := map[string]any{"role": g.Pick("user", "assistant"), "created": 1740824100 + i, "content": g.AnyOf(blocks(g), blocks(g), g.Str())}
	if g.IntN(2) == 0 {
		r["id"], r["metadata"] = g.Str(), metadata(g)
	}
	if g.IntN(6) == 0 {
		r[g.Key()] = g.Value(2)
	}
	return r
}

func metadata(g *sourcetest.Gen) any {
	return g.AnyOf(map[string]any{"userVisible": g.AnyOf(true, false), "agentVisible": g.AnyOf(true, false),
		"inference": map[string]any{"provider": g.Text(), "requestedModel": g.Text()}}, nil)
}

// blocks is a message's content: a list of blocks, mostly of Goose's
// types.
func blocks(g *sourcetest.Gen) []any {
	var out []any
	for range g.IntN(4) {
		out = append(out, block(g))
	}
	return out
}

func block(g *sourcetest.Gen) any {
	switch g.IntN(10) {
	case 0, 1:
		b := map[string]any{"type": "text", "text": g.AnyOf(g.Text(), "Your context was compacted. "+g.Str())}
		if g.IntN(3) == 0 {
			b["annotations"] = g.Value(2)
		}
		return b
	case 2:
		return map[string]any{"type": g.Pick("thinking", "reasoning"), "thinking": g.Text(), "text": g.Text(), "signature": g.Text()}
	case 3:
		call := g.AnyOf(map[string]any{"status": "success", "value": map[string]any{"name": g.Text(), "arguments": g.Value(2), g.Key(): g.Value(1)}},
			map[string]any{"status": "error", "error": g.Text()}, g.Str())
		return map[string]any{"type": g.Pick("toolRequest", "frontendToolRequest"), "id": g.Text(), "toolCall": call, "toolMeta": g.Value(2)}
	case 4:
		res := g.AnyOf(map[string]any{"status": "success", "value": map[string]any{"content": g.Value(2), "isError": g.AnyOf(true, false), "structuredContent": g.Value(2)}},
			map[string]any{"status": "success", "value": []any{map[string]any{"type": "text", "text": g.Text()}}},
			map[string]any{"status": "error", "error": g.Text()}, map[string]any{"status": g.Str()}, g.Str())
		return map[string]any{"type": "toolResponse", "id": g.Text(), "toolResult": res}
	case 5:
		return map[string]any{"type": g.Pick("image", "redactedThinking", "systemNotification", "actionRequired", "conversationCompacted"),
			"data": g.Value(2), "msg": g.Text(), "mimeType": g.Text()}
	case 6:
		return map[string]any{"type": g.Str(), g.Key(): g.Value(2)}
	}
	return g.Value(2)
}
