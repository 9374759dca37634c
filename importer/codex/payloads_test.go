package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// What the converter wrote before payloads.go: maps, encoded by
// source.MustJSON. The builders must write the same bytes.

func mapCall(kind, id, name, args string) json.RawMessage {
	field, arg := "function", "arguments"
	if kind == "custom" {
		field, arg = "custom", "input"
	}
	return source.MustJSON(map[string]any{"id": id, "type": kind, field: map[string]any{"name": name, arg: args}})
}

func mapCalls(calls ...json.RawMessage) json.RawMessage {
	list := make([]any, len(calls))
	for i, c := range calls {
		var m map[string]any
		if err := json.Unmarshal(c, &m); err != nil {
			panic(err)
		}
		list[i] = m
	}
	return source.MustJSON(map[string]any{"calls": list})
}

func mapResult(id string, content any, isError bool) json.RawMessage {
	res := map[string]any{"tool_call_id": id, "content": content}
	if isError {
		res["is_error"] = true
	}
	return source.MustJSON(map[string]any{"results": []any{res}})
}

func mapMessage(role string, parts []part) json.RawMessage {
	var texts []string
	var chat []any
	for _, p := range parts {
		if p.isImg {
			chat = append(chat, map[string]any{"type": "image_url", "image_url": map[string]any{"url": p.image}})
			continue
		}
		texts = append(texts, p.text)
		chat = append(chat, map[string]any{"type": "text", "text": p.text})
	}
	var content any = strings.Join(texts, "\n")
	if len(chat) != len(texts) {
		content = chat
	}
	if role == "" {
		return source.MustJSON(map[string]any{"content": content})
	}
	return source.MustJSON(map[string]any{"role": role, "content": content})
}

func mapRun(model string, added tokens, total *tokens, date string) json.RawMessage {
	data := map[string]any{"status": "ok", "model": model, "usage": map[string]any{
		"input_tokens":            added.Input - min(added.Cached, added.Input),
		"cache_read_input_tokens": min(added.Cached, added.Input),
		"output_tokens":           added.Output,
		"reasoning_output_tokens": added.Reasoning,
		"total_tokens":            added.Input + added.Output,
	}}
	if total != nil {
		t := total
		data["usage_id"] = fmt.Sprintf("codex:%s:%d:%d:%d:%d", date, t.Input, t.Cached, t.Output, t.Reasoning)
	}
	return source.MustJSON(map[string]any{"name": "run", "data": data})
}

// mapArgText is argText as encoding/json alone read it.
func mapArgText(raw json.RawMessage) string {
	var args string
	if json.Unmarshal(raw, &args) != nil {
		args = string(raw)
	}
	return args
}

func callText(kind, id, name, args string) []byte { return appendCall(nil, kind, id, name, args) }

func resultPayload(id string, content []byte, isError bool) []byte {
	return appendResult(nil, id, content, isError)
}

func messagePayload(role string, parts []part, text string) []byte {
	return appendMessage(nil, role, parts, text)
}

func runPayload(model string, added tokens, total *tokens, date string) []byte {
	return appendRun(nil, model, added, total, date)
}

// objectReasoning and objectEventMessage are what the converter wrote
// before appendReasoning and appendEventMessage, with rawjson.Objects.
func objectReasoning(summary, content string, encrypted []byte) []byte {
	data := rawjson.NewObject().Str("summary", summary)
	if content != "" {
		data.Str("content", content)
	}
	if len(encrypted) > 0 && string(encrypted) != "null" {
		data.Raw("encrypted_content", encrypted)
	}
	return rawjson.NewObject().Str("name", "reasoning").Raw("data", data.Done()).Done()
}

func objectEventMessage(role, text string) []byte {
	return rawjson.NewObject().Str("role", role).Str("content", text).Done()
}

// checkPayloads fails unless each builder writes what MustJSON wrote of
// its map, for the item of a line that decodes.
func checkPayloads(t *testing.T, line []byte) {
	t.Helper()
	cl, it, ok := slowDecode(line)
	if !ok {
		return
	}
	same := func(what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Fatalf("%s of %s\n got %s\nwant %s", what, line, got, want)
		}
	}
	same("named", appendNamed([]byte("x"), cl.Type, cl.Payload)[1:], source.NamedData(cl.Type, cl.Payload))
	if summary, ok := readText(it.Summary, nil); ok {
		text, _ := readText(it.Content, nil)
		same("reasoning", appendReasoning(nil, summary, text, it.Encrypted), objectReasoning(summary, text, it.Encrypted))
	}
	if it.Message != nil {
		same("event message", appendEventMessage(nil, it.Role, *it.Message), objectEventMessage(it.Role, *it.Message))
	}
	for _, raw := range []json.RawMessage{it.Arguments, it.Input, it.Action, it.Output, it.Content} {
		if got, want := argText(raw), mapArgText(raw); got != want {
			t.Fatalf("argText(%s) = %q, want %q", raw, got, want)
		}
	}
	switch {
	case it.Type == "function_call":
		a := callText("function", it.CallID, it.Name, argText(it.Arguments))
		same("function call", a, mapCall("function", it.CallID, it.Name, mapArgText(it.Arguments)))
		b := callText("custom", it.ID, it.Type, string(source.OrNull(source.Trim(it.Action))))
		same("two calls", []byte(`{"calls":[`+string(a)+","+string(b)+"]}"), mapCalls(a, b))
	case it.Type == "custom_tool_call":
		same("custom call", callText("custom", it.CallID, it.Name, argText(it.Input)), mapCall("custom", it.CallID, it.Name, mapArgText(it.Input)))
	case it.Type == "web_search_call":
		same("web search", webSearchResult(it.CallID, it.Status), mapResult(it.CallID, it.Status, it.Status != "" && it.Status != "completed"))
	case it.Type == "message":
		if parts, ok := readParts(it.Content, nil); ok {
			text := joinTexts(parts)
			same("message", messagePayload(it.Role, parts, text), mapMessage(it.Role, parts))
			same("system entry", messagePayload("", parts, text), mapMessage("", parts))
		}
	case it.Info != nil:
		for _, added := range []*tokens{it.Info.Total, it.Info.Last} {
			if added != nil {
				same("run", runPayload(it.Model, *added, it.Info.Total, cl.Timestamp+string(cl.RawDate)), mapRun(it.Model, *added, it.Info.Total, cl.Timestamp+string(cl.RawDate)))
			}
		}
	}
	if it.CallID != "" {
		for _, isError := range []bool{false, true} {
			same("result", resultPayload(it.CallID, it.Output, isError), mapResult(it.CallID, source.OrNull(it.Output), isError))
		}
	}
}

func TestPayloadsAgreeWithMustJSON(t *testing.T) {
	for _, l := range goldenLines(t) {
		checkPayloads(t, l)
	}
	for _, tc := range []struct {
		name string
		got  []byte
		want json.RawMessage
	}{
		{"odd strings in a call", callText("function", "<id>&\u2028", "n\xff\"", "a\x00\\\u2029</script>"), mapCall("function", "<id>&\u2028", "n\xff\"", "a\x00\\\u2029</script>")},
		{"a result of spaced JSON", resultPayload("c", []byte(" { \"a\" : [ 1 , \"<&>\" ] } "), true), mapResult("c", json.RawMessage(" { \"a\" : [ 1 , \"<&>\" ] } "), true)},
		{"a result of nothing", resultPayload("c", nil, false), mapResult("c", source.OrNull(nil), false)},
		{"no parts", messagePayload("user", nil, ""), mapMessage("user", nil)},
		{"an image among texts", messagePayload("user", []part{{text: "a"}, {image: "u\u2028", isImg: true}, {text: "b"}}, "a\nb"),
			mapMessage("user", []part{{text: "a"}, {image: "u\u2028", isImg: true}, {text: "b"}})},
		{"a run of negative tokens", runPayload("m\"", tokens{-1, 5, -3, 4, 9}, &tokens{1, 2, 3, 4, 5}, "d"), mapRun("m\"", tokens{-1, 5, -3, 4, 9}, &tokens{1, 2, 3, 4, 5}, "d")},
	} {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
}

// FuzzPayloads: the builders write what MustJSON wrote, for any line
// (FuzzPayloadStrings: for any strings, which a line cannot give).
func FuzzPayloads(f *testing.F) {
	for _, l := range goldenLines(f) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkPayloads(t, line) })
}

func FuzzPayloadStrings(f *testing.F) {
	f.Add("call_1", "shell", `{"command":["ls"]}`, []byte(`"out"`), int64(5), int64(3), false)
	f.Add("<&>", "\u2028", "\xff\x00", []byte(` [ {"a" : null} ] `), int64(-1), int64(1<<62), true)
	f.Fuzz(func(t *testing.T, id, name, text string, raw []byte, n, m int64, image bool) {
		if got, want := callText("custom", id, name, text), mapCall("custom", id, name, text); !bytes.Equal(got, want) {
			t.Fatalf("callText\n got %s\nwant %s", got, want)
		}
		if got, want := webSearchResult(id, name), mapResult(id, name, name != "" && name != "completed"); !bytes.Equal(got, want) {
			t.Fatalf("webSearchResult\n got %s\nwant %s", got, want)
		}
		if json.Valid(raw) {
			if got, want := resultPayload(id, raw, image), mapResult(id, json.RawMessage(raw), image); !bytes.Equal(got, want) {
				t.Fatalf("resultPayload\n got %s\nwant %s", got, want)
			}
		}
		parts := []part{{text: text}, {text: name}}
		if image {
			parts[1] = part{image: name, isImg: true}
		}
		if got, want := messagePayload(id, parts, joinTexts(parts)), mapMessage(id, parts); !bytes.Equal(got, want) {
			t.Fatalf("messagePayload\n got %s\nwant %s", got, want)
		}
		if got, want := newMetaWriter(id).appendMeta(nil, int(n), raw, name, image), sourceMeta(id, int(n), raw, name, image); !bytes.Equal(got, want) {
			t.Fatalf("meta\n got %s\nwant %s", got, want)
		}
		if got, want := appendReasoning(nil, id, name, raw), objectReasoning(id, name, raw); json.Valid(raw) && !bytes.Equal(got, want) {
			t.Fatalf("appendReasoning\n got %s\nwant %s", got, want)
		}
		if got, want := appendEventMessage(nil, id, text), objectEventMessage(id, text); !bytes.Equal(got, want) {
			t.Fatalf("appendEventMessage\n got %s\nwant %s", got, want)
		}
		if got, want := appendNamed(nil, name, raw), source.NamedData(name, raw); json.Valid(raw) && !bytes.Equal(got, want) {
			t.Fatalf("appendNamed\n got %s\nwant %s", got, want)
		}
		added, total := tokens{n, m, n - m, m / 3, n / 7}, &tokens{m, n, 1, 2, 3}
		if image {
			total = nil
		}
		if got, want := runPayload(name, added, total, text), mapRun(name, added, total, text); !bytes.Equal(got, want) {
			t.Fatalf("runPayload\n got %s\nwant %s", got, want)
		}
	})
}

// sourceMeta is what entryMeta wrote before metaWriter.
func sourceMeta(path string, line int, badDate []byte, cwd string, synthetic bool) json.RawMessage {
	m := source.Meta(path, line, "", "", badDate)
	if cwd != "" {
		m.Str("cwd", cwd)
	}
	if synthetic {
		m.True("synthetic")
	}
	return m.Done()
}

func TestMetaAgreesWithSourceMeta(t *testing.T) {
	for _, tc := range []struct {
		path, cwd string
		line      int
		badDate   string
		synthetic bool
	}{
		{"/home/u/.codex/sessions/rollout-1.jsonl", "", 1, "", false},
		{"/a/<b>&\"c\u2028\xff.jsonl", "/home/u/proj", 1 << 40, `"yesterday"`, true},
		{"", "\x00", -1, "17", false},
	} {
		got := newMetaWriter(tc.path).appendMeta(nil, tc.line, []byte(tc.badDate), tc.cwd, tc.synthetic)
		if want := sourceMeta(tc.path, tc.line, []byte(tc.badDate), tc.cwd, tc.synthetic); !bytes.Equal(got, want) {
			t.Errorf("meta\n got %s\nwant %s", got, want)
		}
	}
}
