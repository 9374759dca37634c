package views

import (
	"encoding/json"
	"strings"
)

// The one rule by which a tool result answers a call, for the calls view
// (CallFold) and the context Bub builds (bub.Context) alike:
//
//   - a tool_call entry's calls become the pending calls, replacing any that
//     were (those stay unanswered for good), unless the tool entry before it
//     (tool_call, tool_result or error; other kinds do not count) is a
//     tool_call too: then its calls join the pending ones, because one
//     turn's calls may be written as several entries (an import that
//     mirrors a transcript while the model still writes its calls);
//   - a result that carries the id of the call it answers (tool_call_id,
//     Anthropic's tool_use_id or Codex's call_id) answers the pending call
//     with that id; if no pending call has it, it answers nothing and is an
//     orphan, reported and never attached to another call;
//   - a result without an id answers the pending call at its own position
//     in its tool_call entry (the latest one, when several are pending), as
//     Bub pairs them; results past the calls answer nothing;
//   - after a tool_result entry that holds a result without an id (or no
//     result at all), no call is pending, as in Bub; after one whose
//     results all carry ids, the calls it did not answer are still pending,
//     so results that come one per entry (Claude Code, Codex) find theirs.
//
// Two things only the calls view does, because Bub's context does not: an
// error entry answers every waiting call as failed (the context skips
// error entries, and its calls go on waiting), and entries whose
// meta.context is false count (the context leaves them out, as if they
// were not on the tape).

// ResultRef is what pairing needs of one result of a tool_result entry.
type ResultRef struct {
	CallID string // the id of the call it answers; "" when it carries none
	Failed bool   // it says the call failed
}

// MarshalJSON writes a result without an id as its bool alone, so a Bub
// tape's facts stay as small as they were.
func (r ResultRef) MarshalJSON() ([]byte, error) {
	if r.CallID == "" {
		return json.Marshal(r.Failed)
	}
	return json.Marshal(struct {
		CallID string `json:"call_id"`
		Failed bool   `json:"failed,omitempty"`
	}{r.CallID, r.Failed})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *ResultRef) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] != '{' {
		*r = ResultRef{}
		return json.Unmarshal(b, &r.Failed)
	}
	var v struct {
		CallID string `json:"call_id"`
		Failed bool   `json:"failed"`
	}
	err := json.Unmarshal(b, &v)
	*r = ResultRef{CallID: v.CallID, Failed: v.Failed}
	return err
}

// resultIDKeys are the keys a result object may carry its call's id under.
var resultIDKeys = [...]string{"tool_call_id", "tool_use_id", "call_id"}

// ParseResult reads one result of a tool_result entry (an item of
// Results): its call id, when it is an object that names one, and whether
// it says it failed, by the rule Extract applies to the payload it
// decoded. It is for a fold that, like Bub's context, works on the payload
// rather than on Facts. A result that does not decode carries no id.
func ParseResult(r json.RawMessage) ResultRef {
	var v any
	_ = json.Unmarshal(r, &v)
	return resultRef(v)
}

// resultRef reads a decoded result: its call id, when it is an object
// that names one, and whether it says it failed.
func resultRef(r any) ResultRef {
	ref := ResultRef{Failed: resultFailed(r)}
	if m, ok := r.(map[string]any); ok {
		ref.CallID = resultCallID(m)
	}
	return ref
}

func resultCallID(m map[string]any) string {
	for _, k := range resultIDKeys {
		if id, _ := m[k].(string); id != "" {
			return id
		}
	}
	return ""
}

// PendingRef is what pairing needs of a pending call: its id, its
// position in its tool_call entry, and whether that entry is the latest
// tool_call.
type PendingRef struct {
	ID     string
	Index  int
	Latest bool
}

// Match pairs the results of one tool_result entry with the pending calls.
// answers[i] is the position in pending of the call result i answers, or
// -1; orphan[i] says result i carries an id that no pending call has.
// Each pending call is answered at most once. ends says the entry ends the
// wait of every pending call it did not answer.
func Match(pending []PendingRef, results []ResultRef) (answers []int, orphan []bool, ends bool) {
	answers = make([]int, len(results))
	orphan = make([]bool, len(results))
	taken := make([]bool, len(pending))
	ends = len(results) == 0
	for i, r := range results {
		answers[i] = -1
		if r.CallID == "" {
			ends = true
			// By position: the call at i of the latest tool_call entry.
			for j, p := range pending {
				if p.Latest && p.Index == i && !taken[j] {
					answers[i], taken[j] = j, true
					break
				}
			}
			continue
		}
		for j, p := range pending {
			if !taken[j] && p.ID == r.CallID {
				answers[i], taken[j] = j, true
				break
			}
		}
		orphan[i] = answers[i] < 0
	}
	return answers, orphan, ends
}

// Orphan is a result whose call id no pending call has: it answers
// nothing, and is reported.
type Orphan struct {
	Entry  int64 // Ref of the tool_result entry
	Index  int   // position of the result in it
	CallID string
}

// isErrorText reports whether a tool's text output says it failed.
func isErrorText(s string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "error:")
}

// IsToolKind reports whether entries of a kind take part in pairing: the
// tool entry before a tool_call, which RestartsFold is asked about, is the
// last entry of such a kind.
func IsToolKind(kind string) bool {
	return kind == "tool_call" || kind == "tool_result" || kind == "error"
}

// RestartsFold reports whether a fold that starts afresh at a tool_call
// entry gives the same calls from there on as a fold of the whole tape: it
// does unless the tool entry before it is a tool_call too, whose pending
// calls it would join. prev is that entry's kind, "" for none.
func RestartsFold(prev string) bool { return prev != "tool_call" }
