package cursor

import (
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on transcripts and mirror files of records of random shapes: blocks and
// roles of unknown kinds, strings where objects are expected, members
// Cursor does not write. FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// keptIn says where a string at path in a record must be kept
// (docs/IMPORT.md): a transcript's role, its message's role and the type
// of a block or of a result's block nowhere (the structure of its entries); everything else in a
// payload.
func keptIn(rec any, path []string) sourcetest.Kept {
	m, _ := rec.(map[string]any)
	if _, ok := m["table"]; ok {
		return mirrorKeptIn(m, path)
	}
	role, _ := m["role"].(string)
	known := role == "user" || role == "assistant" || role == "tool"
	switch {
	case !known:
		return sourcetest.InPayload
	case len(path) == 1 && path[0] == "role":
		return sourcetest.Nowhere
	case len(path) == 2 && path[0] == "message" && path[1] == "role":
		return sourcetest.Nowhere
	case len(path) >= 4 && path[0] == "message" && path[1] == "content" && path[len(path)-1] == "type":
		return sourcetest.Nowhere // a block's, a result's block's
	}
	return sourcetest.InPayload
}

// transcript is a transcript, or a mirror file, of records of random
// shapes.
func transcript(g *sourcetest.Gen) []string {
	if g.IntN(2) == 0 {
		return mirrorTranscript(g)
	}
	var lines []string
	for range g.IntN(24) {
		lines = append(lines, sourcetest.JSONLine(record(g)))
	}
	return lines
}

// record is a transcript's line, mostly of Cursor's shapes.
func record(g *sourcetest.Gen) map[string]any {
	msg := map[string]any{"content": g.AnyOf(g.Text(), g.List(func() any { return block(g) }), g.Value(1))}
	if g.IntN(6) == 0 {
		msg[g.Key()] = g.Value(1)
	}
	r := map[string]any{"role": g.Pick("user", "assistant", "tool", "system", g.Str()), "message": g.AnyOf(msg, msg, msg, g.Str())}
	if g.IntN(6) == 0 {
		r[g.Key()] = g.Value(2)
	}
	return r
}

// block is a message's content block, mostly of a type Cursor writes.
func block(g *sourcetest.Gen) any {
	var b map[string]any
	switch g.IntN(7) {
	case 0, 1:
		b = map[string]any{"type": "text", "text": g.AnyOf(g.Text(), "<user_info>\nWorkspace Path: /home/a\n</user_info>\n<user_query>\nhi\n</user_query>")}
	case 2:
		b = map[string]any{"type": g.Pick("thinking", "reasoning", "redacted_thinking"), g.Pick("thinking", "text", "data"): g.Text(), "signature": g.Text()}
	case 3:
		b = map[string]any{"type": "tool_use", "id": g.Text(), "name": g.Text(), "input": g.Value(2)}
	case 4:
		b = map[string]any{"type": "tool_result", "tool_use_id": g.Text(), "content": g.AnyOf(g.Text(), g.List(func() any {
			return map[string]any{"type": g.Pick("text", g.Str()), "text": g.Text()}
		})), "is_error": g.AnyOf(true, false, g.Str())}
	case 5:
		b = map[string]any{"type": g.Pick("image", g.Str()), "source": g.Value(2)}
	default:
		return g.AnyOf(g.Str(), g.Value(2))
	}
	if g.IntN(8) == 0 {
		b[g.Key()] = g.Value(1)
	}
	return b
}
