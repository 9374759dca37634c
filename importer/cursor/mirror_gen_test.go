package cursor

import (
	"fmt"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// mirrorKeptIn says where a string of a mirror line must be kept: its
// table and key nowhere (the envelope: the key's ids are the entries'),
// a bubble's type, id and date in the entry, a composer's data in its
// anchor or event; everything else in a payload.
func mirrorKeptIn(m map[string]any, path []string) sourcetest.Kept {
	switch {
	case path[0] == "table" || path[0] == "key":
		return sourcetest.Nowhere
	case m["table"] == "blobs" && path[0] == "id":
		return sourcetest.Nowhere // the entries' ids
	case m["table"] == "blobs" && len(path) == 2 && path[0] == "data" && path[1] == "role":
		return sourcetest.Nowhere
	case m["table"] == "blobs" && len(path) >= 4 && path[0] == "data" && path[1] == "content" && path[len(path)-1] == "type":
		return sourcetest.Nowhere
	case len(path) == 2 && path[0] == "data" && (path[1] == "type" || path[1] == "bubbleId" || path[1] == "createdAt" || path[1] == "timestamp"):
		return sourcetest.InEntry
	case len(path) == 2 && path[0] == "data" && path[1] == "richText":
		if d, ok := m["data"].(map[string]any); ok {
			if _, ok := d["text"].(string); ok {
				return sourcetest.Nowhere // the text, as Cursor's editor lays it out
			}
		}
	}
	return sourcetest.InPayload
}

// mirrorTranscript is a mirror file of lines of random shapes: a chat's
// line, then its bubbles, mostly of Cursor's shapes.
func mirrorTranscript(g *sourcetest.Gen) []string {
	var lines []string
	if g.IntN(5) != 0 {
		lines = append(lines, sourcetest.JSONLine(composerLine(g)))
	}
	for i := range g.IntN(16) {
		switch g.IntN(9) {
		case 8: // a CLI chat's
			lines = append(lines, sourcetest.JSONLine(map[string]any{"table": "blobs", "id": g.Text(), "data": g.AnyOf(record(g)["message"], map[string]any{
				"role": g.Pick("user", "assistant", "tool", "system", g.Str()), "id": g.AnyOf("1", g.Text()), "content": g.AnyOf(g.Text(), g.List(func() any { return block(g) }))})}))
			if g.IntN(3) == 0 {
				lines = append(lines, sourcetest.JSONLine(map[string]any{"table": "meta", "key": "0", "db": g.Text(), "workspace": g.Text(),
					"data": g.AnyOf(map[string]any{"agentId": g.Text(), "name": g.Text(), "lastUsedModel": g.Text(), "createdAt": g.AnyOf(1772532000000, g.Str())}, g.Str())}))
			}
		case 0:
			lines = append(lines, sourcetest.JSONLine(composerLine(g)))
		case 1:
			lines = append(lines, sourcetest.JSONLine(map[string]any{"table": g.Pick("cursorDiskKV", g.Str()), "key": g.Text(), "data": g.Value(2)}))
		default:
			key := fmt.Sprintf("bubbleId:c1:b%d", i)
			line := map[string]any{"table": "cursorDiskKV", "key": key, "data": g.AnyOf(bubble(g), bubble(g), g.Value(1))}
			if g.IntN(4) == 0 {
				line["key"], line["inline"] = "composerData:c1", g.AnyOf(i, g.Str())
			}
			lines = append(lines, sourcetest.JSONLine(line))
		}
	}
	return lines
}

func composerLine(g *sourcetest.Gen) map[string]any {
	data := map[string]any{"_v": 10, "composerId": "c1", "name": g.Text(), "createdAt": g.AnyOf(1772445600000, g.Str()), "lastUpdatedAt": g.AnyOf(1772445900000, g.Str()),
		"modelConfig": g.AnyOf(map[string]any{"modelName": g.Text()}, g.Value(1)), "createdOnBranch": g.Text(), "status": g.Pick("completed", g.Str())}
	if g.IntN(4) == 0 {
		data[g.Key()] = g.Value(2)
	}
	return map[string]any{"table": "cursorDiskKV", "key": "composerData:c1", "db": g.Text(), "workspace": g.Text(), "parent": g.AnyOf(nil, g.Text()),
		"data": g.AnyOf(data, data, g.Str())}
}

// bubble is a bubble's value, mostly of Cursor's shapes.
func bubble(g *sourcetest.Gen) map[string]any {
	b := map[string]any{"_v": g.AnyOf(3, g.Str()), "type": g.AnyOf(1, 2, 2, 30, g.Str()), "bubbleId": g.AnyOf(g.Text(), nil),
		"createdAt": g.AnyOf(g.Date(), 1772445600000, nil), "text": g.Text(), "richText": g.Text()}
	switch g.IntN(5) {
	case 0:
		b["thinking"] = g.AnyOf(map[string]any{"text": g.Text(), "signature": g.Text()}, g.Value(1))
		b["allThinkingBlocks"] = g.List(func() any { return g.AnyOf(map[string]any{"text": g.Text()}, g.Value(1)) })
	case 1:
		t := map[string]any{"tool": g.IntN(50), "toolCallId": g.AnyOf(g.Text(), nil), "name": g.AnyOf(g.Text(), nil, 7), "status": g.Pick("completed", "error", "loading", "cancelled", g.Str()),
			"params": g.AnyOf(g.Text(), g.Value(1), nil), "rawArgs": g.AnyOf(g.Text(), nil), "result": g.AnyOf(g.Text(), g.Value(1), nil),
			"userDecision": g.AnyOf(nil, "rejected", g.Text()), "error": g.AnyOf(nil, g.Text()), "additionalData": g.Value(1)}
		b["toolFormerData"] = g.AnyOf(t, t, g.Value(1))
	case 2:
		b["codeBlocks"] = g.List(func() any { return map[string]any{"content": g.Text(), "languageId": g.Text()} })
	case 3:
		b["modelInfo"] = g.AnyOf(map[string]any{"modelName": g.Text()}, g.Value(1))
		b["tokenCount"] = map[string]any{"inputTokens": g.IntN(900), "outputTokens": g.IntN(90)}
	}
	if g.IntN(4) == 0 {
		b[g.Key()] = g.Value(2)
	}
	return b
}
