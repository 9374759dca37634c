package pi

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on session files of records of random shapes: every record type Pi and
// oh-my-pi write, with strings where lists are expected, numbers where
// strings are, nested objects, records of unknown types, dates that are
// not dates, and branches. Seeds: 400 files (40 under -short) of up to 30
// lines, in under a second; FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// keptIn says where a string at path in a record must be kept
// (docs/IMPORT.md): the envelope's id, parentId and timestamp in the
// entries' ids, metas and dates; types, roles and the keys the mapping
// does not keep nowhere; everything else in a payload.
func keptIn(rec any, path []string) sourcetest.Kept {
	m, _ := rec.(map[string]any)
	typ, _ := m["type"].(string)
	switch path[0] {
	case "type":
		return sourcetest.Nowhere
	case "timestamp":
		return sourcetest.InEntry
	case "id", "parentId":
		if _, ok := m[path[0]].(string); ok {
			return sourcetest.InEntry
		}
		// Of another shape: not the envelope, but a member as another.
	}
	switch typ {
	case "title":
		if path[0] == "pad" || m["title"] == "" {
			return sourcetest.Nowhere // padding, and a title line with no title yet
		}
	case "message":
		if path[0] != "message" {
			return sourcetest.Nowhere // a message record's other members
		}
		msg, _ := m["message"].(map[string]any)
		return messageKept(msg, path[1:])
	case "custom_message":
		return customKept(m, path)
	}
	return sourcetest.InPayload
}

// messageKept is keptIn for the path in a message record's message.
func messageKept(msg map[string]any, path []string) sourcetest.Kept {
	if len(path) == 0 {
		return sourcetest.InPayload // a message that is not an object: kept whole
	}
	role, _ := msg["role"].(string)
	key := path[0]
	switch {
	case key == "role" || blockStructure(path):
		return sourcetest.Nowhere
	}
	switch role {
	case "user", "developer", "system":
		if key != "content" {
			return sourcetest.Nowhere
		}
	case "assistant":
		switch key {
		case "content", "errorMessage":
		case "model", "provider", "stopReason":
			if !hasRun(msg) {
				return sourcetest.Nowhere // kept in the run event
			}
		default:
			return sourcetest.Nowhere
		}
	case "toolResult":
		if !slices.Contains([]string{"toolCallId", "content", "details"}, key) {
			return sourcetest.Nowhere
		}
	case "bashExecution":
		if key == "timestamp" {
			return sourcetest.Nowhere
		}
	case "custom", "hookMessage":
		if key == "timestamp" {
			return sourcetest.Nowhere
		}
		return customKept(msg, path)
	}
	return sourcetest.InPayload
}

// customKept is keptIn for an extension's message: its customType in
// the meta, its content in a payload, its other members in one when it
// has details.
func customKept(m map[string]any, path []string) sourcetest.Kept {
	switch {
	case blockStructure(path):
		return sourcetest.Nowhere
	case path[0] == "customType":
		return sourcetest.InEntry
	case path[0] == "content":
		return sourcetest.InPayload
	case m["details"] == nil:
		return sourcetest.Nowhere
	}
	return sourcetest.InPayload
}

// blockStructure reports whether path is a content block's kind or a
// text's opaque signature, which the mapping does not keep.
func blockStructure(path []string) bool {
	return len(path) == 3 && path[0] == "content" && slices.Contains([]string{"type", "textSignature"}, path[2])
}

// hasRun reports whether an assistant message's usage makes a run event.
func hasRun(msg map[string]any) bool {
	u, ok := msg["usage"].(map[string]any)
	if !ok {
		return false
	}
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens"} {
		if n, ok := u[k].(float64); ok && n >= 1 {
			return true
		}
	}
	return false
}

// gen makes Pi session files of records of random shapes.
type gen struct {
	*sourcetest.Gen
	ids []string // the ids of the entries so far
}

func transcript(g *sourcetest.Gen) []string { return (&gen{Gen: g}).transcript() }

func (g *gen) transcript() []string {
	var lines []string
	if g.IntN(3) == 0 {
		lines = append(lines, sourcetest.JSONLine(map[string]any{"type": "title", "v": 1, "title": g.Text(), "source": g.Pick("auto", "user"), "updatedAt": g.Date(), "pad": "    "}))
	}
	head := map[string]any{"type": "session", "version": g.AnyOf(3, 2, 1, nil), "id": "019a5e2b-3c4d-7e8f-9a0b-1c2d3e4f5a6b", "timestamp": "2026-03-01T10:00:00.000Z", "cwd": g.Text()}
	for _, k := range []string{"title", "parentSession", "systemPrompt", "branchedFrom", g.Key()} {
		if g.IntN(3) == 0 {
			head[k] = g.Text()
		}
	}
	if g.IntN(8) != 0 {
		lines = append(lines, sourcetest.JSONLine(head))
	}
	for range g.IntN(28) {
		lines = append(lines, sourcetest.JSONLine(g.record()))
	}
	return lines
}

// record is one entry of the tree, its envelope, and its parent: the
// last entry, mostly, or an earlier one (a branch), or none (a root).
func (g *gen) record() map[string]any {
	rec := g.body()
	if g.IntN(8) != 0 {
		rec["timestamp"] = g.Date()
	}
	if g.IntN(6) == 0 {
		return rec // a version 1 entry: no id
	}
	id := fmt.Sprintf("%08x", len(g.ids)+1)
	switch n := len(g.ids); {
	case n == 0 || g.IntN(8) == 0:
		rec["parentId"] = nil
	case g.IntN(5) == 0:
		rec["parentId"] = g.ids[g.IntN(n)]
	case g.IntN(12) == 0:
		rec["parentId"] = g.Text()
	default:
		rec["parentId"] = g.ids[n-1]
	}
	rec["id"] = id
	if g.IntN(10) == 0 {
		rec["id"] = g.Value(1) // an id of another shape
	}
	g.ids = append(g.ids, id)
	return rec
}

// body is a record without its envelope.
func (g *gen) body() map[string]any {
	switch g.IntN(16) {
	case 0, 1, 2, 3, 4, 5:
		return map[string]any{"type": "message", "message": g.message()}
	case 6:
		return map[string]any{"type": "compaction", "summary": g.Text(), "firstKeptEntryId": g.Text(), "tokensBefore": g.IntN(90000), "details": g.Value(2)}
	case 7:
		return map[string]any{"type": "branch_summary", "fromId": g.Text(), "summary": g.Text(), "details": g.Value(2)}
	case 8:
		return map[string]any{"type": "custom_message", "customType": g.Text(), "content": g.content(), "display": g.IntN(2) == 0, "details": g.AnyOf(nil, g.Value(2))}
	case 9:
		return map[string]any{"type": g.Pick("session_info", "title_change"), "name": g.Text(), "title": g.Text(), "previousTitle": g.Text()}
	case 10:
		return map[string]any{"type": "model_change", "provider": g.Text(), "modelId": g.Text(), "model": g.Text()}
	case 11:
		return map[string]any{"type": g.Pick("label", "custom", "thinking_level_change", "reset_boundary"), "targetId": g.Text(), "label": g.Text(), "customType": g.Text(), "data": g.Value(2)}
	case 12:
		return map[string]any{"type": g.Pick("session", "title"), "id": g.Text(), "title": g.Text(), "cwd": g.Text()}
	case 13:
		return map[string]any{"type": g.Str(), g.Key(): g.Value(2)}
	case 14:
		return map[string]any{"type": "message", "message": g.Value(2)}
	}
	m := map[string]any{g.Key(): g.Value(2)}
	if g.IntN(2) == 0 {
		m["type"] = g.Value(1)
	}
	return m
}

// message is a message of a random role.
func (g *gen) message() map[string]any {
	stamp := g.IntN(1 << 30)
	switch g.IntN(9) {
	case 0, 1:
		return map[string]any{"role": "user", "content": g.content(), "timestamp": stamp, "synthetic": g.IntN(4) == 0}
	case 2, 3:
		m := map[string]any{"role": "assistant", "content": g.List(g.block), "api": g.Text(), "provider": g.Text(), "model": g.Text(), "stopReason": g.Pick("stop", "toolUse", "error", "aborted"), "timestamp": stamp}
		if g.IntN(4) != 0 {
			m["usage"] = map[string]any{"input": g.IntN(3000), "output": g.IntN(500), "cacheRead": g.IntN(2) * g.IntN(9000), "cacheWrite": g.IntN(2) * g.IntN(4000), "totalTokens": g.IntN(10000), "cost": map[string]any{"total": g.IntN(100)}}
		}
		if g.IntN(4) == 0 {
			m["errorMessage"] = g.Text()
		}
		return m
	case 4:
		return map[string]any{"role": "toolResult", "toolCallId": g.Text(), "toolName": g.Text(), "content": g.AnyOf(g.Value(2), g.content()), "details": g.Value(2), "isError": g.IntN(3) == 0, "timestamp": stamp}
	case 5:
		return map[string]any{"role": "bashExecution", "command": g.Text(), "output": g.Text(), "exitCode": g.AnyOf(0, 1, nil), "cancelled": g.IntN(5) == 0, "fullOutputPath": g.Text(), "excludeFromContext": g.IntN(3) == 0, "timestamp": stamp}
	case 6:
		return map[string]any{"role": g.Pick("custom", "hookMessage"), "customType": g.Text(), "content": g.content(), "display": true, "details": g.AnyOf(nil, g.Value(2)), "timestamp": stamp}
	case 7:
		return map[string]any{"role": g.Pick("developer", "system"), "content": g.content(), "timestamp": stamp}
	}
	return map[string]any{"role": g.Str(), "content": g.content(), g.Key(): g.Value(1)}
}

// content is a user's content: a string, or a list of text and image
// blocks.
func (g *gen) content() any {
	if g.IntN(3) == 0 {
		return g.Text()
	}
	return g.List(func() any {
		if g.IntN(4) == 0 {
			return map[string]any{"type": "image", "data": g.Text(), "mimeType": g.Text()}
		}
		return map[string]any{"type": "text", "text": g.Text(), "textSignature": g.Text()}
	})
}

// block is an assistant's content block.
func (g *gen) block() any {
	switch g.IntN(6) {
	case 0:
		return map[string]any{"type": "thinking", "thinking": g.Text(), "thinkingSignature": g.Text(), "redacted": g.IntN(4) == 0}
	case 1, 2:
		b := map[string]any{"type": "toolCall", "id": g.Text(), "name": g.Text(), "arguments": g.Value(2)}
		if g.IntN(3) == 0 {
			b["intent"] = g.Text()
		}
		return b
	case 3:
		return map[string]any{"type": g.Pick("redactedThinking", "fallback", g.Str()), "data": g.Value(2)}
	}
	return map[string]any{"type": "text", "text": g.Text(), "textSignature": g.Text()}
}
