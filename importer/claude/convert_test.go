package claude

import (
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden transcripts and lines of odd shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]}}`+"\n"+`{"type":"system","subtype":"compact_boundary"}`+"\n",
		`{"type":"user","isSidechain":true,"agentId":"../..","message":{"content":null}}`+"\n",
		`{"type":"x"}`+"\n"+`[1]`+"\n"+`{"type":1}`+"\n")
}

// A Claude Code record whose blocks are of other shapes than the mapping
// reads keeps them as written, never an empty entry.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	line := func(typ, content string) string {
		return `{"type":"` + typ + `","uuid":"u1","sessionId":"s1","timestamp":"2025-11-03T14:05:00.000Z","message":{"id":"m1","role":"` + typ + `","content":` + content + `}}`
	}
	for _, tc := range []shapeCase{
		{"assistant text a number", []string{line("assistant", `[{"type":"text","text":5}]`)},
			[]string{`event {"data":{"type":"text","text":5},"name":"claude/block"}`}},
		{"assistant block a string", []string{line("assistant", `["plain words"]`)},
			[]string{`event {"data":"plain words","name":"claude/block"}`}},
		{"assistant block without a type", []string{line("assistant", `[{"text":"untyped"}]`)},
			[]string{`event {"data":{"text":"untyped"},"name":"claude/block"}`}},
		{"tool_use id an object", []string{line("assistant", `[{"type":"tool_use","id":{"k":"v"},"name":"Bash","input":{}}]`)},
			[]string{`event {"data":{"type":"tool_use","id":{"k":"v"},"name":"Bash","input":{}},"name":"claude/block"}`}},
		{"thinking signature a number", []string{line("assistant", `[{"type":"thinking","thinking":"hm","signature":9}]`)},
			[]string{`event {"data":{"type":"thinking","thinking":"hm","signature":9},"name":"claude/block"}`}},
		{"assistant without blocks", []string{line("assistant", `[]`)},
			[]string{`event {"data":{"message":{"id":"m1","role":"assistant","content":[]}},"name":"claude/assistant"}`}},
		{"assistant content a string", []string{line("assistant", `"said plainly"`)},
			[]string{`message {"role":"assistant","content":"said plainly"}`}},
		{"tool_result id a number", []string{line("user", `[{"type":"tool_result","tool_use_id":12,"content":"output"}]`)},
			[]string{`message {"role":"user","content":[{"type":"tool_result","tool_use_id":12,"content":"output"}]}`}},
		{"is_error a string", []string{line("user", `[{"type":"tool_result","tool_use_id":"t","content":"x","is_error":"yes"}]`)},
			[]string{`message {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x","is_error":"yes"}]}`}},
		{"uuid a number", []string{`{"type":"user","uuid":5,"timestamp":"2025-11-03T14:05:00.000Z","message":{"content":"hi"}}`},
			[]string{`event {"data":{"type":"user","uuid":5,"timestamp":"2025-11-03T14:05:00.000Z","message":{"content":"hi"}},"name":"claude/user"}`}},
		{"a compact summary with a tool result", []string{
			`{"type":"system","subtype":"compact_boundary","uuid":"b1","sessionId":"s1","timestamp":"2025-11-03T14:05:00.000Z","compactMetadata":{"trigger":"auto"}}`,
			`{"type":"user","uuid":"u2","sessionId":"s1","timestamp":"2025-11-03T14:05:01.000Z","isCompactSummary":true,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"kept"}]}}`,
		}, []string{
			`anchor {"name":"compact","state":{"compact":{"trigger":"auto"},"source":"claude"}}`,
			`tool_result {"results":[{"tool_call_id":"t9","content":"kept"}]}`,
		}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}

// shapeCase is a table case: lines, and the kind and payload of each
// entry they make.
type shapeCase struct {
	name  string
	lines []string
	want  []string
}
