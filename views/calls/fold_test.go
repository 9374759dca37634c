package calls

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/views"
)

// fold runs the fold over entries written as "kind:facts" (refs 1, 2, ...)
// and describes the calls as "entry.index id name status answered-by".
func fold(t *testing.T, entries ...string) []string {
	t.Helper()
	var f CallFold
	var calls []Call
	var orphans []string
	for i, e := range entries {
		kind, facts, _ := strings.Cut(e, ":")
		fa, err := views.DecodeFacts(facts)
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, f.Add(ToolEntry{Ref: int64(i + 1), Kind: kind, Facts: fa})...)
		for _, o := range f.Orphans() {
			orphans = append(orphans, fmt.Sprintf("orphan %d.%d %s", o.Entry, o.Index, o.CallID))
		}
	}
	calls = append(calls, f.Flush()...)
	var out []string
	for _, c := range calls {
		out = append(out, fmt.Sprintf("%d.%d %s %s %s %d.%d", c.Entry, c.Index, c.ID, c.Name, c.Status, c.ResultEntry, c.ResultIndex))
	}
	slices.Sort(out) // the order calls are settled in is no contract
	return append(out, orphans...)
}

func TestCallFold(t *testing.T) {
	two := `tool_call:{"calls":[{"id":"a","name":"bash"},{"id":"b","name":"read"}]}`
	tests := []struct {
		name    string
		entries []string
		want    []string
	}{
		{"never answered", []string{two}, []string{"1.0 a bash pending 0.0", "1.1 b read pending 0.0"}},
		{"several calls, answered in order", []string{two, `tool_result:{"results":[false,true]}`},
			[]string{"1.0 a bash completed 2.0", "1.1 b read failed 2.1"}},
		{"fewer results than calls", []string{two, `tool_result:{"results":[false]}`},
			[]string{"1.0 a bash completed 2.0", "1.1 b read pending 0.0"}},
		{"more results than calls", []string{`tool_call:{"calls":[{"id":"a","name":"bash"}]}`, `tool_result:{"results":[false,false,true]}`},
			[]string{"1.0 a bash completed 2.0"}},
		{"a new call replaces the pending ones", []string{two, `tool_call:{"calls":[{"id":"c","name":"grep"}]}`, `tool_result:{"results":[true]}`},
			[]string{"1.0 a bash pending 0.0", "1.1 b read pending 0.0", "2.0 c grep failed 3.0"}},
		{"an error answers what is pending", []string{two, `error:`, `tool_result:{"results":[false]}`},
			[]string{"1.0 a bash failed 2.-1", "1.1 b read failed 2.-1"}},
		{"a result with nothing pending", []string{`tool_result:{"results":[false]}`}, nil},
		{"an empty call list clears", []string{two, `tool_call:{"calls":[]}`, `tool_result:{"results":[false]}`},
			[]string{"1.0 a bash pending 0.0", "1.1 b read pending 0.0"}},
		// Results that carry ids, one per entry, as Claude Code and Codex
		// write them: each finds its call, in any order, and the others
		// keep waiting.
		{"results by id, one per entry, out of order", []string{two, `tool_result:{"results":[{"call_id":"b","failed":true}]}`, `tool_result:{"results":[{"call_id":"a"}]}`},
			[]string{"1.0 a bash completed 3.0", "1.1 b read failed 2.0"}},
		{"results by id in one entry", []string{two, `tool_result:{"results":[{"call_id":"b"},{"call_id":"a","failed":true}]}`},
			[]string{"1.0 a bash failed 2.1", "1.1 b read completed 2.0"}},
		{"an id that no call has is an orphan, not attached", []string{two, `tool_result:{"results":[{"call_id":"zz"}]}`, `tool_result:{"results":[{"call_id":"a"}]}`},
			[]string{"1.0 a bash completed 3.0", "1.1 b read pending 0.0", "orphan 2.0 zz"}},
		{"a second result for an answered call is an orphan", []string{two, `tool_result:{"results":[{"call_id":"a"}]}`, `tool_result:{"results":[{"call_id":"a"}]}`},
			[]string{"1.0 a bash completed 2.0", "1.1 b read pending 0.0", "orphan 3.0 a"}},
		{"a result without an id ends the wait of the rest", []string{two, `tool_result:{"results":[{"call_id":"b"},false]}`, `tool_result:{"results":[{"call_id":"a"}]}`},
			[]string{"1.0 a bash pending 0.0", "1.1 b read completed 2.0", "orphan 3.0 a"}},
		{"by position, a result skips a call answered by id", []string{two, `tool_result:{"results":[{"call_id":"a"}]}`, `tool_result:{"results":[false,false]}`},
			[]string{"1.0 a bash completed 2.0", "1.1 b read completed 3.1"}},
		{"one turn's calls written as two entries join", []string{`tool_call:{"calls":[{"id":"a","name":"bash"}]}`, `tool_call:{"calls":[{"id":"b","name":"read"}]}`,
			`tool_result:{"results":[{"call_id":"b"}]}`, `tool_result:{"results":[{"call_id":"a"}]}`},
			[]string{"1.0 a bash completed 4.0", "2.0 b read completed 3.0"}},
		{"by position, only the latest entry's calls are answered", []string{`tool_call:{"calls":[{"id":"a","name":"bash"}]}`, `tool_call:{"calls":[{"id":"b","name":"read"}]}`,
			`tool_result:{"results":[false,false]}`},
			[]string{"1.0 a bash pending 0.0", "2.0 b read completed 3.0"}},
		{"a new call ends the wait of calls answered by nothing", []string{two, `tool_result:{"results":[{"call_id":"a"}]}`, `tool_call:{"calls":[{"id":"c","name":"grep"}]}`, `tool_result:{"results":[{"call_id":"b"}]}`},
			[]string{"1.0 a bash completed 2.0", "1.1 b read pending 0.0", "3.0 c grep pending 0.0", "orphan 4.0 b"}},
	}
	for _, tt := range tests {
		if got := fold(t, tt.entries...); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestCallDuration(t *testing.T) {
	at := func(ns int64) *int64 { return &ns }
	c := Call{CalledAt: at(1_000_000_000), AnsweredAt: at(3_500_000_000)}
	if d, ok := c.DurationMS(); !ok || d != 2500 {
		t.Errorf("DurationMS = %d, %v; want 2500", d, ok)
	}
	if _, ok := (Call{CalledAt: at(1)}).DurationMS(); ok {
		t.Error("a pending call has a duration")
	}
}
