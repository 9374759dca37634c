package qwen

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on transcripts of records of random shapes (strings where parts are
// expected, numbers where strings are, parts of unknown kinds, missing
// fields, dates that are not dates). Seeds: 400 transcripts (40 under
// -short) of up to 24 lines; FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// conversationTypes are the record types whose messages are mapped;
// their members other than those docs/IMPORT.md says are kept are not.
var conversationTypes = []string{"user", "assistant", "tool_result"}

// keptIn says where a string at path in a record must be kept
// (docs/IMPORT.md): a timestamp, a working directory and a branch in
// the entries' dates or metas, as a conversation record's systemPayload;
// ids, types, roles, versions and signatures nowhere; of a user,
// assistant or tool_result record, its model, usage and toolCallResult
// nowhere; of a compaction, the turns of its compressed history after the
// first (the turns kept, copies of records the tape holds) nowhere;
// everything else in a payload.
func keptIn(rec any, path []string) sourcetest.Kept {
	m, _ := rec.(map[string]any)
	typ, _ := m["type"].(string)
	p := strings.Join(path, "/")
	conversation := slices.Contains(conversationTypes, typ)
	switch {
	case slices.Contains([]string{"timestamp", "cwd", "gitBranch"}, path[0]):
		return sourcetest.InEntry
	case slices.Contains([]string{"uuid", "parentUuid", "sessionId", "type", "subtype", "version", "provenance", "isSidechain"}, path[0]),
		strings.HasPrefix(p, "message/role"), path[len(path)-1] == "thoughtSignature":
		return sourcetest.Nowhere
	case conversation && slices.Contains([]string{"model", "usageMetadata", "toolCallResult"}, path[0]):
		return sourcetest.Nowhere
	case conversation && path[0] == "systemPayload":
		return sourcetest.InEntry
	case typ == "system" && m["subtype"] == "chat_compression" && strings.HasPrefix(p, "systemPayload/compressedHistory/"):
		payload, _ := m["systemPayload"].(map[string]any)
		if hist, _ := payload["compressedHistory"].([]any); len(hist) != 1 || strings.HasSuffix(p, "/role") {
			return sourcetest.Nowhere
		}
	}
	return sourcetest.InPayload
}

// gen makes Qwen Code transcripts of records of random shapes.
type gen struct{ *sourcetest.Gen }

func transcript(g *sourcetest.Gen) []string {
	var lines []string
	for i := range g.IntN(24) {
		lines = append(lines, sourcetest.JSONLine(gen{g}.record(i)))
	}
	return lines
}

// record is the i-th record of a transcript.
func (g gen) record(i int) map[string]any {
	rec := map[string]any{"uuid": fmt.Sprintf("u%d", i), "parentUuid": fmt.Sprintf("u%d", i-1), "sessionId": "s1", "version": "0.22.0"}
	if g.IntN(8) != 0 {
		rec["timestamp"] = g.Date()
	}
	if g.IntN(3) == 0 {
		rec["cwd"], rec["gitBranch"] = g.Text(), g.Text()
	}
	message := func(role string) map[string]any { return map[string]any{"role": role, "parts": g.List(g.part)} }
	switch g.IntN(12) {
	case 0, 1:
		rec["type"], rec["message"] = "user", message("user")
		if g.IntN(3) == 0 {
			rec["systemPayload"] = map[string]any{"displayText": g.Text(), "hookContext": g.Text()}
		}
		if g.IntN(4) == 0 {
			rec["subtype"] = g.Pick("notification", "cron", "mid_turn_user_message")
		}
	case 2, 3, 4:
		rec["type"], rec["message"], rec["model"] = "assistant", message("model"), g.Text()
		if g.IntN(3) != 0 {
			rec["usageMetadata"] = map[string]any{"promptTokenCount": g.IntN(5000), "candidatesTokenCount": g.IntN(300),
				"cachedContentTokenCount": g.IntN(4000), "thoughtsTokenCount": g.AnyOf(g.IntN(50), g.Str()), "totalTokenCount": g.IntN(9000)}
		}
	case 5:
		rec["type"] = "tool_result"
		rec["message"] = map[string]any{"role": "user", "parts": g.List(g.result)}
		rec["toolCallResult"] = map[string]any{"callId": g.Str(), "status": g.Pick("success", "error", "cancelled"), "resultDisplay": g.Text()}
	case 6:
		hist := []any{map[string]any{"role": g.Pick("user", "model"), "parts": g.List(g.part)}}
		if g.IntN(2) == 0 {
			hist = append(hist, map[string]any{"role": "model", "parts": []any{map[string]any{"text": g.Str()}}})
		}
		rec["type"], rec["subtype"] = "system", "chat_compression"
		rec["systemPayload"] = map[string]any{"info": g.Value(1), "compressedHistory": hist}
	case 7:
		rec["type"], rec["subtype"] = "system", "custom_title"
		rec["systemPayload"] = map[string]any{"customTitle": g.Text(), "titleSource": g.Text()}
	case 8:
		rec["type"], rec["subtype"] = "system", g.Pick("ui_telemetry", "rewind", "slash_command", "parent_session", g.Str())
		rec["systemPayload"] = g.Value(2)
	case 9:
		rec["type"] = g.Str()
		for range g.IntN(3) {
			rec[g.Key()] = g.Value(2)
		}
	case 10:
		rec["type"] = g.Pick("user", "assistant", "tool_result")
		rec["message"] = g.AnyOf(g.Str(), map[string]any{"role": g.Text(), "parts": g.Value(1)}, map[string]any{"content": g.Text()})
	default:
		for _, k := range []string{"uuid", "parentUuid", "type", "cwd", "isSidechain"} {
			if g.IntN(3) == 0 {
				rec[k] = g.Value(1)
			}
		}
		rec["message"] = message("user")
	}
	return rec
}

// part is a message's part, mostly of a shape Qwen Code writes.
func (g gen) part() any {
	switch g.IntN(9) {
	case 0, 1, 2:
		return map[string]any{"text": g.Text()}
	case 3:
		return map[string]any{"text": g.Text(), "thought": true, "thoughtSignature": g.Text()}
	case 4:
		return map[string]any{"functionCall": map[string]any{"id": g.Text(), "name": g.Text(), "args": g.Value(2)}, "thoughtSignature": g.Str()}
	case 5:
		return g.result()
	case 6:
		return map[string]any{"inlineData": map[string]any{"mimeType": g.Text(), "data": g.Text()}}
	case 7:
		return map[string]any{g.Key(): g.Value(2)}
	}
	return map[string]any{"text": g.Text(), "thought": g.AnyOf(false, g.Str())}
}

// result is a function response part.
func (g gen) result() any {
	response := g.AnyOf(map[string]any{"output": g.Text()}, map[string]any{"error": g.Text()}, g.Value(2))
	fr := map[string]any{"id": g.Text(), "name": g.Text(), "response": response}
	if g.IntN(5) == 0 {
		fr[g.Key()] = g.Value(1)
	}
	return map[string]any{"functionResponse": fr}
}
