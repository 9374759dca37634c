package bub

import (
	"bytes"
	"encoding/json"
	"unicode"
	"unicode/utf8"

	tapelog "github.com/tape-dev/tape/log"
)

// EstimateTokens estimates the tokens a message costs a model, without a
// tokenizer, from its JSON as it is sent (MarshalJSON): each CJK rune
// (Han, kana, Hangul, and CJK and fullwidth punctuation) counts one token,
// and every other byte a third of one, rounded up. The JSON's keys and
// quotes stand for the tokens that frame a message (3 or 4 in OpenAI's
// chat format), so nothing is added for them.
//
// It leans high, as a budget should. Checked against OpenAI's o200k_base
// and cl100k_base encodings (docs/CLI.md, "tape context"), it is
// 1.2 to 1.4 times their count for English prose, code and tool calls,
// about their count for JSON data and, under cl100k_base, for Chinese,
// Japanese and Korean text (1.5 times o200k_base's), and two or three
// times it for messages of a few words. An exact tokenizer is a later
// option.
func EstimateTokens(m Message) int {
	raw, _ := m.MarshalJSON() // never fails: a Raw payload is as it is, the rest is built
	return textTokens(raw)
}

// textTokens is the estimate of EstimateTokens for text: one token per CJK
// rune, a third of one per other byte, rounded up.
func textTokens(b []byte) int {
	cjk, other := 0, 0
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			other++
			b = b[1:]
			continue
		}
		r, n := utf8.DecodeRune(b)
		if isCJK(r) {
			cjk++
		} else {
			other += n
		}
		b = b[n:]
	}
	return cjk + (other+2)/3
}

// isCJK reports whether a tokenizer spends about a token on r alone: the
// ideographs, kana and Hangul, and the punctuation written with them.
func isCJK(r rune) bool {
	switch {
	case r >= 0x3000 && r <= 0x303f, // CJK symbols and punctuation
		r >= 0xff00 && r <= 0xffef: // fullwidth forms
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Fitted is a context fitted to a token budget by FitTokens.
type Fitted struct {
	Messages  []Message // the messages kept, in context order; never nil
	Dropped   int       // the entries whose messages were dropped
	Estimate  int       // the tokens of Messages, by EstimateTokens
	MaxTokens int       // the budget it was fitted to
}

// OverBudget reports whether the messages kept exceed the budget: only
// when the anchor's note, which is always kept, does so alone.
func (f Fitted) OverBudget() bool { return f.Estimate > f.MaxTokens }

// MarshalJSON writes the fitted context as tape context --max-tokens
// --json prints it, one object whose names are a contract: "messages"
// (the messages kept, as Context's are sent), "dropped" (entries),
// "estimate", "max_tokens" and "over_budget".
func (f Fitted) MarshalJSON() ([]byte, error) {
	msgs := f.Messages
	if msgs == nil {
		msgs = []Message{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a message is sent as it is
	err := enc.Encode(struct {
		Messages   []Message `json:"messages"`
		Dropped    int       `json:"dropped"`
		Estimate   int       `json:"estimate"`
		MaxTokens  int       `json:"max_tokens"`
		OverBudget bool      `json:"over_budget"`
	}{msgs, f.Dropped, f.Estimate, f.MaxTokens, f.OverBudget()})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// FitTokens keeps the newest messages of a context (Context's messages, in
// order) whose estimate (EstimateTokens) fits in maxTokens, and drops the
// oldest:
//
//   - what it keeps is a suffix of msgs, the longest that fits, so it
//     never keeps a message and drops a newer one;
//   - a tool call and its results are kept or dropped together: it never
//     cuts between an assistant message with tool_calls and a tool message
//     that answers it (Message.CallEntryID), nor between two results of
//     one tool_result entry;
//   - the newest anchor note (the assistant message "[Anchor created:
//     NAME]: STATE" of the newest anchor among msgs) is always kept, in its
//     place, even when it alone exceeds the budget (Fitted.OverBudget): it
//     is the state the messages after it start from. The context after an
//     anchor leaves that anchor out, as Bub does, so there is one only when
//     msgs hold a later anchor (tape context --all, or --anchor with
//     anchors after it).
//
// A budget below 1 keeps the anchor note alone. Fitted.Dropped counts the
// entries whose messages were dropped; an entry that makes no message
// (system, event, a meta.context false) is not in msgs and not counted.
func FitTokens(msgs []Message, maxTokens int) Fitted {
	est := make([]int, len(msgs))
	for i, m := range msgs {
		est[i] = EstimateTokens(m)
	}
	pin := newestAnchor(msgs)
	cut := fittingCut(msgs, est, pin, maxTokens)
	kept := make([]Message, 0, len(msgs)-cut+1)
	f := Fitted{MaxTokens: maxTokens}
	for i := range msgs {
		switch {
		case i >= cut || i == pin:
			kept = append(kept, msgs[i])
			f.Estimate += est[i]
		case startsEntry(msgs, i):
			f.Dropped++
		}
	}
	f.Messages = kept
	return f
}

// fittingCut is the first index from which msgs may be kept (cuts) whose
// messages, with the anchor note at pin when it is before, fit in
// maxTokens; len(msgs) when none do. The total only shrinks as the cut
// moves on, so the first that fits keeps the most.
func fittingCut(msgs []Message, est []int, pin, maxTokens int) int {
	n := len(msgs)
	suffix := make([]int, n+1) // suffix[k]: the estimate of msgs[k:]
	for k := n - 1; k >= 0; k-- {
		suffix[k] = suffix[k+1] + est[k]
	}
	allowed := cuts(msgs)
	for k := 0; k < n; k++ {
		total := suffix[k]
		if pin >= 0 && pin < k {
			total += est[pin]
		}
		if allowed[k] && total <= maxTokens {
			return k
		}
	}
	return n
}

// cuts reports, for each index k of msgs, whether msgs[k:] may be kept
// without msgs[:k]: no tool message from k on answers a call before k, and
// k does not split one tool_result entry's messages.
func cuts(msgs []Message) []bool {
	n := len(msgs)
	call := callIndexes(msgs)
	ok := make([]bool, n)
	earliest := n // the earliest call a tool message from k on answers
	for k := n - 1; k >= 0; k-- {
		if call[k] >= 0 && call[k] < earliest {
			earliest = call[k]
		}
		ok[k] = earliest >= k && startsEntry(msgs, k)
	}
	return ok
}

// callIndexes is, for each message, the index of the message with the
// tool call it answers, or -1. A call's entry id names its message; when
// ids repeat, the earliest such message before the result is taken, so a
// result is never parted from its call, at worst kept with more.
func callIndexes(msgs []Message) []int {
	first := map[string]int{} // a tool_call entry's id: its earliest message
	call := make([]int, len(msgs))
	for i, m := range msgs {
		call[i] = -1
		if m.CallEntryID != "" {
			if j, ok := first[m.CallEntryID]; ok {
				call[i] = j
			}
		}
		if _, seen := first[m.EntryID]; m.ToolCalls != nil && m.EntryID != "" && !seen {
			first[m.EntryID] = i
		}
	}
	return call
}

// startsEntry reports whether msgs[i] is the first message of its entry:
// only a tool_result entry makes several, in a row, each with its kind and
// id.
func startsEntry(msgs []Message, i int) bool {
	if i == 0 || msgs[i].Kind != tapelog.KindToolResult || msgs[i-1].Kind != tapelog.KindToolResult {
		return true
	}
	return msgs[i].EntryID == "" || msgs[i].EntryID != msgs[i-1].EntryID
}

// newestAnchor is the index of the newest anchor note among msgs, or -1.
func newestAnchor(msgs []Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Kind == tapelog.KindAnchor {
			return i
		}
	}
	return -1
}
