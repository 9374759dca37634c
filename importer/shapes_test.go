package importer

import (
	"bytes"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

// convertLines converts lines, each a transcript line, as one import of
// a quiet file does, and returns the entries made, without the session's
// first anchor, and the errors of its lines.
func convertLines(t *testing.T, f *Format, lines ...string) (entries []string, errs []error) {
	t.Helper()
	conv, err := f.newConverter("/x/rollout-s-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	var outs []Output
	offset := int64(0)
	for i, line := range lines {
		o, err := conv.line(tapelog.RawLine{No: i + 1, Offset: offset, Data: []byte(line)})
		if err != nil {
			errs = append(errs, err)
		}
		outs = append(outs, o...)
		offset += int64(len(line)) + 1
	}
	outs = append(outs, conv.flush()...)
	for _, o := range outs {
		checkOutput(t, o)
		if o.Anchor && bytes.Contains(o.Entry.Payload, []byte(`"session/start"`)) {
			continue
		}
		entries = append(entries, o.Entry.Kind+" "+string(o.Entry.Payload))
	}
	return entries, errs
}

type shapeCase struct {
	name  string
	lines []string
	want  []string // kind and payload of each entry made
}

func testShapes(t *testing.T, f *Format, cases []shapeCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := convertLines(t, f, tc.lines...)
			if len(errs) > 0 {
				t.Errorf("errors %v", errs)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("made\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// A Codex record whose text is of another shape than the mapping reads
// keeps its text: a string content is the text, and what the mapping
// cannot read is an event of the whole payload, never an empty entry.
func TestCodexOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	item := func(payload string) string {
		return `{"timestamp":"2025-10-30T09:00:01.000Z","type":"response_item","payload":` + payload + `}`
	}
	event := func(payload string) string {
		return `{"timestamp":"2025-10-30T09:00:01.000Z","type":"event_msg","payload":` + payload + `}`
	}
	meta := func(members string) string {
		return `{"timestamp":"2025-10-30T09:00:00.000Z","type":"session_meta","payload":{"id":"019a2d7a-41c4-78b1-b7cc-a45d62a89cd5",` + members + `}}`
	}
	testShapes(t, Codex, []shapeCase{
		{"content a string", []string{item(`{"type":"message","role":"user","content":"fix the build"}`)},
			[]string{`message {"content":"fix the build","role":"user"}`}},
		{"assistant content a string", []string{item(`{"type":"message","role":"assistant","content":"done"}`)},
			[]string{`message {"content":"done","role":"assistant"}`}},
		{"text part a number", []string{item(`{"type":"message","role":"user","content":[{"type":"input_text","text":42}]}`)},
			[]string{`event {"data":{"type":"message","role":"user","content":[{"type":"input_text","text":42}]},"name":"codex/message"}`}},
		{"text part an object", []string{item(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":{"value":"hidden"}}]}`)},
			[]string{`event {"data":{"type":"message","role":"assistant","content":[{"type":"output_text","text":{"value":"hidden"}}]},"name":"codex/message"}`}},
		{"text part null", []string{item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":null}]}`)},
			[]string{`event {"data":{"type":"message","role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":null}]},"name":"codex/message"}`}},
		{"part a string", []string{item(`{"type":"message","role":"user","content":["loose words"]}`)},
			[]string{`event {"data":{"type":"message","role":"user","content":["loose words"]},"name":"codex/message"}`}},
		{"a refusal part", []string{item(`{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"I can't"}]}`)},
			[]string{`event {"data":{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"I can't"}]},"name":"codex/message"}`}},
		{"content missing", []string{item(`{"type":"message","role":"user"}`)},
			[]string{`event {"data":{"type":"message","role":"user"},"name":"codex/message"}`}},
		{"content an object", []string{item(`{"type":"message","role":"user","content":{"text":"hi"}}`)},
			[]string{`event {"data":{"type":"message","role":"user","content":{"text":"hi"}},"name":"codex/message"}`}},
		{"developer content a string", []string{item(`{"type":"message","role":"developer","content":"be brief"}`)},
			[]string{`system {"content":"be brief"}`}},
		{"an image and a text", []string{item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"see"},{"type":"input_image","image_url":"data:image/png;base64,AA=="}]}`)},
			[]string{`message {"content":[{"text":"see","type":"text"},{"image_url":{"url":"data:image/png;base64,AA=="},"type":"image_url"}],"role":"user"}`}},
		{"summary a string", []string{item(`{"type":"reasoning","summary":"thought it over"}`)},
			[]string{`event {"name":"reasoning","data":{"summary":"thought it over"}}`}},
		{"summary text a number", []string{item(`{"type":"reasoning","summary":[{"type":"summary_text","text":7}]}`)},
			[]string{`event {"data":{"type":"reasoning","summary":[{"type":"summary_text","text":7}]},"name":"codex/reasoning"}`}},
		{"reasoning content a string", []string{item(`{"type":"reasoning","summary":[],"content":"raw thoughts"}`)},
			[]string{`event {"name":"reasoning","data":{"summary":"","content":"raw thoughts"}}`}},
		{"reasoning content an object", []string{item(`{"type":"reasoning","summary":[],"content":{"text":"raw"}}`)},
			[]string{`event {"data":{"type":"reasoning","summary":[],"content":{"text":"raw"}},"name":"codex/reasoning"}`}},
		{"agent_reasoning text a number", []string{event(`{"type":"agent_reasoning","text":3}`)},
			[]string{`event {"data":{"type":"agent_reasoning","text":3},"name":"codex/agent_reasoning"}`}},
		{"user_message without its message", []string{event(`{"type":"user_message","message":null,"images":["data:x"]}`)},
			[]string{`event {"data":{"type":"user_message","message":null,"images":["data:x"]},"name":"codex/user_message"}`}},
		{"payload null", []string{item(`null`)},
			[]string{`event {"data":null,"name":"codex/response_item"}`}},
		{"payload a string", []string{event(`"words"`)},
			[]string{`event {"data":"words","name":"codex/event_msg"}`}},
		{"item without a type", []string{item(`{"text":"words"}`)},
			[]string{`event {"data":{"text":"words"},"name":"codex/response_item"}`}},
		{"git a string", []string{meta(`"git":"main"`)},
			[]string{`event {"data":{"id":"019a2d7a-41c4-78b1-b7cc-a45d62a89cd5","git":"main"},"name":"codex/session_meta"}`}},
		{"git branch a number, and instructions", []string{meta(`"instructions":"be brief","git":{"branch":5}`)}, []string{
			`system {"content":"be brief"}`,
			`event {"data":{"id":"019a2d7a-41c4-78b1-b7cc-a45d62a89cd5","instructions":"be brief","git":{"branch":5}},"name":"codex/session_meta"}`,
		}},
		{"a subagent's parent a number", []string{meta(`"source":{"subagent":{"thread_spawn":{"parent_thread_id":7}}}`)},
			[]string{`event {"data":{"id":"019a2d7a-41c4-78b1-b7cc-a45d62a89cd5","source":{"subagent":{"thread_spawn":{"parent_thread_id":7}}}},"name":"codex/session_meta"}`}},
		{"source a string", []string{meta(`"source":"cli","git":{"branch":"main"}`)}, nil},
	})
}

// A Claude Code record whose blocks are of other shapes than the mapping
// reads keeps them as written, never an empty entry.
func TestClaudeOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	line := func(typ, content string) string {
		return `{"type":"` + typ + `","uuid":"u1","sessionId":"s1","timestamp":"2025-11-03T14:05:00.000Z","message":{"id":"m1","role":"` + typ + `","content":` + content + `}}`
	}
	testShapes(t, Claude, []shapeCase{
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
	})
}
