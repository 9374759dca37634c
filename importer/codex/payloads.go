package codex

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/internal/rawjson"
)

// The payloads of the entries a rollout's hot lines make (calls, their
// results, messages, usage), written with rawjson: the bytes
// source.MustJSON writes of the maps the converter built before, member by
// member. encoding/json writes a map's keys sorted, so each builder adds
// its keys in that order; it writes a json.RawMessage compacted, so raw
// members go through rawjson.AppendCompact; it escapes strings as
// rawjson.AppendString does (MustJSON turns off the escaping of <, > and
// &).
//
// They buy a fifth of the converter's time: encoding/json's reflection
// over maps of interfaces, for lines of 200 bytes (BenchmarkConvert).
// TestPayloadsAgreeWithMustJSON, FuzzPayloads and FuzzPayloadStrings hold
// each to the map it replaced, encoded by MustJSON.

// appendCall appends a tool call of a run (an item of a tool_call's
// calls): {"function": {"arguments", "name"}, "id", "type": "function"},
// or {"custom": {"input", "name"}, "id", "type": "custom"}.
func appendCall(b []byte, kind, id, name, args string) []byte {
	if kind == "custom" {
		b = append(b, `{"custom":{"input":`...)
	} else {
		b = append(b, `{"function":{"arguments":`...)
	}
	b = rawjson.AppendString(b, args)
	b = rawjson.AppendString(append(b, `,"name":`...), name)
	b = rawjson.AppendString(append(b, `},"id":`...), id)
	b = rawjson.AppendString(append(b, `,"type":`...), kind)
	return append(b, '}')
}

// appendResult appends a tool_result entry's payload: {"results":
// [{"content", "is_error": true (when it failed), "tool_call_id"}]}, its
// content JSON text (compacted).
func appendResult(b []byte, id string, content []byte, isError bool) []byte {
	b = append(b, `{"results":[{"content":`...)
	b = rawjson.AppendCompact(b, content)
	if isError {
		b = append(b, `,"is_error":true`...)
	}
	b = rawjson.AppendString(append(b, `,"tool_call_id":`...), id)
	return append(b, "}]}"...)
}

// appendMessage appends a message's payload ({"content", "role"}), or a
// system entry's ({"content"}) when role is "": its content is the text of
// its parts, or a list of them when an image is among them.
func appendMessage(b []byte, role string, parts []part, text string) []byte {
	b = append(b, `{"content":`...)
	if hasImage(parts) {
		b = appendChat(b, parts)
	} else {
		b = rawjson.AppendString(b, text)
	}
	if role != "" {
		b = rawjson.AppendString(append(b, `,"role":`...), role)
	}
	return append(b, '}')
}

func hasImage(parts []part) bool {
	for _, p := range parts {
		if p.isImg {
			return true
		}
	}
	return false
}

// appendChat appends parts as a chat content: [{"image_url": {"url"},
// "type": "image_url"} or {"text", "type": "text"}, ...].
func appendChat(b []byte, parts []part) []byte {
	b = append(b, '[')
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		if p.isImg {
			b = rawjson.AppendString(append(b, `{"image_url":{"url":`...), p.image)
			b = append(b, `},"type":"image_url"}`...)
			continue
		}
		b = rawjson.AppendString(append(b, `{"text":`...), p.text)
		b = append(b, `,"type":"text"}`...)
	}
	return append(b, ']')
}

// joinTexts is the text of parts, newline-joined, images left out.
func joinTexts(parts []part) string {
	if len(parts) == 1 && !parts[0].isImg {
		return parts[0].text
	}
	var sb strings.Builder
	n := 0
	for _, p := range parts {
		if p.isImg {
			continue
		}
		if n > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(p.text)
		n++
	}
	return sb.String()
}

// appendRun appends a run event's payload: {"data": {"model", "status":
// "ok", "usage": {...}, "usage_id" (when total is known)}, "name": "run"},
// of the tokens a turn added.
func appendRun(b []byte, model string, added tokens, total *tokens, date string) []byte {
	cached := min(added.Cached, added.Input)
	b = rawjson.AppendString(append(b, `{"data":{"model":`...), model)
	b = append(b, `,"status":"ok","usage":{"cache_read_input_tokens":`...)
	b = strconv.AppendInt(b, cached, 10)
	b = strconv.AppendInt(append(b, `,"input_tokens":`...), added.Input-cached, 10)
	b = strconv.AppendInt(append(b, `,"output_tokens":`...), added.Output, 10)
	b = strconv.AppendInt(append(b, `,"reasoning_output_tokens":`...), added.Reasoning, 10)
	b = strconv.AppendInt(append(b, `,"total_tokens":`...), added.Input+added.Output, 10)
	b = append(b, '}')
	if total != nil {
		// A subagent's or a fork's rollout replays its parent's history,
		// usage and all: the same moment and totals count once.
		b = appendUsageID(append(b, `,"usage_id":`...), date, total)
	}
	return append(b, `},"name":"run"}`...)
}

// appendUsageID appends the JSON string that names a cumulative usage at
// a moment: "codex:<date>:<input>:<cached>:<output>:<reasoning>". Only
// the date may need escapes: the numbers go after it, inside its quotes.
func appendUsageID(b []byte, date string, t *tokens) []byte {
	b = rawjson.AppendString(b, "codex:"+date)
	b = b[:len(b)-1] // the closing quote
	for _, n := range [...]int64{t.Input, t.Cached, t.Output, t.Reasoning} {
		b = strconv.AppendInt(append(b, ':'), n, 10)
	}
	return append(b, '"')
}

// webSearchResult is the result of a web search, which has no output item:
// its status, an error unless it completed.
func webSearchResult(id, status string) json.RawMessage {
	return appendResult(nil, id, rawjson.AppendString(nil, status), status != "" && status != "completed")
}

// appendReasoning appends a reasoning event's payload, as
// rawjson.Objects wrote it: {"name": "reasoning", "data": {"summary",
// "content" (unless ""), "encrypted_content" (unless absent or null)}}.
func appendReasoning(b []byte, summary, content string, encrypted []byte) []byte {
	b = rawjson.AppendString(append(b, `{"name":"reasoning","data":{"summary":`...), summary)
	if content != "" {
		b = rawjson.AppendString(append(b, `,"content":`...), content)
	}
	if len(encrypted) > 0 && string(encrypted) != "null" {
		b = append(append(b, `,"encrypted_content":`...), encrypted...)
	}
	return append(b, "}}"...)
}

// appendEventMessage appends the payload of a message made from an event,
// as a rawjson.Object wrote it: {"role", "content"}.
func appendEventMessage(b []byte, role, text string) []byte {
	b = rawjson.AppendString(append(b, `{"role":`...), role)
	b = rawjson.AppendString(append(b, `,"content":`...), text)
	return append(b, '}')
}

// appendNamed appends source.NamedData(name, data): {"data", "name"}.
func appendNamed(b []byte, name string, data []byte) []byte {
	b = rawjson.AppendCompact(append(b, `{"data":`...), data)
	b = rawjson.AppendString(append(b, `,"name":`...), name)
	return append(b, '}')
}
