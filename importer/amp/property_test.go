package amp

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on threads of random shapes, each a document on one line (strings where
// blocks are expected, numbers where strings are, blocks and members of
// unknown kinds, missing fields, dates that are not dates, a ledger or
// none). Seeds: 400 transcripts (40 under -short) of up to 3 threads;
// FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// keptIn says where a string at path in a thread must be kept
// (docs/IMPORT.md): the version and message counters and ~debug nowhere;
// in a message, its role, a block's type, a run's status, an assistant's
// state, a summary's type and an image's source type nowhere (structure),
// and everything else in a payload.
func keptIn(rec any, path []string) sourcetest.Kept {
	switch {
	case slices.Contains([]string{"v", "nextMessageId", "~debug"}, path[0]):
		return sourcetest.Nowhere
	case path[0] != "messages" || len(path) < 3:
		return sourcetest.InPayload
	}
	msg := path[2:]
	switch {
	case msg[0] == "role", msg[0] == "state":
		return sourcetest.Nowhere
	case msg[0] == "content" && len(msg) >= 3 && msg[1] == "[]":
		switch rest := msg[2:]; {
		case len(rest) == 1 && rest[0] == "type":
			return sourcetest.Nowhere
		case len(rest) == 2 && rest[0] == "run" && rest[1] == "status",
			len(rest) == 2 && rest[0] == "summary" && rest[1] == "type",
			len(rest) == 2 && rest[0] == "source" && rest[1] == "type":
			return sourcetest.Nowhere
		}
	}
	return sourcetest.InPayload
}

// gen makes Amp threads of random shapes.
type gen struct{ *sourcetest.Gen }

func transcript(g *sourcetest.Gen) []string {
	var lines []string
	for i := range 1 + g.IntN(3) {
		lines = append(lines, sourcetest.JSONLine(gen{g}.thread(i)))
	}
	return lines
}

// thread is a thread's document, mostly of Amp's shapes.
func (g gen) thread(i int) map[string]any {
	t := map[string]any{"v": g.IntN(90), "id": fmt.Sprintf("T-019c8a12-4e6b-7d30-8f2a-3c9e1b7d5a%02d", i)}
	if g.IntN(8) == 0 {
		t["id"] = g.Value(1)
	}
	if g.IntN(6) != 0 {
		t["created"] = g.AnyOf(1773475199000+g.IntN(1<<20), g.Value(1))
	}
	var msgs []any
	for j := range g.IntN(8) {
		msgs = append(msgs, g.message(j))
	}
	t["messages"] = g.AnyOf(msgs, msgs, msgs, g.Value(1))
	if g.IntN(3) == 0 {
		t["title"] = g.Text()
	}
	if g.IntN(3) == 0 {
		t["env"] = map[string]any{"initial": map[string]any{
			"trees": []any{map[string]any{"displayName": g.Text(), "uri": g.AnyOf("file:///home/u/app", g.Text()),
				"repository": map[string]any{"url": g.Text(), "ref": g.AnyOf("refs/heads/main", g.Text()), "sha": g.Text()}}},
			"platform": map[string]any{"clientVersion": g.Text()}, "tags": g.List(g.Text)}}
	}
	if g.IntN(3) == 0 {
		t["usageLedger"] = g.AnyOf(map[string]any{"events": g.List(g.event)}, g.Value(2), map[string]any{"events": g.List(g.event), g.Key(): g.Value(1)})
	}
	if g.IntN(3) == 0 {
		t["relationships"] = g.List(func() any {
			return map[string]any{"threadID": g.Text(), "type": g.Pick("handoff", "fork", "mention"), "role": g.Pick("parent", "child"),
				"messageIndex": g.AnyOf(g.IntN(8), g.Value(0)), "createdAt": g.AnyOf(1773475199000, g.Value(0)), "comment": g.Text()}
		})
	}
	for _, k := range []string{"mainThreadID", "agentMode", "draft", "~debug", "nextMessageId", g.Key()} {
		if g.IntN(5) == 0 {
			t[k] = g.Value(2)
		}
	}
	return t
}

// message is a message of one of the roles Amp writes.
func (g gen) message(j int) any {
	if g.IntN(12) == 0 {
		return g.Value(2)
	}
	role := g.Pick("user", "user", "assistant", "assistant", "info", g.Str())
	m := map[string]any{"role": role, "messageId": g.AnyOf(j, j, j, j%3, g.Value(0))}
	switch role {
	case "user":
		m["content"] = g.AnyOf(g.List(g.userBlock), g.List(g.userBlock), g.Str())
		if g.IntN(2) == 0 {
			m["meta"] = g.AnyOf(map[string]any{"sentAt": g.AnyOf(1773475200000+j, g.Value(0))}, g.Value(1))
		}
		for _, k := range []string{"agentMode", "userState", "fileMentions", "source", "interrupted"} {
			if g.IntN(6) == 0 {
				m[k] = g.Value(2)
			}
		}
	case "assistant":
		m["content"] = g.List(g.assistantBlock)
		m["state"] = g.AnyOf(map[string]any{"type": "complete", "stopReason": g.Pick("end_turn", "tool_use")},
			map[string]any{"type": g.Pick("streaming", "cancelled", "error")}, g.Value(1))
		if g.IntN(4) != 0 {
			m["usage"] = g.AnyOf(g.usage(), g.usage(), g.Value(1))
		}
		if g.IntN(6) == 0 {
			m["timestamp"], m["model"] = g.Date(), g.Text()
		}
	default:
		m["content"] = g.List(func() any {
			return g.AnyOf(map[string]any{"type": "summary", "summary": map[string]any{"type": "message", "summary": g.Text()}},
				map[string]any{"type": "manual_bash_invocation", "args": g.Value(1), "toolRun": g.Value(2), "hidden": false},
				g.Value(2))
		})
	}
	if g.IntN(6) == 0 {
		m[g.Key()] = g.Value(2)
	}
	return m
}

func (g gen) userBlock() any {
	switch g.IntN(5) {
	case 0, 1:
		return map[string]any{"type": "text", "text": g.Text()}
	case 2:
		run := map[string]any{"status": g.Pick("done", "error", "cancelled", "rejected-by-user", "in-progress", "queued", "blocked-on-user")}
		for _, k := range []string{"result", "error", "reason", "progress"} {
			if g.IntN(3) == 0 {
				run[k] = g.Value(2)
			}
		}
		b := map[string]any{"type": "tool_result", "toolUseID": g.AnyOf("toolu_"+g.Str(), g.Value(0)), "run": g.AnyOf(run, run, g.Value(1))}
		if g.IntN(3) == 0 {
			b["userInput"] = g.Value(1)
		}
		return b
	case 3:
		return map[string]any{"type": "image", "source": g.AnyOf(
			map[string]any{"type": "base64", "mediaType": "image/png", "data": g.Text()},
			map[string]any{"type": "url", "url": g.Text()}, g.Value(1))}
	}
	return map[string]any{"type": g.Str(), g.Key(): g.Value(2)}
}

func (g gen) assistantBlock() any {
	switch g.IntN(5) {
	case 0:
		return map[string]any{"type": "text", "text": g.Text()}
	case 1:
		return map[string]any{"type": "thinking", "thinking": g.Text(), "signature": g.Text()}
	case 2, 3:
		b := map[string]any{"type": "tool_use", "id": g.AnyOf("toolu_"+g.Str(), g.Value(0)), "name": g.Text(), "input": g.Value(2), "complete": true}
		if g.IntN(4) == 0 {
			b["inputPartialJSON"] = g.Text()
		}
		return b
	}
	return map[string]any{"type": g.Pick("redacted_thinking", g.Str()), "data": g.Value(2)}
}

func (g gen) usage() any {
	u := map[string]any{"model": g.Text(), "timestamp": g.AnyOf("2026-03-14T08:00:09.120Z", g.Date())}
	for _, k := range []string{"inputTokens", "outputTokens", "cacheCreationInputTokens", "cacheReadInputTokens", "totalTokens", "credits"} {
		if g.IntN(3) != 0 {
			u[k] = g.AnyOf(g.IntN(5000), g.Value(0))
		}
	}
	return u
}

func (g gen) event() any {
	return map[string]any{"id": g.Text(), "timestamp": g.AnyOf("2026-01-08T09:00:20.412Z", g.Date()), "model": g.Text(),
		"credits": g.AnyOf(1.25, g.Value(0)), "tokens": g.AnyOf(map[string]any{"input": g.IntN(900), "output": g.AnyOf(g.IntN(900), g.Value(0))}, g.Value(1)),
		"operationType": g.Pick("inference", "title-generation", "subagent"), "toMessageId": g.AnyOf(g.IntN(8), g.Value(0))}
}
