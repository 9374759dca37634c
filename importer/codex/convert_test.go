package codex

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden rollouts and lines of odd shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		`{"type":"response_item","payload":{"type":"function_call","call_id":"c","arguments":7}}`+"\n"+`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":-5}}}}`+"\n",
		`{"id":1}`+"\n"+`{"record_type":"state"}`+"\n"+`{"type":"message"}`+"\n")
}

// shapeCase is a table case: lines, and the kind and payload of each
// entry they make.
type shapeCase struct {
	name  string
	lines []string
	want  []string
}

// A Codex record whose text is of another shape than the mapping reads
// keeps its text: a string content is the text, and what the mapping
// cannot read is an event of the whole payload, never an empty entry.
func TestOddShapesKeepTheirText(t *testing.T) {
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
	for _, tc := range []shapeCase{
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
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}

// convertScribbled converts lines through one converter, each line in the
// same buffer as the importer's line reader gives them; scribble
// overwrites the buffer after each line. It returns the entries, rendered
// once every line has been read, and the state after each line.
func convertScribbled(t *testing.T, lines [][]byte, scribble bool) (entries, states []string) {
	t.Helper()
	conv, err := Source{}.NewConverter(sourcetest.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var outs []source.Output
	buf := make([]byte, 0, 1<<16)
	for i, l := range lines {
		data := append(buf[:0], l...)
		o, _ := conv.Line(tapelog.RawLine{No: i + 1, Data: data})
		outs = append(outs, o...)
		state, err := conv.State()
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, string(state))
		if scribble {
			for j := range data {
				data[j] = '#'
			}
		}
	}
	outs = append(outs, conv.Flush()...)
	for _, o := range outs {
		e := o.Entry
		entries = append(entries, fmt.Sprintf("%s %v %s %s %s %s %s", o.Session.Key(), o.Anchor, e.ID, e.Kind, e.Date, e.Payload, e.Meta))
	}
	return entries, states
}

// The converter keeps nothing of a line's bytes, which decodeFast does not
// copy: the importer's line reader reads the next line into the same
// buffer.
func TestKeepsNothingOfTheLine(t *testing.T) {
	lines := goldenLines(t)
	wantEntries, wantStates := convertScribbled(t, lines, false)
	gotEntries, gotStates := convertScribbled(t, lines, true)
	if len(wantEntries) < len(lines)/2 {
		t.Fatalf("%d entries of %d lines", len(wantEntries), len(lines))
	}
	if !slices.Equal(gotEntries, wantEntries) {
		for i := range min(len(gotEntries), len(wantEntries)) {
			if gotEntries[i] != wantEntries[i] {
				t.Fatalf("entry %d of lines overwritten after reading:\n got %s\nwant %s", i, gotEntries[i], wantEntries[i])
			}
		}
		t.Fatalf("%d entries of lines overwritten after reading, want %d", len(gotEntries), len(wantEntries))
	}
	if !slices.Equal(gotStates, wantStates) {
		t.Fatalf("states of lines overwritten after reading differ")
	}
}

// While calls are held, State stays what it was at the first of them
// (st as that line found it, its date read): the lines between change
// nothing of it, for a checkpoint there resumes at the first held line
// (FuzzConverter resumes from every such state).
func TestStateWhileHeldStays(t *testing.T) {
	lines := goldenLines(t)
	// Each golden line a second time, after a message and a call: echoes
	// to change while calls are held.
	for _, l := range goldenLines(t) {
		lines = append(lines,
			[]byte(`{"timestamp":"2025-10-29T01:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":"hi"}}`),
			[]byte(`{"timestamp":"2025-10-29T01:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}}`),
			l)
	}
	conv, err := Source{}.NewConverter(sourcetest.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var first []byte // the state at the first held line
	held, changed := 0, 0
	for i, l := range lines {
		if _, err := conv.Line(tapelog.RawLine{No: i + 1, Data: l}); err != nil {
			continue
		}
		state, err := conv.State()
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := conv.Held(); !ok {
			first = nil
			continue
		}
		if held++; first == nil {
			first = state
			continue
		}
		if string(state) != string(first) {
			t.Fatalf("line %d, while calls are held: state\n%s\nwant the state at the first of them\n%s", i+1, state, first)
		}
		if st := conv.(*converter).st; st.Date != conv.(*converter).saved.Date || len(st.Echo) != len(conv.(*converter).saved.Echo) {
			changed++
		}
	}
	if held < len(lines)/4 || changed == 0 {
		t.Fatalf("calls held at %d lines of %d, %d of them with a state that changed", held, len(lines), changed)
	}
}
