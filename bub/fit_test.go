package bub

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    Message
		want int
	}{
		// {"role":"user","content":""} is 28 bytes: 10 tokens, rounded up.
		{"empty content", Message{Role: "user"}, 10},
		{"ASCII, a third of a token a byte", Message{Role: "user", Content: "hello"}, 11},
		{"a payload as it is", Message{Raw: json.RawMessage(`{"role":"user","content":"hi","x":1}`)}, 12},
		{"CJK runes one each", Message{Raw: json.RawMessage(`{"role":"user","content":"你好，世界。こんにちは한국"}`)}, 10 + 13},
		{"other runes by their bytes", Message{Role: "user", Content: "дé"}, 11},                                                   // 32 bytes
		{"tool calls and their ids", Message{Role: "assistant", ToolCalls: []json.RawMessage{json.RawMessage(`{"id":"c1"}`)}}, 20}, // 60 bytes
		{"JSON escapes are counted as sent", Message{Role: "tool", Content: "a\nb"}, 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateTokens(tt.m); got != tt.want {
				raw, _ := tt.m.MarshalJSON()
				t.Errorf("EstimateTokens(%s) = %d, want %d", raw, got, tt.want)
			}
		})
	}
}

// tape numbers entries e1, e2, … as a tape gives each its own id.
func tape(entries ...tapelog.Entry) []tapelog.Entry {
	for i := range entries {
		entries[i].ID = fmt.Sprintf("e%d", i+1)
	}
	return entries
}

func user(text string) tapelog.Entry {
	return entry("message", `{"role":"user","content":"`+text+`"}`, "")
}

// cost is the estimate of the messages at the given indexes.
func cost(msgs []Message, idx ...int) int {
	n := 0
	for _, i := range idx {
		n += EstimateTokens(msgs[i])
	}
	return n
}

func TestFitTokens(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("long ", 40)
	callsAB := entry("tool_call", `{"calls":[{"function":{"name":"a"}},{"function":{"name":"b"}}]}`, "")
	tests := []struct {
		name    string
		entries []tapelog.Entry
		budget  func(msgs []Message) int
		keep    []int // the indexes of Context's messages kept
		dropped int   // entries
	}{
		{"everything fits", tape(user("a"), user("b")),
			func(m []Message) int { return cost(m, 0, 1) }, []int{0, 1}, 0},
		{"the newest that fit, exactly", tape(user("a"), user("b"), user("c")),
			func(m []Message) int { return cost(m, 1, 2) }, []int{1, 2}, 1},
		{"one token short drops one more", tape(user("a"), user("b"), user("c")),
			func(m []Message) int { return cost(m, 1, 2) - 1 }, []int{2}, 2},
		{"a newest message too big keeps nothing, not an older one", tape(user("a"), user(long)),
			func(m []Message) int { return cost(m, 0) }, []int{}, 2},
		{"a call and its results go together", tape(user("a"), callsAB, entry("tool_result", `{"results":["r1","r2"]}`, "")),
			func(m []Message) int { return cost(m, 2, 3) }, []int{}, 3},
		{"a call and its results fit", tape(user("a"), callsAB, entry("tool_result", `{"results":["r1","r2"]}`, "")),
			func(m []Message) int { return cost(m, 1, 2, 3) }, []int{1, 2, 3}, 1},
		{"one turn's calls in two entries, answered by id after a message", tape(
			entry("tool_call", `{"calls":[{"id":"c1","function":{"name":"a"}}]}`, ""),
			entry("message", `{"role":"assistant","content":"and"}`, ""),
			entry("tool_call", `{"calls":[{"id":"c2","function":{"name":"b"}}]}`, ""),
			entry("tool_result", `{"results":[{"tool_call_id":"c1","content":"r1"}]}`, ""),
			entry("tool_result", `{"results":[{"tool_call_id":"c2","content":"r2"}]}`, "")),
			func(m []Message) int { return cost(m, 1, 2, 3, 4) }, []int{}, 5},
		{"one result entry is not split, even past its calls", tape(
			entry("tool_call", `{"calls":[{"id":"c1"}]}`, ""), entry("tool_result", `{"results":["r1","extra"]}`, "")),
			func(m []Message) int { return cost(m, 2) }, []int{}, 2},
		{"a result that answers no call stands alone", tape(entry("tool_result", `{"results":[{"call_id":"gone","output":"x"}]}`, ""), user("a")),
			func(m []Message) int { return cost(m, 0, 1) }, []int{0, 1}, 0},
		{"the newest anchor is kept in its place", tape(
			entry("anchor", `{"name":"one","state":{"n":1}}`, ""), user("a"),
			entry("anchor", `{"name":"two","state":{"n":2}}`, ""), user(long), user("b")),
			func(m []Message) int { return cost(m, 2, 4) }, []int{2, 4}, 3},
		{"a kept anchor is not kept twice", tape(entry("anchor", `{"name":"one"}`, ""), user("a")),
			func(m []Message) int { return cost(m, 0, 1) }, []int{0, 1}, 0},
		{"the anchor alone over the budget", tape(entry("anchor", `{"name":"one","state":{"n":1}}`, ""), user("a")),
			func([]Message) int { return 1 }, []int{0}, 1},
		{"a result past the anchor keeps its call before it", tape(
			callsAB, entry("anchor", `{"name":"one"}`, ""), entry("tool_result", `{"results":["r1","r2"]}`, ""), user("a")),
			func(m []Message) int { return cost(m, 1, 2, 3, 4) }, []int{1, 4}, 2},
		{"no budget keeps nothing", tape(user("a")),
			func([]Message) int { return 0 }, []int{}, 1},
		{"nothing to fit", nil, func([]Message) int { return 5 }, []int{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := Context(tt.entries)
			budget := tt.budget(msgs)
			got := FitTokens(msgs, budget)
			want := make([]Message, len(tt.keep))
			for i, k := range tt.keep {
				want[i] = msgs[k]
			}
			if g, w := marshal(t, got.Messages), marshal(t, want); g != w {
				t.Errorf("kept\n%s\nwant\n%s", g, w)
			}
			if got.Dropped != tt.dropped {
				t.Errorf("Dropped = %d, want %d", got.Dropped, tt.dropped)
			}
			if e := cost(msgs, tt.keep...); got.Estimate != e {
				t.Errorf("Estimate = %d, want %d", got.Estimate, e)
			}
			if got.MaxTokens != budget || got.OverBudget() != (got.Estimate > budget) {
				t.Errorf("MaxTokens = %d, OverBudget = %v; budget %d, estimate %d", got.MaxTokens, got.OverBudget(), budget, got.Estimate)
			}
		})
	}
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	if s, ok := v.([]Message); ok && s == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestContextTiesResultsToCalls: Context names the tool_call entry a
// tool message answers, by id or by position, and no other.
func TestContextTiesResultsToCalls(t *testing.T) {
	t.Parallel()
	msgs := Context(tape(
		entry("tool_call", `{"calls":[{"function":{"name":"a"}}]}`, ""),
		entry("tool_result", `{"results":["by position","past the calls"]}`, ""),
		entry("tool_call", `{"calls":[{"id":"c1"}]}`, ""),
		entry("tool_result", `{"results":[{"tool_call_id":"c1","content":"by id"}]}`, ""),
		entry("tool_result", `{"results":[{"tool_call_id":"c9","content":"no such call"}]}`, ""),
		entry("anchor", `{"name":"n"}`, ""), user("u")))
	var got []string
	for _, m := range msgs {
		got = append(got, m.Kind+":"+m.EntryID+"<"+m.CallEntryID)
	}
	want := "tool_call:e1< tool_result:e2<e1 tool_result:e2< tool_call:e3< tool_result:e4<e3 tool_result:e5< anchor:e6< message:e7<"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

// TestFittedJSON: a fitted context is one object, its messages as they are
// sent (no HTML escapes where the encoder asks for none), "messages" an
// array even when empty.
func TestFittedJSON(t *testing.T) {
	t.Parallel()
	msgs := Context(tape(entry("anchor", `{"name":"a"}`, ""), user("<b>&</b>")))
	tests := []struct {
		f    Fitted
		want string
	}{
		{Fitted{}, `{"messages":[],"dropped":0,"estimate":0,"max_tokens":0,"over_budget":false}`},
		{FitTokens(msgs, 100), `{"messages":[{"role":"assistant","content":"[Anchor created: a]: null"},{"role":"user","content":"<b>&</b>"}],"dropped":0,"estimate":32,"max_tokens":100,"over_budget":false}`},
		{FitTokens(msgs, 5), `{"messages":[{"role":"assistant","content":"[Anchor created: a]: null"}],"dropped":1,"estimate":20,"max_tokens":5,"over_budget":true}`},
	}
	for _, tt := range tests {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // as the CLI writes JSON
		if err := enc.Encode(tt.f); err != nil || strings.TrimSpace(b.String()) != tt.want {
			t.Errorf("got  %s, %v\nwant %s", b.String(), err, tt.want)
		}
	}
}
