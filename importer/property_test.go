package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/internal/testkit/short"
	tapelog "github.com/tape-dev/tape/log"
)

// The property "an importer never drops text": transcripts of records of
// random shapes (strings where lists are expected, numbers where strings
// are, nested objects, missing fields, dates that are not dates) make
// entries whose payloads hold every string of every record, but the
// values the mapping reads as structure (keptIn); no object line is a
// bad line; every entry is one a tape takes; and a checkpoint anywhere
// changes nothing. Seeds: 400 transcripts of up to 24 lines per format
// (1.5 s; a tenth with -short); FuzzConvertersKeepText explores more
// (60 s of it found nothing more).
func TestConvertersKeepText(t *testing.T) {
	t.Parallel()
	for seed := range short.Seeds(400) {
		for _, f := range []*Format{Claude, Codex} {
			checkKeepsText(t, f, seed)
		}
	}
}

func FuzzConvertersKeepText(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, seed uint64, codex bool) {
		format := Claude
		if codex {
			format = Codex
		}
		checkKeepsText(t, format, seed)
	})
}

// checkKeepsText checks the property on the transcript seed makes.
func checkKeepsText(t *testing.T, f *Format, seed uint64) {
	t.Helper()
	g := &shapeGen{r: rand.New(rand.NewPCG(seed, 29))}
	var lines []string
	if f == Claude {
		lines = g.claudeTranscript()
	} else {
		lines = g.codexTranscript()
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s, seed %d: %s\ntranscript:\n%s", f.Name, seed, fmt.Sprintf(format, args...), data)
	}
	conv, err := f.newConverter("/x/rollout-s-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	var outs []Output
	for i, line := range lines {
		o, err := conv.line(tapelog.RawLine{No: i + 1, Data: []byte(line)})
		var w lineWarning
		if err != nil && !errors.As(err, &w) {
			fail("line %d is a bad line: %v", i+1, err)
		}
		outs = append(outs, o...)
	}
	outs = append(outs, conv.flush()...)
	var payloads, metas strings.Builder // every string of the entries' payloads, and of their metas and dates
	made := map[int]bool{}              // the lines that made an entry
	for _, o := range outs {
		checkOutput(t, o)
		made[sourceLine(o.Entry)] = true
		appendStrings(&metas, o.Entry.Date)
		if o.Entry.Date != "" {
			if _, err := tapelog.ParseTime(o.Entry.Date); err != nil {
				fail("entry %s has a date a tape refuses: %v", o.Entry.ID, err)
			}
		}
		for _, part := range []struct {
			raw json.RawMessage
			b   *strings.Builder
		}{{o.Entry.Payload, &payloads}, {o.Entry.Meta, &metas}} {
			var v any
			if err := json.Unmarshal(part.raw, &v); err != nil {
				fail("entry %s: %v", o.Entry.ID, err)
			}
			walkStrings(v, nil, func(_ []string, s string) { appendStrings(part.b, s) })
		}
	}
	inPayloads, inMetas := payloads.String(), metas.String()
	for i, line := range lines {
		var rec any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		walkStrings(rec, nil, func(path []string, s string) {
			switch keptIn(f, rec, path) {
			case "payload":
				if !strings.Contains(inPayloads, s) {
					fail("the text %q at %v of line %d is in no entry's payload:\n%s", s, path, i+1, entriesText(outs))
				}
			case "meta":
				// A line that makes no entry (a repeated usage, a message
				// Codex wrote twice, a compaction's summary) keeps no date.
				if made[i+1] && !strings.Contains(inPayloads, s) && !strings.Contains(inMetas, s) {
					fail("the value %q at %v of line %d is in no entry:\n%s", s, path, i+1, entriesText(outs))
				}
			}
		})
	}
	// A checkpoint anywhere loses nothing and adds nothing.
	if once, resumed := convertAll(t, f, data, false), convertAll(t, f, data, true); once != resumed {
		fail("resumed:\n%s\nin one pass:\n%s", resumed, once)
	}
}

// appendStrings adds s to b, and the strings of the JSON text s holds
// (a call's arguments are its input as JSON text).
func appendStrings(b *strings.Builder, s string) {
	b.WriteString(s)
	b.WriteByte(0)
	var v any
	if text := strings.TrimSpace(s); text != "" && strings.ContainsAny(text[:1], `{["`) && json.Unmarshal([]byte(text), &v) == nil {
		walkStrings(v, nil, func(_ []string, s string) { appendStrings(b, s) })
	}
}

// walkStrings calls fn with every string of v, and the keys that lead
// to it ("[]" for an array's item).
func walkStrings(v any, path []string, fn func(path []string, s string)) {
	switch v := v.(type) {
	case string:
		fn(path, v)
	case []any:
		for _, item := range v {
			walkStrings(item, append(slices.Clip(path), "[]"), fn)
		}
	case map[string]any:
		for k, item := range v {
			walkStrings(item, append(slices.Clip(path), k), fn)
		}
	}
}

func entriesText(outs []Output) string {
	var b strings.Builder
	for _, o := range outs {
		fmt.Fprintf(&b, "%s %s %s\n", o.Entry.ID, o.Entry.Kind, o.Entry.Payload)
	}
	return b.String()
}

// keptIn says where a string at path in a record must be kept: in an
// entry's payload ("payload"); in its payload, meta or date ("meta": a
// timestamp is the date of the entries its line makes, or, when it is
// not a date, kept as written in their meta); or nowhere (""), for one
// the mapping reads as structure, not text (docs/IMPORT.md): the
// envelope, which ids, dates and meta hold; types and roles, which kinds
// and names say; the message id and model of a Claude Code turn; the
// status of a call that is not a web search; the kind of client that
// started a Codex session.
func keptIn(f *Format, rec any, path []string) string {
	if len(path) == 0 {
		return "payload"
	}
	p := strings.Join(path, "/")
	structural := false
	m, _ := rec.(map[string]any)
	switch {
	case path[0] == "timestamp":
		return "meta"
	case f == Claude:
		structural = slices.Contains(envelopeKeys, path[0]) ||
			slices.Contains([]string{"subtype", "requestId", "message/id", "message/role", "message/model", "message/content/[]/type"}, p)
	case p == "payload/status": // a call's: kept of a web search only, as its result
		payload, _ := m["payload"].(map[string]any)
		structural = payload["type"] != "web_search_call"
	case p == "payload/source": // a session_meta's kind of client
		structural = m["type"] == "session_meta"
	default:
		structural = slices.Contains([]string{"type", "payload/type", "payload/role", "payload/content/[]/type", "payload/summary/[]/type"}, p)
	}
	if structural {
		return ""
	}
	return "payload"
}

// shapeGen makes records of random shapes. Every string it makes that is
// not structure is unique ("t17;" and more), so that finding it in the
// entries says it was kept, wherever it went.
type shapeGen struct {
	r *rand.Rand
	n int
}

// odd are what a string may hold after its token: escapes, scripts, a
// line separator, white space, markup.
var odd = []string{"", "", " plain words", "\nsecond line", `"quoted" \ back`, " 修复 エラー", "\u2028", "\t", "<b>&amp;</b>"}

func (g *shapeGen) str() string {
	g.n++
	return fmt.Sprintf("t%d;%s", g.n, odd[g.r.IntN(len(odd))])
}

func (g *shapeGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

func (g *shapeGen) anyOf(options ...any) any { return options[g.r.IntN(len(options))] }

// value is any JSON value, at most depth deep: mostly a string.
func (g *shapeGen) value(depth int) any {
	n := 9
	if depth <= 0 {
		n = 6
	}
	switch g.r.IntN(n) {
	case 0, 1, 2:
		return g.str()
	case 3:
		return g.r.IntN(1000) - 500
	case 4:
		return g.r.IntN(2) == 0
	case 5:
		return nil
	case 6, 7:
		var a []any
		for range g.r.IntN(4) {
			a = append(a, g.value(depth-1))
		}
		return a
	default:
		m := map[string]any{}
		for range g.r.IntN(4) {
			g.n++
			m[fmt.Sprintf("k%d", g.n)] = g.value(depth - 1)
		}
		return m
	}
}

// text is where a converter expects a string: mostly one, sometimes any
// value.
func (g *shapeGen) text() any {
	if g.r.IntN(4) == 0 {
		return g.value(2)
	}
	return g.str()
}

// list is where a converter expects a list of items made by item: the
// list, a string, or any value.
func (g *shapeGen) list(item func() any) any {
	switch g.r.IntN(6) {
	case 0:
		return g.str()
	case 1:
		return g.value(2)
	}
	var a []any
	for range g.r.IntN(4) {
		if g.r.IntN(6) == 0 {
			a = append(a, g.value(2))
		} else {
			a = append(a, item())
		}
	}
	return a
}

func (g *shapeGen) date() any {
	switch g.r.IntN(12) {
	case 0:
		return g.value(1)
	case 1:
		return nil
	case 2:
		return "2025-11-03 14:05:00" // a form log.ParseTime reads too
	}
	return fmt.Sprintf("2025-11-03T14:%02d:%02dZ", g.r.IntN(60), g.r.IntN(60))
}

func jsonLine(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func (g *shapeGen) claudeTranscript() []string {
	var lines []string
	for i := range 1 + g.r.IntN(24) {
		rec := g.claudeRecord()
		rec["uuid"] = fmt.Sprintf("u%d", i)
		rec["sessionId"] = "5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12"
		if g.r.IntN(8) != 0 {
			rec["timestamp"] = g.date()
		}
		lines = append(lines, jsonLine(rec))
	}
	return lines
}

func (g *shapeGen) claudeRecord() map[string]any {
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return map[string]any{"type": "user", "message": g.claudeMessage("user")}
	case 3, 4, 5:
		m := g.claudeMessage("assistant")
		if m, ok := m.(map[string]any); ok {
			m["id"] = g.pick("m1", "m2")
			m["model"] = "claude-x"
			if g.r.IntN(2) == 0 {
				m["usage"] = map[string]any{"input_tokens": g.r.IntN(100), "output_tokens": g.r.IntN(100)}
			}
		}
		return map[string]any{"type": "assistant", "message": m, "requestId": "r1"}
	case 6:
		return map[string]any{"type": "system", "subtype": "compact_boundary", "compactMetadata": g.value(2)}
	case 7:
		return map[string]any{"type": "user", "isCompactSummary": true, "message": g.claudeMessage("user")}
	case 8:
		key := g.pick("aiTitle", "customTitle")
		return map[string]any{"type": map[string]string{"aiTitle": "ai-title", "customTitle": "custom-title"}[key], key: g.text()}
	}
	rec := map[string]any{"type": g.pick("summary", "system", "attachment", "queue-operation", "a-later-record")}
	for range g.r.IntN(4) {
		g.n++
		rec[fmt.Sprintf("k%d", g.n)] = g.value(2)
	}
	return rec
}

// claudeMessage is a message: mostly an object with a content, its
// content a string, blocks, or any value.
func (g *shapeGen) claudeMessage(role string) any {
	if g.r.IntN(10) == 0 {
		return g.value(2) // a message of another shape
	}
	m := map[string]any{"role": role}
	switch g.r.IntN(8) {
	case 0:
		m["content"] = g.str()
	case 1:
		m["content"] = g.value(2)
	case 2: // no content
	default:
		m["content"] = g.list(g.claudeBlock)
	}
	return m
}

func (g *shapeGen) claudeBlock() any {
	switch g.r.IntN(7) {
	case 0:
		return map[string]any{"type": "text", "text": g.text()}
	case 1:
		return map[string]any{"type": "thinking", "thinking": g.text(), "signature": g.text()}
	case 2:
		return map[string]any{"type": "tool_use", "id": g.text(), "name": g.text(), "input": g.value(2)}
	case 3:
		b := map[string]any{"type": "tool_result", "tool_use_id": g.text(), "content": g.value(2)}
		if g.r.IntN(3) == 0 {
			b["is_error"] = g.pick("true", "false", "maybe") // a string, not a boolean
		}
		return b
	case 4:
		return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": g.text(), "data": g.text()}}
	case 5:
		return map[string]any{"type": g.str(), "k": g.value(2)}
	}
	return map[string]any{"type": "text", "text": g.str()}
}

func (g *shapeGen) codexTranscript() []string {
	head := map[string]any{"id": "019a3000-0000-7000-8000-00000000beef", "cwd": g.text(), "source": g.pick("cli", "exec")}
	if g.r.IntN(2) == 0 {
		head["instructions"] = g.text()
	}
	switch g.r.IntN(3) {
	case 0:
		head["git"] = map[string]any{"branch": g.text(), "commit_hash": g.text(), "repository_url": g.text()}
	case 1: // of another shape (keys Codex does not write are not kept)
		head["git"] = g.anyOf(g.str(), g.r.IntN(9), []any{g.str()}, map[string]any{"branch": []any{g.str()}})
	}
	if g.r.IntN(4) == 0 {
		head["source"] = map[string]any{"subagent": map[string]any{"thread_spawn": map[string]any{"parent_thread_id": g.text()}}}
	}
	lines := []string{jsonLine(map[string]any{"timestamp": "2025-10-30T09:00:00.000Z", "type": "session_meta", "payload": head})}
	for range g.r.IntN(24) {
		typ, payload := g.codexPayload()
		rec := map[string]any{"type": typ, "payload": payload}
		if g.r.IntN(8) != 0 {
			rec["timestamp"] = g.date()
		}
		lines = append(lines, jsonLine(rec))
	}
	return lines
}

// codexPayload is a line's type and payload.
func (g *shapeGen) codexPayload() (string, any) {
	item := func(m map[string]any) (string, any) { return "response_item", m }
	event := func(m map[string]any) (string, any) { return "event_msg", m }
	switch g.r.IntN(16) {
	case 0, 1, 2:
		return item(map[string]any{"type": "message", "role": g.pick("user", "assistant", "developer", "system"), "content": g.list(g.codexPart)})
	case 3:
		return item(map[string]any{"type": "message", "role": g.pick("user", "assistant"), "content": g.str()})
	case 4, 5:
		p := map[string]any{"type": "reasoning", "summary": g.list(g.codexPart)}
		if g.r.IntN(2) == 0 {
			p["content"] = g.list(g.codexPart)
		}
		if g.r.IntN(2) == 0 {
			p["encrypted_content"] = g.text()
		}
		return item(p)
	case 6:
		return item(map[string]any{"type": "function_call", "name": g.text(), "arguments": g.text(), "call_id": g.text()})
	case 7:
		switch g.r.IntN(3) {
		case 0:
			return item(map[string]any{"type": "custom_tool_call", "name": g.text(), "input": g.text(), "call_id": g.text(), "status": g.text()})
		case 1:
			return item(map[string]any{"type": "local_shell_call", "call_id": g.text(), "status": g.text(), "action": g.value(2)})
		}
		return item(map[string]any{"type": "web_search_call", "status": g.text(), "action": g.value(2)})
	case 8:
		return item(map[string]any{"type": g.pick("function_call_output", "custom_tool_call_output"), "call_id": g.text(), "output": g.value(2)})
	case 9:
		return event(map[string]any{"type": g.pick("user_message", "agent_message"), "message": g.text()})
	case 10:
		return event(map[string]any{"type": "agent_reasoning", "text": g.text()})
	case 11:
		return "compacted", map[string]any{"message": g.text()}
	case 12:
		return "turn_context", map[string]any{"cwd": g.text(), "model": g.text(), "approval_policy": g.value(1)}
	case 13:
		return event(map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": map[string]any{"input_tokens": g.r.IntN(1000), "output_tokens": g.r.IntN(1000)}}})
	case 14:
		return g.pick("response_item", "event_msg", "a_later_line"), g.value(2)
	}
	m := map[string]any{"type": g.str()}
	for range g.r.IntN(3) {
		g.n++
		m[fmt.Sprintf("k%d", g.n)] = g.value(2)
	}
	return g.pick("response_item", "event_msg"), m
}

func (g *shapeGen) codexPart() any {
	switch g.r.IntN(6) {
	case 0:
		return map[string]any{"type": "input_image", "image_url": g.text()}
	case 1:
		return map[string]any{"type": "refusal", "refusal": g.text()}
	}
	return map[string]any{"type": g.pick("input_text", "output_text", "summary_text"), "text": g.text()}
}
