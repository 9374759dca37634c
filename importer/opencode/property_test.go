package opencode

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on mirror files of rows of random shapes: parts and tables of unknown
// kinds, strings where objects are expected, members OpenCode does not
// write. FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// keptIn says where a string at path in a row must be kept
// (docs/IMPORT.md): the row's table, ids and times nowhere (they are the
// entries' ids, metas and dates), nor the ids a part's or a message's
// data repeats, nor a part's type; everything else in a payload.
func keptIn(rec any, path []string) sourcetest.Kept {
	m, _ := rec.(map[string]any)
	table, _ := m["table"].(string)
	switch {
	case table != "session" && slices.Contains([]string{"table", "id", "session_id", "message_id", "time_created", "time_updated"}, path[0]):
		return sourcetest.Nowhere
	case table == "session" && path[0] == "table":
		return sourcetest.Nowhere
	case path[0] == "data" && len(path) == 2 && slices.Contains([]string{"id", "sessionID", "messageID"}, path[1]):
		return sourcetest.Nowhere
	case table == "part" && len(path) == 2 && path[0] == "data" && path[1] == "type":
		return sourcetest.Nowhere
	}
	return sourcetest.InPayload
}

// transcript is a mirror file of rows of random shapes.
func transcript(g *sourcetest.Gen) []string {
	var lines []string
	if g.IntN(5) != 0 {
		lines = append(lines, sourcetest.JSONLine(map[string]any{"table": "session", "id": "ses_1", "title": g.Text(), "directory": g.Text(),
			"parent_id": g.AnyOf(nil, g.Text()), "time_created": g.IntN(1 << 40), "time_updated": g.IntN(1 << 40), "db": g.Text()}))
	}
	for i := range g.IntN(24) {
		lines = append(lines, sourcetest.JSONLine(genRow(g, i)))
	}
	return lines
}

// genRow is the i-th row of a mirror file, mostly of OpenCode's shapes.
func genRow(g *sourcetest.Gen, i int) map[string]any {
	r := map[string]any{"id": fmt.Sprintf("r%07d", i), "session_id": "ses_1", "time_created": g.AnyOf(g.IntN(1<<40), g.Str()), "time_updated": g.IntN(1 << 40)}
	switch g.IntN(10) {
	case 0, 1:
		r["table"] = "message"
		d := map[string]any{"role": g.Pick("user", "assistant", g.Str()), "time": map[string]any{"created": g.IntN(1 << 40)}}
		if g.IntN(2) == 0 {
			d["modelID"], d["providerID"], d["cost"], d["path"] = g.Text(), g.Text(), 0.01, map[string]any{"cwd": g.Text()}
			d["tokens"] = map[string]any{"input": g.AnyOf(g.IntN(5000), g.Str()), "output": g.IntN(300), "reasoning": g.IntN(9), "cache": map[string]any{"read": g.IntN(4000), "write": g.IntN(100)}}
		}
		if g.IntN(5) == 0 {
			d["error"] = g.Value(2)
		}
		r["data"] = g.AnyOf(d, d, g.Str())
	case 2:
		r["table"] = "session"
		r["title"], r["directory"] = g.Text(), g.Text()
	case 3:
		r["table"] = g.Str()
		r[g.Key()] = g.Value(2)
	default:
		r["table"], r["message_id"] = "part", "m1"
		r["data"] = part(g)
	}
	if g.IntN(6) == 0 {
		r[g.Key()] = g.Value(2)
	}
	return r
}

// part is a part's data, mostly of a type OpenCode writes.
func part(g *sourcetest.Gen) any {
	p := map[string]any{"id": g.Text(), "sessionID": g.Text(), "messageID": g.Text()}
	switch g.IntN(8) {
	case 0, 1:
		p["type"], p["text"] = g.Pick("text", "reasoning"), g.Text()
		if g.IntN(3) == 0 {
			p["synthetic"], p["time"] = true, map[string]any{"start": g.IntN(9)}
		}
	case 2, 3:
		st := map[string]any{"status": g.Pick("pending", "running", "completed", "error", g.Str()), "input": g.Value(2)}
		st["output"], st["error"], st["title"], st["metadata"] = g.Text(), g.Text(), g.Text(), g.Value(2)
		p["type"], p["callID"], p["tool"], p["state"] = "tool", g.Text(), g.Text(), g.AnyOf(st, st, g.Str())
	case 4:
		p["type"], p["auto"] = "compaction", g.AnyOf(true, false, g.Text())
	case 5:
		p["type"], p["reason"], p["tokens"] = g.Pick("step-start", "step-finish", "patch", "file", "agent", "subtask"), g.Text(), g.Value(2)
	case 6:
		p["type"] = g.Str()
		p[g.Key()] = g.Value(2)
	default:
		return g.AnyOf(g.Str(), g.Value(2))
	}
	if g.IntN(6) == 0 {
		p[g.Key()] = g.Value(2)
	}
	return p
}
