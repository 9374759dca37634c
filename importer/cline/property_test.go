package cline

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on transcripts of documents of random shapes, one a line, as a file of
// another name than a task's (the converter reads each document by what
// it holds): the model's messages (strings where blocks are expected,
// blocks of unknown types, members the mapping does not read, ts that are
// not times), the messages the person saw (events, requests' counts,
// echoes, the task), task_metadata.json's and history_item.json's
// objects. Seeds: 400 (40 under -short) of up to 8 documents; FuzzKeepsText
// explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// keptIn says where a string at path in a document must be kept
// (docs/IMPORT.md). A document is of one class, which its first item
// says (gen.document): in the model's messages, a ts, an id and the
// members the mapping does not read are in the entries' metas and dates,
// a role and a block's type nowhere, everything else in a payload; in the
// person's, a message's type and name are structure, a ts a date, an
// echo and a request's text (read as its run) nowhere, the task's text
// the title; the objects are kept whole.
func keptIn(rec any, path []string) sourcetest.Kept {
	items, isArray := rec.([]any)
	if !isArray {
		return sourcetest.InPayload // an object: kept whole (its ts too)
	}
	var first map[string]any
	if len(items) > 0 {
		first, _ = items[0].(map[string]any)
	}
	p := strings.Join(path[1:], "/")
	key := ""
	if len(path) > 1 {
		key = path[1]
	}
	switch class(first) {
	case "api":
		switch {
		case key == "ts":
			return sourcetest.InEntry
		case key == "role", key == "type" && len(path) == 2, strings.HasSuffix(p, "content/[]/type"),
			p == "content/[]/source/type":
			return sourcetest.Nowhere
		case key == "content", key == "summary", key == "encrypted_content":
			return sourcetest.InPayload
		}
		return sourcetest.InEntry // the meta's "message", or uuid
	case "echo":
		return sourcetest.Nowhere
	case "usage":
		switch key {
		case "text", "type", "say":
			return sourcetest.Nowhere // the text is read as the run
		case "ts":
			return sourcetest.InEntry
		}
		return sourcetest.InPayload
	}
	switch key {
	case "ts":
		return sourcetest.InEntry
	case "type", "say", "ask":
		return sourcetest.Nowhere
	}
	return sourcetest.InPayload
}

// class is the class of a document whose first item is first.
func class(first map[string]any) string {
	if _, ok := first["role"]; ok || first["type"] == "reasoning" {
		return "api"
	}
	switch name, _ := first["say"].(string); {
	case slices.Contains(usageSays, name):
		return "usage"
	case echoedSays[name]:
		return "echo"
	}
	return "ui"
}

var usageSays = []string{"api_req_started", "api_req_finished", "subagent_usage"}

// gen makes task files of random shapes.
type gen struct{ *sourcetest.Gen }

func transcript(g *sourcetest.Gen) []string {
	var lines []string
	for range g.IntN(8) {
		lines = append(lines, sourcetest.JSONLine(gen{g}.document()))
	}
	return lines
}

// document is one document, of one class.
func (g gen) document() any {
	n := 1 + g.IntN(6)
	var items []any
	switch g.IntN(7) {
	case 0, 1:
		for range n {
			items = append(items, g.apiMessage())
		}
	case 2:
		// The task, then what the person saw besides.
		items = append(items, map[string]any{"ts": g.ts(), "type": "say", "say": "task", "text": g.Str()})
		for range n {
			items = append(items, g.uiEvent())
		}
	case 3:
		for range n {
			items = append(items, g.uiEvent())
		}
	case 4:
		for range n {
			items = append(items, g.usage())
		}
	case 5:
		for range n {
			items = append(items, map[string]any{"ts": g.ts(), "type": "say", "say": g.Pick("text", "reasoning", "tool"), "text": g.Str(), "partial": g.IntN(2) == 0})
		}
	default:
		return g.object()
	}
	return items
}

// ts is where a converter expects a time in milliseconds: mostly one,
// sometimes any value.
func (g gen) ts() any {
	if g.IntN(8) == 0 {
		return g.Value(1)
	}
	return 1768004321987 + g.IntN(100000)
}

// apiMessage is a message of the model's, mostly of a shape the agents
// write.
func (g gen) apiMessage() any {
	if g.IntN(10) == 0 {
		return map[string]any{"type": "reasoning", "summary": g.List(func() any { return map[string]any{"type": "summary_text", "text": g.Text()} }),
			"encrypted_content": g.Str(), "id": g.Str(), "ts": g.ts()}
	}
	m := map[string]any{"role": g.Pick("user", "assistant", "user", "assistant", g.Str())}
	if g.IntN(5) == 0 {
		m["content"] = g.Text()
	} else {
		m["content"] = g.List(g.block)
	}
	if g.IntN(4) != 0 {
		m["ts"] = g.ts()
	}
	extras := []string{"id", "modelInfo", "metrics", "condenseParent", "condenseId", "truncationParent", "isTruncationMarker", "reasoning_content", "reasoning_details"}
	for range g.IntN(3) {
		m[extras[g.IntN(len(extras))]] = g.Text()
	}
	if g.IntN(12) == 0 {
		m["isSummary"] = true
	}
	if g.IntN(8) == 0 {
		m[g.Key()] = g.Value(1)
	}
	return m
}

// block is a content block, mostly of a shape the agents write.
func (g gen) block() any {
	switch g.IntN(11) {
	case 0, 1, 2:
		return map[string]any{"type": "text", "text": g.Text()}
	case 3:
		return map[string]any{"type": "thinking", "thinking": g.Text(), "signature": g.Str()}
	case 4:
		b := map[string]any{"type": "tool_use", "id": g.Text(), "name": g.Text(), "input": g.Value(2)}
		if g.IntN(3) == 0 {
			b["call_id"] = g.Str()
		}
		return b
	case 5:
		b := map[string]any{"type": "tool_result", "tool_use_id": g.Text(), "content": g.AnyOf(g.Text(), g.Value(2)), "is_error": g.AnyOf(true, false, g.Str())}
		if g.IntN(4) == 0 {
			b[g.Key()] = g.Value(1)
		}
		return b
	case 6:
		return map[string]any{"type": "image", "source": map[string]any{"type": g.Pick("base64", "url"), "media_type": g.Text(), "data": g.Text()}}
	case 7:
		return map[string]any{"type": g.Pick("redacted_thinking", "document", g.Str()), g.Key(): g.Value(2)}
	case 8:
		return g.Text()
	case 9:
		return map[string]any{"type": "text", "text": g.Text(), "reasoning_details": g.Value(2), "call_id": g.Str()}
	}
	return g.Value(2)
}

// uiEvent is a message the person saw that tape keeps as an event.
func (g gen) uiEvent() any {
	m := map[string]any{"ts": g.ts(), "type": g.Pick("say", "ask", "say", g.Str())}
	name := g.Pick("error", "checkpoint_created", "hook_status", "deleted_api_reqs", "info", g.Key())
	if m["type"] == "ask" {
		name = g.Pick("api_req_failed", "resume_task", "mistake_limit_reached", g.Key())
	}
	m[fmt.Sprint(m["type"])] = g.AnyOf(name, name, name, g.Value(1))
	for _, k := range []string{"text", "images", "partial", "lastCheckpointHash", "modelInfo", "contextCondense"} {
		if g.IntN(3) == 0 {
			m[k] = g.Value(2)
		}
	}
	return m
}

// usage is a request's message, its counts in its text.
func (g gen) usage() any {
	info := map[string]any{"cost": g.AnyOf(0.01, 0, g.Str())} // a request that ended: one that has not makes nothing yet
	for _, k := range []string{"tokensIn", "tokensOut", "cacheWrites", "cacheReads", "cancelReason", "apiProtocol", "request"} {
		if g.IntN(2) == 0 {
			info[k] = g.AnyOf(g.IntN(90000), g.IntN(9), g.Str(), 1.5)
		}
	}
	m := map[string]any{"ts": g.ts(), "type": "say", "say": g.Pick(usageSays...), "text": sourcetest.JSONLine(info)}
	if g.IntN(3) == 0 {
		m["text"] = g.Str()
	}
	if g.IntN(2) == 0 {
		m["modelInfo"] = g.AnyOf(map[string]any{"modelId": g.Str(), "providerId": g.Str(), "mode": g.Str()}, g.Value(1))
	}
	if g.IntN(4) == 0 {
		m[g.Key()] = g.Value(1)
	}
	return m
}

// object is task_metadata.json's or history_item.json's object.
func (g gen) object() any {
	if g.IntN(2) == 0 {
		m := map[string]any{}
		for _, k := range []string{"files_in_context", "model_usage", "environment_history"} {
			if g.IntN(3) != 0 {
				m[k] = g.List(func() any {
					return map[string]any{"ts": g.ts(), "path": g.Text(), "record_state": g.Text(), "model_id": g.Text(), "cline_version": g.Text(), "host_name": g.Text()}
				})
			}
		}
		m[g.Key()] = g.Value(2)
		return m
	}
	m := map[string]any{"id": g.Str(), "ts": g.ts(), "task": g.Text(), "workspace": g.Text(), "parentTaskId": g.Text(), "mode": g.Text(), "tokensIn": g.IntN(9000)}
	m[g.Key()] = g.Value(2)
	return m
}
