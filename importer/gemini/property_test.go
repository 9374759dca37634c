package gemini

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on recordings of records of random shapes: messages written again as
// they grow (tokens, calls, results, thoughts added), results sent back
// as a message, $set and $rewindTo records, a legacy record on one line,
// strings where lists are expected, numbers where strings are, dates that
// are not dates. Seeds: 400 recordings (40 under -short) of up to 30
// lines; FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// keptIn says where a string at path in a record must be kept: dates in
// the entries' dates or metas; ids, types, models, statuses, lastUpdated,
// a session id, and a call's display members (displayName, description,
// resultDisplay) and agentId nowhere; everything else in a payload
// (docs/IMPORT.md).
func keptIn(rec any, path []string) sourcetest.Kept {
	p := strings.Join(path, "/")
	for _, prefix := range []string{"$set/messages/[]/", "messages/[]/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			p = "message/" + rest
		}
	}
	if !strings.HasPrefix(p, "message/") && !strings.HasPrefix(p, "$set/") {
		if m, _ := rec.(map[string]any); m["sessionId"] == nil && m["$rewindTo"] == nil {
			p = "message/" + p // a message on a line of its own
		}
	}
	under := func(keys ...string) bool {
		return slices.ContainsFunc(keys, func(k string) bool { return p == k || strings.HasPrefix(p, k+"/") })
	}
	switch {
	case under("message/timestamp", "startTime", "message/thoughts/[]/timestamp"):
		return sourcetest.InEntry
	case strings.HasPrefix(path[0], "$set") && under("message/tokens"): // a copy's: not kept
		return sourcetest.Nowhere
	case under("message/id", "message/type", "message/model", "lastUpdated", "$set/lastUpdated", "sessionId", "$set/sessionId",
		"message/toolCalls/[]/status", "message/toolCalls/[]/timestamp", "message/toolCalls/[]/agentId",
		"message/toolCalls/[]/displayName", "message/toolCalls/[]/description", "message/toolCalls/[]/resultDisplay"):
		return sourcetest.Nowhere
	}
	return sourcetest.InPayload
}

// gen makes Gemini CLI recordings of records of random shapes.
type gen struct {
	*sourcetest.Gen
	sent []map[string]any // the messages written, which may be written again
}

func transcript(g *sourcetest.Gen) []string { return (&gen{Gen: g}).transcript() }

func (g *gen) transcript() []string {
	head := map[string]any{"sessionId": "0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a", "projectHash": g.Text(), "startTime": g.Date(),
		"lastUpdated": g.Date(), "kind": g.Pick("main", "subagent")}
	if g.IntN(3) == 0 {
		head["directories"] = g.List(func() any { return g.Str() })
	}
	if g.IntN(3) == 0 {
		head["summary"] = g.Text()
	}
	if g.IntN(5) == 0 {
		head["messages"] = g.List(func() any { return g.message() })
	}
	if g.IntN(5) == 0 {
		head[g.Key()] = g.Value(2)
	}
	lines := []string{sourcetest.JSONLine(head)}
	for range g.IntN(30) {
		lines = append(lines, sourcetest.JSONLine(g.record()))
	}
	return lines
}

// record is a line: mostly a message, new or written again.
func (g *gen) record() any {
	switch g.IntN(14) {
	case 0:
		set := map[string]any{"lastUpdated": g.Date()}
		switch g.IntN(4) {
		case 0:
			set["summary"] = g.Text()
		case 1:
			set["messages"] = g.List(func() any { return g.message() })
		case 2:
			set[g.Pick("memoryScratchpad", "directories", "sessionId")] = g.Value(2)
		}
		return map[string]any{"$set": set}
	case 1:
		return map[string]any{"$rewindTo": g.Text()}
	case 2:
		return map[string]any{g.Key(): g.Value(2)}
	case 3, 4, 5:
		if len(g.sent) > 0 {
			return g.again(g.IntN(len(g.sent)))
		}
	case 6:
		if r := g.echo(); r != nil {
			return r
		}
	}
	for {
		if m, ok := g.message().(map[string]any); ok { // a line is an object
			g.sent = append(g.sent, m)
			return m
		}
	}
}

// message is a message record, of a random type and shape.
func (g *gen) message() any {
	if g.IntN(12) == 0 {
		return g.Value(2)
	}
	m := map[string]any{"id": g.Text(), "timestamp": g.Date(), "type": g.Pick("user", "gemini", "gemini", "info", "warning", "error", g.Str())}
	switch g.IntN(5) {
	case 0:
		m["content"] = g.Text()
	case 1:
		m["content"] = g.List(g.part)
	case 2:
		m["content"] = g.part()
	case 3:
		m["content"] = g.Value(1)
	}
	if g.IntN(4) == 0 {
		m["displayContent"] = g.AnyOf(g.Text(), []any{map[string]any{"text": g.Text()}})
	}
	if m["type"] == "gemini" {
		m["model"] = g.AnyOf(g.Pick("gemini-2.5-pro", "gemini-2.5-flash"), nil, g.Value(0))
		m["thoughts"] = g.List(g.thought)
		if g.IntN(2) == 0 {
			m["toolCalls"] = g.List(g.call)
		}
		if g.IntN(2) == 0 {
			m["tokens"] = g.tokens()
		}
	}
	return m
}

// again is a message written again as Gemini CLI writes it: the same,
// with what came since (its tokens, more thoughts, more calls, a call's
// result).
func (g *gen) again(i int) map[string]any {
	m := maps.Clone(g.sent[i])
	if m["type"] == "gemini" {
		if m["tokens"] == nil { // Gemini CLI writes a message's tokens once
			m["tokens"] = g.tokens()
		}
		if calls, ok := m["toolCalls"].([]any); ok {
			calls = slices.Clone(calls)
			for i, c := range calls {
				if c, ok := c.(map[string]any); ok && (c["status"] == "executing" || c["status"] == "awaiting_approval") { // a call done has its result
					c = maps.Clone(c)
					c["status"], c["result"] = "success", g.result(c["id"], c["name"])
					calls[i] = c
				}
			}
			m["toolCalls"] = append(calls, g.call())
		}
		if thoughts, ok := m["thoughts"].([]any); ok {
			m["thoughts"] = append(slices.Clone(thoughts), g.thought())
		}
	}
	g.sent[i] = m
	return m
}

// echo is the results of the last message's calls, sent back as a user
// message (Gemini CLI 0.44 and later), or nil.
func (g *gen) echo() any {
	if len(g.sent) == 0 {
		return nil
	}
	calls, _ := g.sent[len(g.sent)-1]["toolCalls"].([]any)
	var parts []any
	for _, c := range calls {
		if c, ok := c.(map[string]any); ok {
			if r, ok := c["result"].([]any); ok {
				parts = append(parts, r...)
			}
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return map[string]any{"id": g.Str(), "timestamp": g.Date(), "type": "user", "content": parts}
}

func (g *gen) part() any {
	switch g.IntN(7) {
	case 0:
		return map[string]any{"text": g.Text(), "thought": true, "thoughtSignature": g.Text()}
	case 1:
		return map[string]any{"inlineData": map[string]any{"mimeType": g.Pick("image/png", "application/pdf"), "data": g.Str()}}
	case 2:
		return map[string]any{"functionResponse": map[string]any{"id": g.Text(), "name": g.Text(), "response": g.Value(2)}}
	case 3:
		return map[string]any{"functionCall": map[string]any{"id": g.Str(), "name": g.Str(), "args": g.Value(2)}}
	}
	return map[string]any{"text": g.Text()}
}

func (g *gen) thought() any {
	return map[string]any{"subject": g.Text(), "description": g.Text(), "timestamp": g.Date()}
}

func (g *gen) call() any {
	id, name := g.Text(), g.Text()
	c := map[string]any{"id": id, "name": name, "args": g.Value(2), "timestamp": g.Date(),
		"displayName": g.Text(), "description": g.Text(), "renderOutputAsMarkdown": true}
	switch g.IntN(4) {
	case 0:
		c["status"], c["result"] = g.Pick("executing", "awaiting_approval"), nil
	case 1:
		c["status"], c["result"] = g.AnyOf("error", "cancelled", g.Value(0)), g.AnyOf(g.result(id, name), g.Value(2))
	default:
		c["status"], c["result"] = "success", g.result(id, name)
		c["resultDisplay"] = g.Text()
	}
	if g.IntN(4) == 0 {
		c["agentId"] = g.Str()
	}
	return c
}

func (g *gen) result(id, name any) any {
	return []any{map[string]any{"functionResponse": map[string]any{"id": id, "name": name, "response": map[string]any{g.Pick("output", "error"): g.Text()}}}}
}

func (g *gen) tokens() any {
	if g.IntN(8) == 0 {
		return g.Value(2)
	}
	t := map[string]any{}
	for _, k := range tokenKeys {
		if g.IntN(6) != 0 {
			t[k] = g.IntN(5000)
		}
	}
	if g.IntN(6) == 0 {
		t[g.Pick("input", "output", g.Key())] = g.Value(1)
	}
	return t
}
