package openclaw

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on transcripts of records of random shapes (strings where parts are
// expected, numbers where strings are, parts and members of unknown
// kinds, missing fields, dates that are not dates). Seeds: 400
// transcripts (40 under -short) of up to 24 lines; FuzzKeepsText explores
// more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// runMembers are the members of an assistant's message that are its run's
// (docs/IMPORT.md): kept in the run event, when the usage has a count.
var runMembers = []string{"usage", "model", "modelId", "provider", "api", "stopReason", "timestamp"}

// keptIn says where a string at path in a record must be kept
// (docs/IMPORT.md): a timestamp in the entries' dates or metas, as a
// custom message's customType and display; types, ids, roles, signatures
// and the streaming's partialJson nowhere; an assistant's usage, model,
// provider, api, stop reason and timestamp, and any message's timestamp,
// nowhere (the run's, when it has one); everything else in a payload.
func keptIn(rec any, path []string) sourcetest.Kept {
	m, _ := rec.(map[string]any)
	typ, _ := m["type"].(string)
	last := path[len(path)-1]
	switch {
	case path[0] == "timestamp":
		return sourcetest.InEntry
	case slices.Contains([]string{"type", "id", "parentId"}, path[0]),
		strings.HasSuffix(last, "Signature"), last == "partialJson":
		return sourcetest.Nowhere
	case len(path) >= 3 && path[len(path)-3] == "content" && path[len(path)-2] == "[]" && last == "type":
		return sourcetest.Nowhere // a part's kind
	case typ == "custom_message" && (path[0] == "customType" || path[0] == "display"):
		return sourcetest.InEntry
	case typ == "message" && len(path) >= 2 && path[0] == "message":
		msg, _ := m["message"].(map[string]any)
		role, _ := msg["role"].(string)
		switch {
		case path[1] == "role":
			return sourcetest.Nowhere
		case role == "assistant" && slices.Contains(runMembers, path[1]), path[1] == "timestamp":
			return sourcetest.Nowhere
		case (role == "custom" || role == "hookMessage") && (path[1] == "customType" || path[1] == "display"):
			return sourcetest.InEntry
		}
	}
	return sourcetest.InPayload
}

// gen makes OpenClaw transcripts of records of random shapes.
type gen struct{ *sourcetest.Gen }

func transcript(g *sourcetest.Gen) []string {
	var lines []string
	if g.IntN(6) != 0 {
		h := map[string]any{"type": "session", "id": "6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14", "timestamp": g.Date(), "cwd": g.Text()}
		switch g.IntN(4) {
		case 0: // the first layout
			h["provider"], h["modelId"], h["thinkingLevel"] = g.Text(), g.Text(), g.Text()
		case 1:
			h["version"], h["parentSession"] = g.AnyOf(2, 3), g.Text()
		default:
			h["version"] = 3
		}
		if g.IntN(5) == 0 {
			h[g.Key()] = g.Value(2)
		}
		lines = append(lines, sourcetest.JSONLine(h))
	}
	for i := range g.IntN(24) {
		lines = append(lines, sourcetest.JSONLine(gen{g}.record(i)))
	}
	return lines
}

// record is the i-th entry of a transcript.
func (g gen) record(i int) map[string]any {
	rec := map[string]any{}
	if g.IntN(5) != 0 { // the first layout has no ids
		rec["id"], rec["parentId"] = fmt.Sprintf("e%07d", i), g.AnyOf(nil, fmt.Sprintf("e%07d", i-1))
	}
	if g.IntN(8) != 0 {
		rec["timestamp"] = g.Date()
	}
	switch g.IntN(14) {
	case 0, 1, 2, 3:
		rec["type"], rec["message"] = "message", g.message()
	case 4:
		rec["type"], rec["message"] = "message", g.AnyOf(g.Str(), g.Value(2), map[string]any{"role": g.Text(), "content": g.Text()})
	case 5:
		rec["type"], rec["summary"] = g.Pick("compaction", "branch_summary"), g.Text()
		rec["firstKeptEntryId"], rec["fromId"], rec["tokensBefore"], rec["details"] = g.Text(), g.Text(), g.IntN(9000), g.Value(2)
		if g.IntN(3) == 0 {
			rec["firstKeptEntryIndex"] = g.IntN(10)
		}
	case 6:
		rec["type"], rec["provider"], rec["modelId"] = "model_change", g.Text(), g.Text()
	case 7:
		rec["type"], rec["customType"], rec["data"] = "custom", g.Pick("model-snapshot", "openclaw.cache-ttl", g.Str()), g.AnyOf(map[string]any{"modelId": g.Text(), "provider": g.Text()}, g.Value(2))
	case 8:
		rec["type"], rec["customType"], rec["content"], rec["display"], rec["details"] = "custom_message", g.Text(), g.List(g.part), g.AnyOf(true, false, g.Text()), g.Value(2)
	case 9:
		rec["type"], rec["name"] = "session_info", g.Text()
	case 10:
		rec["type"], rec["targetId"], rec["label"] = g.Pick("label", "thinking_level_change", "session"), g.Text(), g.Text()
	case 11:
		rec["type"] = g.Str()
	default:
		for _, k := range []string{"type", "id", "parentId"} {
			if g.IntN(3) == 0 {
				rec[k] = g.Value(1)
			}
		}
		rec["message"] = g.message()
	}
	for range g.IntN(2) {
		rec[g.Key()] = g.Value(2)
	}
	return rec
}

// message is a message of one of the roles pi writes, mostly of their
// shapes.
func (g gen) message() map[string]any {
	role := g.Pick("user", "assistant", "assistant", "toolResult", "custom", "hookMessage", "bashExecution", "branchSummary", g.Str())
	m := map[string]any{"role": role, "timestamp": g.AnyOf(g.IntN(1<<40), g.Date())}
	switch role {
	case "user":
		m["content"] = g.AnyOf(g.Str(), g.List(g.part), g.List(g.part))
	case "assistant":
		m["content"] = g.List(g.part)
		m["api"], m["provider"], m["model"], m["stopReason"] = g.Text(), g.Text(), g.Text(), g.Pick("stop", "toolUse", "error", "aborted")
		if g.IntN(3) == 0 {
			m["errorMessage"] = g.Text()
		}
		if g.IntN(4) != 0 {
			m["usage"] = map[string]any{"input": g.AnyOf(g.IntN(5000), g.Str()), "output": g.IntN(300), "cacheRead": g.IntN(4000), "cacheWrite": g.IntN(100),
				"totalTokens": g.IntN(9000), "cost": map[string]any{"total": 0.01}}
		}
	case "toolResult":
		m["toolCallId"], m["toolName"], m["content"], m["isError"] = g.Text(), g.Text(), g.List(g.part), g.AnyOf(true, false, g.Str())
		if g.IntN(2) == 0 {
			m["details"] = g.AnyOf(map[string]any{"status": g.Pick("error", "completed", "failed"), "exitCode": g.IntN(3)}, g.Value(2))
		}
	case "custom", "hookMessage":
		m["customType"], m["content"], m["display"], m["details"] = g.Text(), g.List(g.part), g.AnyOf(true, false), g.Value(1)
	case "bashExecution":
		m["command"], m["output"], m["exitCode"], m["cancelled"], m["truncated"] = g.Text(), g.Text(), g.AnyOf(0, 1, nil), g.AnyOf(true, false), false
		if g.IntN(2) == 0 {
			m["fullOutputPath"], m["excludeFromContext"] = g.Text(), true
		}
	default:
		m["summary"], m["fromId"] = g.Text(), g.Text()
	}
	if g.IntN(6) == 0 {
		m[g.Key()] = g.Value(2)
	}
	return m
}

// part is a part of a message's content, mostly of a shape pi writes.
func (g gen) part() any {
	switch g.IntN(10) {
	case 0, 1, 2:
		p := map[string]any{"type": "text", "text": g.Text()}
		if g.IntN(3) == 0 {
			p["textSignature"] = g.Str()
		}
		return p
	case 3:
		return map[string]any{"type": "thinking", "thinking": g.Text(), "thinkingSignature": g.Str(), "redacted": g.AnyOf(false, true, nil)}
	case 4, 5:
		p := map[string]any{"type": g.Pick("toolCall", "tool_use"), "id": g.Text(), "name": g.Text(), "arguments": g.Value(2)}
		if g.IntN(3) == 0 {
			p["partialJson"], p["input"] = g.Str(), g.Value(1)
		}
		if g.IntN(4) == 0 {
			p[g.Key()] = g.Value(1)
		}
		return p
	case 6:
		return map[string]any{"type": "image", "data": g.Text(), "mimeType": g.Text()}
	case 7:
		return map[string]any{"type": g.Pick("toolResult", "text", g.Str()), g.Key(): g.Value(2)}
	}
	return map[string]any{g.Key(): g.Value(2)}
}
