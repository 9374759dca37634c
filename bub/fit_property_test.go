package bub

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/short"
)

// randomTape makes a tape as agents write them, from a seed: messages of
// random sizes in Latin and CJK text, tool calls of 1 to 3 calls answered
// by position in one entry or by id one entry each (out of order, with
// messages and anchors between), turns whose calls take two entries,
// results that answer no call, anchors, entries that make no message, and
// entries whose meta.context is false. Each result says which tool_call
// entry it answers ("res <entry id>"), or "orphan", so the test knows the
// pairing without asking Context.
func randomTape(r *rand.Rand) []tapelog.Entry {
	var es []tapelog.Entry
	add := func(kind, payload, meta string) string {
		id := fmt.Sprintf("e%d", len(es)+1)
		es = append(es, tapelog.Entry{ID: id, Kind: kind, Payload: json.RawMessage(payload), Meta: json.RawMessage(meta)})
		return id
	}
	text := func() string { return randomText(r) }
	between := func() { // what may come between a call and its results
		switch r.IntN(6) {
		case 0:
			add("message", `{"role":"assistant","content":`+quote(text())+`}`, "")
		case 1:
			add("anchor", `{"name":"mid","state":{"note":`+quote(text())+`}}`, "")
		case 2:
			add("event", `{"name":"run"}`, "")
		}
	}
	for n := 4 + r.IntN(30); n > 0; n-- {
		switch r.IntN(8) {
		case 0:
			add("anchor", `{"name":"phase","state":{"summary":`+quote(text())+`}}`, "")
		case 1, 2:
			add("message", `{"role":"user","content":`+quote(text())+`}`, "")
		case 3:
			add("message", `{"role":"user","content":"hidden"}`, `{"context":false}`)
			add("system", `{"content":"s"}`, "")
		case 4:
			add("tool_result", `{"results":[{"call_id":"nowhere","output":"orphan `+text()+`"}]}`, "")
		case 5:
			positionalTurn(r, add, between)
		default:
			idTurn(r, add, between)
		}
	}
	return es
}

// positionalTurn is a tool_call entry of 1 to 3 calls without ids, and one
// tool_result entry answering them by position, now and then with one
// result more than calls.
func positionalTurn(r *rand.Rand, add func(kind, payload, meta string) string, between func()) {
	k := 1 + r.IntN(3)
	call := add("tool_call", `{"calls":[`+strings.Repeat(`{"function":{"name":"f","arguments":"{}"}},`, k-1)+`{"function":{"name":"f"}}]}`, "")
	between()
	results := make([]string, k)
	for i := range results {
		results[i] = quote("res " + call + " " + randomText(r))
	}
	if r.IntN(3) == 0 { // a result past the calls answers none
		results = append(results, quote("orphan "+randomText(r)))
	}
	add("tool_result", `{"results":[`+strings.Join(results, ",")+`]}`, "")
}

// idTurn is the calls of one turn, in one tool_call entry or two in a row,
// and one tool_result entry per call, carrying its id, in random order.
func idTurn(r *rand.Rand, add func(kind, payload, meta string) string, between func()) {
	type call struct{ id, entry string }
	var calls []call
	for e := 1 + r.IntN(2); e > 0; e-- {
		k := 1 + r.IntN(3)
		ids := make([]string, k)
		items := make([]string, k)
		for i := range ids {
			ids[i] = fmt.Sprintf("c%d", r.Uint32())
			items[i] = `{"id":"` + ids[i] + `","function":{"name":"g","arguments":` + quote(randomText(r)) + `}}`
		}
		entry := add("tool_call", `{"calls":[`+strings.Join(items, ",")+`]}`, "")
		for _, id := range ids {
			calls = append(calls, call{id, entry})
		}
	}
	r.Shuffle(len(calls), func(i, j int) { calls[i], calls[j] = calls[j], calls[i] })
	for _, c := range calls {
		between()
		add("tool_result", `{"results":[{"tool_call_id":"`+c.id+`","content":`+quote("res "+c.entry+" "+randomText(r))+`}]}`, "")
	}
}

// randomText is 0 to a few hundred runes of Latin words and CJK.
func randomText(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(1 + r.IntN(300)); n > 0; n-- {
		switch r.IntN(10) {
		case 0:
			b.WriteRune(rune(0x4e00 + r.IntN(0x5000)))
		case 1:
			b.WriteString("é ")
		default:
			b.WriteByte(byte('a' + r.IntN(26)))
		}
	}
	return b.String()
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// answers is the tool_call entry a tool message answers, as its content
// says; "" for a result that answers none, and for other messages.
func answers(m Message) string {
	if m.Kind != tapelog.KindToolResult || !strings.HasPrefix(m.Content, "res ") {
		return ""
	}
	id, _, _ := strings.Cut(strings.TrimPrefix(m.Content, "res "), " ")
	return id
}

// TestFitTokensProperty: over many random tapes and budgets, what
// FitTokens keeps fits the budget by the estimate, unless it is the anchor
// note alone; never holds a tool result without its call, nor part of a
// tool_result entry; is a suffix of the context, in order, but for the
// newest anchor note, which it always keeps; and is the longest such
// suffix: it dropped the oldest first, and only as much as it had to.
func TestFitTokensProperty(t *testing.T) {
	t.Parallel()
	for seed := range short.Seeds(400) {
		r := rand.New(rand.NewPCG(seed, 20))
		msgs := Context(randomTape(r))
		total := 0
		for _, m := range msgs {
			total += EstimateTokens(m)
		}
		budgets := []int{0, 1, total, total + 1}
		for range 8 {
			budgets = append(budgets, r.IntN(total+2))
		}
		slices.Sort(budgets)
		prev := 0
		for _, budget := range budgets {
			kept := checkFitted(t, seed, msgs, FitTokens(msgs, budget), budget)
			if kept < prev {
				t.Errorf("seed %d budget %d: kept %d messages, %d with a smaller budget", seed, budget, kept, prev)
			}
			if budget >= total && kept != len(msgs) {
				t.Errorf("seed %d budget %d >= total %d: kept %d of %d", seed, budget, total, kept, len(msgs))
			}
			prev = kept
		}
	}
}

// checkFitted checks one FitTokens result against the properties, and
// returns how many messages it kept.
func checkFitted(t *testing.T, seed uint64, msgs []Message, f Fitted, budget int) int {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("seed %d budget %d: "+format, append([]any{seed, budget}, args...)...)
	}
	idx := keptIndexes(msgs, f.Messages)
	if f.Messages == nil || idx == nil {
		fail("kept messages are not the context's, in order")
		return 0
	}
	pin := -1
	for i, m := range msgs {
		if m.Kind == tapelog.KindAnchor {
			pin = i
		}
	}
	// A suffix, but for the newest anchor note, which is always kept.
	rest := idx
	if len(rest) > 0 && rest[0] == pin && pin != len(msgs)-1 && (len(rest) == 1 || rest[1] != pin+1) {
		rest = rest[1:]
	}
	cut := len(msgs) - len(rest)
	for j, i := range rest {
		if i != cut+j {
			fail("kept %v: not a suffix of the %d messages and the anchor note %d", idx, len(msgs), pin)
			break
		}
	}
	if pin >= 0 && !slices.Contains(idx, pin) {
		fail("the newest anchor note, message %d, was dropped", pin)
	}
	// The estimate, and the budget.
	est := 0
	for _, m := range f.Messages {
		est += EstimateTokens(m)
	}
	if f.Estimate != est || f.MaxTokens != budget {
		fail("Estimate %d MaxTokens %d, want %d and %d", f.Estimate, f.MaxTokens, est, budget)
	}
	if est > budget && !(len(idx) == 1 && idx[0] == pin) {
		fail("estimate %d over the budget with %v kept", est, idx)
	}
	// A result never without its call, an entry never split.
	for _, i := range idx {
		if call := answers(msgs[i]); call != "" && !keptEntry(msgs, idx, call) {
			fail("message %d (%.40q) kept without its call %s", i, msgs[i].Content, call)
		}
	}
	if !validCut(msgs, cut) {
		fail("cut at %d separates a result from its call or splits an entry", cut)
	}
	// The oldest dropped first, and no more than had to be: the nearest
	// cut before it that separates nothing does not fit.
	for k := cut - 1; k >= 0; k-- {
		if k == pin || !validCut(msgs, k) {
			continue
		}
		need := 0
		for i, m := range msgs {
			if i >= k || i == pin {
				need += EstimateTokens(m)
			}
		}
		if need <= budget {
			fail("kept from %d, but from %d fits too (%d <= %d)", cut, k, need, budget)
		}
		break
	}
	// Dropped counts the entries of the messages dropped.
	dropped := map[string]bool{}
	for i := range msgs[:cut] {
		if i != pin {
			dropped[msgs[i].EntryID] = true
		}
	}
	if f.Dropped != len(dropped) {
		fail("Dropped = %d, want %d", f.Dropped, len(dropped))
	}
	return len(idx)
}

// validCut reports whether msgs[k:] holds every call its results answer,
// and the whole of each tool_result entry, as the test's tape says.
func validCut(msgs []Message, k int) bool {
	if k > 0 && k < len(msgs) && msgs[k].Kind == tapelog.KindToolResult && msgs[k].EntryID == msgs[k-1].EntryID {
		return false
	}
	kept := map[string]bool{}
	for _, m := range msgs[k:] {
		kept[m.EntryID] = true
	}
	for _, m := range msgs[k:] {
		if call := answers(m); call != "" && !kept[call] {
			return false
		}
	}
	return true
}

// keptIndexes are the indexes in msgs of kept, matched in order; nil when
// kept is not a subsequence of msgs.
func keptIndexes(msgs, kept []Message) []int {
	idx := []int{}
	i := 0
	for _, k := range kept {
		for i < len(msgs) && !sameMessage(msgs[i], k) {
			i++
		}
		if i == len(msgs) {
			return nil
		}
		idx = append(idx, i)
		i++
	}
	return idx
}

func sameMessage(a, b Message) bool {
	ja, _ := a.MarshalJSON()
	jb, _ := b.MarshalJSON()
	return a.EntryID == b.EntryID && string(ja) == string(jb)
}

func keptEntry(msgs []Message, idx []int, id string) bool {
	for _, i := range idx {
		if msgs[i].EntryID == id {
			return true
		}
	}
	return false
}
