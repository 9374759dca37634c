package copilot

import (
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on session files of events of random shapes (strings where lists are
// expected, numbers where strings are, nested objects, missing members,
// dates that are not dates). Seeds: 400 files (40 under -short) of up to
// 25 lines; FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// notKept are, by event type, the members of its data that the mapping
// reads as structure or does not keep (docs/IMPORT.md): ids of the turn,
// the interaction and the request, the model of a call, flags.
var notKept = map[string][]string{
	"user.message": {"interactionId", "parentAgentTaskId", "turnId", "delivery", "agentMode",
		"supportedNativeDocumentMimeTypes/[]", "nativeDocumentPathFallbackPaths/[]"},
	"assistant.message": {"messageId", "model", "apiCallId", "requestId", "serviceRequestId", "clientRequestId",
		"interactionId", "turnId", "reasoningWireField", "phase", "toolRequests/[]/type"},
	"assistant.reasoning":     {"reasoningId"},
	"system.message":          {"role", "interactionId"},
	"tool.execution_start":    {"model", "turnId", "interactionId", "mcpServerName", "mcpToolName", "shellToolInfo", "toolDescription"},
	"tool.execution_complete": {"model", "turnId", "interactionId", "isUserRequested", "toolDescription"},
}

// keptIn says where a string at path in an event must be kept: its
// timestamp, id and parent's id in the entries' dates or metas (as its
// origin is); its type nowhere; a turn's bounds nowhere; the members of
// its data notKept names nowhere; everything else in a payload.
func keptIn(rec any, path []string) sourcetest.Kept {
	m, _ := rec.(map[string]any)
	typ, _ := m["type"].(string)
	switch {
	case path[0] == "timestamp" || path[0] == "id" || path[0] == "parentId":
		return sourcetest.InEntry
	case path[0] == "type":
		return sourcetest.Nowhere
	case path[0] != "data" || len(path) < 2:
		return sourcetest.InPayload
	case typ == "assistant.turn_start" || typ == "assistant.turn_end":
		return sourcetest.Nowhere
	case typ == "user.message" && path[1] == "source":
		return sourcetest.InEntry
	case path[1] == "parentToolCallId":
		// The subagent's id, which its tape's first anchor names, unless
		// the envelope names one.
		if a, ok := m["agentId"].(string); ok && a != "" {
			return sourcetest.Nowhere
		}
		return sourcetest.InPayload
	}
	p := strings.Join(path[1:], "/")
	for _, k := range notKept[typ] {
		if p == k || strings.HasPrefix(p, k+"/") {
			return sourcetest.Nowhere
		}
	}
	return sourcetest.InPayload
}

// gen makes session files of events of random shapes.
type gen struct {
	*sourcetest.Gen
	calls []map[string]any // tool requests made so far, whose start may repeat them
}

func transcript(g *sourcetest.Gen) []string { return (&gen{Gen: g}).transcript() }

func (g *gen) transcript() []string {
	var lines []string
	if g.IntN(4) != 0 {
		start := map[string]any{"sessionId": g.Text(), "version": 1, "producer": g.Text(), "copilotVersion": g.Text(),
			"startTime": g.Date(), "selectedModel": g.Text(),
			"context": g.AnyOf(map[string]any{"cwd": g.Text(), "branch": g.Text(), "gitRoot": g.Text()}, g.Value(2))}
		lines = append(lines, g.line("session.start", start))
	}
	for range g.IntN(24) {
		lines = append(lines, g.line(g.event()))
	}
	return lines
}

// line is an event's line: its envelope, sometimes of odd shapes, around
// data.
func (g *gen) line(typ string, data any) string {
	rec := map[string]any{"type": typ, "data": data, "id": g.Text(), "parentId": g.AnyOf(nil, g.Text())}
	if g.IntN(8) != 0 {
		rec["timestamp"] = g.Date()
	}
	if g.IntN(6) == 0 {
		rec["agentId"] = g.Text()
	}
	if g.IntN(20) == 0 {
		delete(rec, "type")
	}
	return sourcetest.JSONLine(rec)
}

// event is an event's type and data.
func (g *gen) event() (string, any) {
	switch g.IntN(20) {
	case 0, 1:
		d := map[string]any{"content": g.Text(), "transformedContent": g.Text(), "attachments": g.List(g.attachment),
			"interactionId": g.Str(), "delivery": "idle"}
		if g.IntN(3) == 0 {
			d["source"] = g.AnyOf(g.Text(), "skill-pdf", "agent-main")
		}
		return "user.message", d
	case 2, 3, 4:
		d := map[string]any{"messageId": g.Str(), "model": g.Str(), "content": g.Text(), "turnId": g.Str()}
		for _, k := range []string{"reasoningText", "reasoningOpaque", "encryptedContent", "parentToolCallId"} {
			if g.IntN(3) == 0 {
				d[k] = g.Text()
			}
		}
		if g.IntN(2) == 0 {
			d["toolRequests"] = g.List(g.request)
		}
		if g.IntN(8) == 0 {
			d["citations"] = g.Value(2)
		}
		if g.IntN(8) == 0 {
			d["serverTools"] = g.Value(2)
		}
		return "assistant.message", d
	case 5:
		return "assistant.reasoning", map[string]any{"reasoningId": g.Str(), "content": g.Text()}
	case 6, 7:
		return "tool.execution_start", g.start()
	case 8, 9:
		d := map[string]any{"toolCallId": g.callID(), "success": g.AnyOf(true, false, "false", nil), "turnId": g.Str(), "model": g.Str()}
		switch g.IntN(3) {
		case 0:
			d["result"] = map[string]any{"content": g.Text(), "detailedContent": g.Text(), "contents": g.Value(2)}
		case 1:
			d["result"] = g.Value(2)
		}
		if g.IntN(3) == 0 {
			d["error"] = g.AnyOf(map[string]any{"message": g.Text(), "code": g.Text()}, g.Value(1))
		}
		if g.IntN(3) == 0 {
			d["toolTelemetry"] = g.Value(2)
		}
		return "tool.execution_complete", d
	case 10:
		return "tool.user_requested", map[string]any{"toolCallId": g.Text(), "toolName": g.Text(), "arguments": g.Value(2)}
	case 11:
		return "system.message", map[string]any{"role": g.Pick("system", "developer"), "content": g.Text(), "name": g.Text(),
			"metadata": g.Value(2), "interactionId": g.Str()}
	case 12:
		return g.Pick("assistant.turn_start", "assistant.turn_end"), map[string]any{"turnId": g.Text(), "interactionId": g.Str()}
	case 13:
		return "session.compaction_complete", map[string]any{"success": g.AnyOf(true, false), "summaryContent": g.Text(),
			"checkpointPath": g.Text(), "compactionTokensUsed": g.Value(2)}
	case 14:
		return "session.shutdown", map[string]any{"shutdownType": g.Text(), "modelMetrics": g.metrics(), "codeChanges": g.Value(2)}
	case 15:
		return "session.error", map[string]any{"errorType": g.Text(), "message": g.Text(), "stack": g.Text()}
	case 16:
		return g.Pick("session.resume", "session.context_changed"), map[string]any{"context": g.Value(2), "cwd": g.Text(), "branch": g.Text()}
	case 17:
		return "session.title_changed", map[string]any{"title": g.Text()}
	case 18:
		return g.Pick("session.start", "session.model_change", "subagent.started", "a.later.event"), g.Value(2)
	}
	m := map[string]any{}
	for range g.IntN(3) {
		m[g.Key()] = g.Value(2)
	}
	return g.Str(), m
}

// request is a tool request of an assistant.message, noted for a start
// that repeats it.
func (g *gen) request() any {
	r := map[string]any{"toolCallId": g.Text(), "name": g.Text(), "arguments": g.AnyOf(g.Value(2), g.Text()),
		"type": g.Pick("function", "custom"), "intentionSummary": g.Text()}
	if g.IntN(4) == 0 {
		r["mcpServerName"], r["mcpToolName"] = g.Text(), g.Text()
	}
	g.calls = append(g.calls, r)
	return r
}

// start is a tool.execution_start: mostly the start of a request made
// before, with its name and arguments; else of a call nothing asked for.
func (g *gen) start() map[string]any {
	d := map[string]any{"turnId": g.Str(), "model": g.Str()}
	if len(g.calls) > 0 && g.IntN(3) != 0 {
		r := g.calls[g.IntN(len(g.calls))]
		d["toolCallId"], d["toolName"], d["arguments"] = r["toolCallId"], r["name"], r["arguments"]
		if g.IntN(4) == 0 {
			d["arguments"] = g.Value(2) // other arguments than asked for
		}
		return d
	}
	d["toolCallId"], d["toolName"], d["arguments"] = g.Text(), g.Text(), g.Value(2)
	return d
}

// callID is the id of a call asked for before, or another.
func (g *gen) callID() any {
	if len(g.calls) > 0 && g.IntN(2) == 0 {
		return g.calls[g.IntN(len(g.calls))]["toolCallId"]
	}
	return g.Text()
}

func (g *gen) attachment() any {
	return map[string]any{"type": "file", "path": g.Text(), "displayName": g.Text()}
}

// metrics is a shutdown's modelMetrics, of random shapes.
func (g *gen) metrics() any {
	m := map[string]any{}
	for range g.IntN(3) {
		m[g.Pick("claude-sonnet-4.6", "gpt-5-mini", "claude-opus-4.6-1m", g.Str())] = map[string]any{
			"requests": map[string]any{"count": g.IntN(9)},
			"usage": map[string]any{"inputTokens": g.IntN(5000), "outputTokens": g.IntN(900), "cacheReadTokens": g.IntN(2000),
				"cacheWriteTokens": g.AnyOf(g.IntN(500), g.Str(), -3)},
		}
	}
	return g.AnyOf(m, g.Value(2))
}
