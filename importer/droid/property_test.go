package droid

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on transcripts of records of random shapes (strings where blocks are
// expected, numbers where strings are, blocks of unknown types, missing
// members, dates that are not dates), and on settings documents. Seeds:
// 400 of each (40 under -short) of up to 24 lines; FuzzKeepsText and
// FuzzSettingsKeepText explore more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
	sourcetest.KeepsText(t, settingsOnly{}, settings, settingsKeptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

func FuzzSettingsKeepText(f *testing.F) {
	sourcetest.FuzzKeepsText(f, settingsOnly{}, settings, settingsKeptIn)
}

// keptIn says where a string at path in a record must be kept
// (docs/IMPORT.md): a timestamp in the entries' dates or metas, as are the
// members of a message record, and of its message, that the mapping does
// not read; the envelope's ids and type, a message's role, and a block's
// type nowhere (a block's type names the event that keeps it); everything
// else in a payload.
func keptIn(rec any, path []string) sourcetest.Kept {
	m, _ := rec.(map[string]any)
	typ, _ := m["type"].(string)
	p := strings.Join(path, "/")
	switch {
	case path[0] == "timestamp":
		return sourcetest.InEntry
	case slices.Contains([]string{"id", "parentId", "type"}, path[0]), p == "message/role",
		strings.HasPrefix(p, "message/content/[]/type"), strings.HasPrefix(p, "message/content/[]/source/type"):
		return sourcetest.Nowhere
	case typ == "message" && path[0] != "message":
		return sourcetest.InEntry
	case typ == "message" && len(path) > 1 && path[1] != "content" && path[1] != "role" && !reasoningMembers[path[1]]:
		return sourcetest.InEntry
	}
	return sourcetest.InPayload
}

// gen makes Droid transcripts of records of random shapes.
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
	rec := map[string]any{"id": fmt.Sprintf("r%d", i)}
	if i > 0 && g.IntN(3) != 0 {
		rec["parentId"] = fmt.Sprintf("r%d", i-1)
	}
	if g.IntN(6) != 0 {
		rec["timestamp"] = g.Date()
	}
	switch g.IntN(12) {
	case 0:
		rec["type"], rec["id"] = "session_start", g.Pick("s1", "7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c")
		delete(rec, "timestamp")
		for _, k := range []string{"title", "sessionTitle", "owner", "cwd", "callingSessionId", "callingToolUseId", "parent", "forkedAtMessageId"} {
			if g.IntN(2) == 0 {
				rec[k] = g.Text()
			}
		}
		rec["version"] = g.AnyOf(2, g.Text())
	case 1, 2, 3:
		rec["type"], rec["message"] = "message", g.message("user")
	case 4, 5, 6:
		rec["type"], rec["message"] = "message", g.message("assistant")
	case 7:
		rec["type"] = "compaction_state"
		rec["summaryText"] = g.Text()
		rec["summaryTokens"], rec["summaryKind"] = g.IntN(900), g.Pick("auto", "manual", "provider_switch_serialization")
		rec["anchorMessage"] = map[string]any{"id": g.Text(), "index": g.IntN(9)}
		rec["systemInfo"] = g.Value(2)
	case 8:
		rec["type"] = g.Pick("todo_state", "agent_turn_outcome", g.Str())
		for range 1 + g.IntN(3) {
			rec[g.Key()] = g.Value(2)
		}
	case 9:
		rec["type"], rec["message"] = "message", g.AnyOf(g.Str(), map[string]any{"role": g.Text(), "content": g.Value(1)}, g.Value(1))
	case 10:
		rec["type"], rec["message"] = "message", g.message(g.Pick("user", "assistant"))
		rec[g.Key()] = g.Value(1) // a member of the record the mapping does not read
	default:
		for _, k := range []string{"id", "parentId", "type"} {
			if g.IntN(3) == 0 {
				rec[k] = g.Value(1)
			}
		}
		rec["message"] = g.message("user")
	}
	return rec
}

// message is a message of the role, mostly of a shape Droid writes.
func (g gen) message(role string) map[string]any {
	m := map[string]any{"role": role}
	if g.IntN(5) == 0 {
		m["content"] = g.Text()
	} else {
		m["content"] = g.List(g.block)
	}
	extras := []string{"modelId", "apiProvider", "visibility", "userMessageSource", "hookEventName", "openaiMessageId",
		"chatCompletionReasoningField", "chatCompletionReasoningContent", "openaiReasoningSummary", "openaiEncryptedContent", "openaiReasoningId"}
	for range g.IntN(3) {
		m[extras[g.IntN(len(extras))]] = g.Text()
	}
	return m
}

// block is a content block, mostly of a shape Droid writes.
func (g gen) block() any {
	switch g.IntN(11) {
	case 0, 1, 2:
		return map[string]any{"type": "text", "text": g.Text()}
	case 3:
		return map[string]any{"type": "thinking", "thinking": g.Text(), "signature": g.Str(), "signatureProvider": g.Str()}
	case 4:
		b := map[string]any{"type": "tool_use", "id": g.Text(), "name": g.Text(), "input": g.Value(2)}
		if g.IntN(4) == 0 {
			b[g.Key()] = g.Value(1)
		}
		return b
	case 5:
		b := map[string]any{"type": "tool_result", "tool_use_id": g.Text(), "content": g.AnyOf(g.Text(), g.Value(2)), "is_error": g.AnyOf(true, false, g.Str())}
		if g.IntN(4) == 0 {
			b[g.Key()] = g.Value(1)
		}
		return b
	case 6:
		return map[string]any{"type": "image", "source": map[string]any{"type": g.Pick("base64", "url"), "media_type": g.Text(), "data": g.Text()}}
	case 7:
		return map[string]any{"type": g.Pick("redacted_thinking", "document", g.Str()), g.Key(): g.Value(2)}
	case 8:
		return g.Text()
	case 9:
		return map[string]any{"type": "text", "text": g.Text(), g.Key(): g.Value(1)}
	}
	return g.Value(2)
}

// settings makes settings documents, one a line, of random shapes.
func settings(g *sourcetest.Gen) []string {
	var lines []string
	for range g.IntN(6) {
		d := map[string]any{}
		for _, k := range []string{"model", "providerLock", "apiProviderLock", "reasoningEffort", "autonomyMode", "specModeModel"} {
			if g.IntN(2) == 0 {
				d[k] = g.Text()
			}
		}
		if g.IntN(4) != 0 {
			d["providerLockTimestamp"] = g.Date()
		}
		if g.IntN(5) != 0 {
			usage := map[string]any{}
			for _, k := range []string{"inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens", "thinkingTokens"} {
				usage[k] = g.AnyOf(g.IntN(90000), g.IntN(9), g.Str())
			}
			d["tokenUsage"] = g.AnyOf(usage, usage, g.Value(1))
		}
		d["tags"] = g.List(func() any { return map[string]any{"name": g.Text()} })
		d[g.Key()] = g.Value(2)
		lines = append(lines, sourcetest.JSONLine(g.AnyOf(d, d, d, g.Value(2))))
	}
	return lines
}

// settingsKeptIn: a settings document is kept whole, in its event; its
// providerLockTimestamp is its entries' date too.
func settingsKeptIn(_ any, path []string) sourcetest.Kept {
	if len(path) == 1 && path[0] == "providerLockTimestamp" {
		return sourcetest.InEntry
	}
	return sourcetest.InPayload
}
