package claude

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on transcripts of Claude Code records of random shapes (strings where
// lists are expected, numbers where strings are, nested objects, missing
// fields, dates that are not dates). Seeds: 400 transcripts (40 under -short) of up to 24
// lines (under a second); FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// keptIn says where a string at path in a record must be kept: a
// timestamp in the entries' dates or metas; the envelope (ids, dates and
// meta hold it), the subtype, the request id, and the role, model, id
// and block types of a message (kinds, names and the run event say
// them) nowhere; everything else in a payload (docs/IMPORT.md).
func keptIn(_ any, path []string) sourcetest.Kept {
	p := strings.Join(path, "/")
	switch {
	case path[0] == "timestamp":
		return sourcetest.InEntry
	case slices.Contains(envelopeKeys, path[0]),
		slices.Contains([]string{"subtype", "requestId", "message/id", "message/role", "message/model", "message/content/[]/type"}, p):
		return sourcetest.Nowhere
	}
	return sourcetest.InPayload
}

// gen makes Claude Code transcripts of records of random shapes.
type gen struct{ *sourcetest.Gen }

func transcript(g *sourcetest.Gen) []string { return gen{g}.transcript() }

func (g gen) transcript() []string {
	var lines []string
	for i := range 1 + g.IntN(24) {
		rec := g.record()
		rec["uuid"] = fmt.Sprintf("u%d", i)
		rec["sessionId"] = "5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12"
		if g.IntN(8) != 0 {
			rec["timestamp"] = g.Date()
		}
		lines = append(lines, sourcetest.JSONLine(rec))
	}
	return lines
}

func (g gen) record() map[string]any {
	switch g.IntN(10) {
	case 0, 1, 2:
		return map[string]any{"type": "user", "message": g.message("user")}
	case 3, 4, 5:
		m := g.message("assistant")
		if m, ok := m.(map[string]any); ok {
			m["id"] = g.Pick("m1", "m2")
			m["model"] = "claude-x"
			if g.IntN(2) == 0 {
				m["usage"] = map[string]any{"input_tokens": g.IntN(100), "output_tokens": g.IntN(100)}
			}
		}
		return map[string]any{"type": "assistant", "message": m, "requestId": "r1"}
	case 6:
		return map[string]any{"type": "system", "subtype": "compact_boundary", "compactMetadata": g.Value(2)}
	case 7:
		return map[string]any{"type": "user", "isCompactSummary": true, "message": g.message("user")}
	case 8:
		key := g.Pick("aiTitle", "customTitle")
		return map[string]any{"type": map[string]string{"aiTitle": "ai-title", "customTitle": "custom-title"}[key], key: g.Text()}
	}
	rec := map[string]any{"type": g.Pick("summary", "system", "attachment", "queue-operation", "a-later-record")}
	for range g.IntN(4) {
		rec[g.Key()] = g.Value(2)
	}
	return rec
}

// message is a message: mostly an object with a content, its
// content a string, blocks, or any value.
func (g gen) message(role string) any {
	if g.IntN(10) == 0 {
		return g.Value(2) // a message of another shape
	}
	m := map[string]any{"role": role}
	switch g.IntN(8) {
	case 0:
		m["content"] = g.Str()
	case 1:
		m["content"] = g.Value(2)
	case 2: // no content
	default:
		m["content"] = g.List(g.block)
	}
	return m
}

func (g gen) block() any {
	switch g.IntN(7) {
	case 0:
		return map[string]any{"type": "text", "text": g.Text()}
	case 1:
		return map[string]any{"type": "thinking", "thinking": g.Text(), "signature": g.Text()}
	case 2:
		return map[string]any{"type": "tool_use", "id": g.Text(), "name": g.Text(), "input": g.Value(2)}
	case 3:
		b := map[string]any{"type": "tool_result", "tool_use_id": g.Text(), "content": g.Value(2)}
		if g.IntN(3) == 0 {
			b["is_error"] = g.Pick("true", "false", "maybe") // a string, not a boolean
		}
		return b
	case 4:
		return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": g.Text(), "data": g.Text()}}
	case 5:
		return map[string]any{"type": g.Str(), "k": g.Value(2)}
	}
	return map[string]any{"type": "text", "text": g.Str()}
}
