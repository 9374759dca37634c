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

// resultPayload is a tool_result entry's payload: {"results":
// [{"content", "is_error": true (when it failed), "tool_call_id"}]}, its
// content JSON text (compacted).
func resultPayload(id string, content []byte, isError bool) json.RawMessage {
	b := append(make([]byte, 0, 64+len(id)+len(content)), `{"results":[{"content":`...)
	b = rawjson.AppendCompact(b, content)
	if isError {
		b = append(b, `,"is_error":true`...)
	}
	b = rawjson.AppendString(append(b, `,"tool_call_id":`...), id)
	return append(b, "}]}"...)
}

// messagePayload is a message's payload ({"content", "role"}), or a system
// entry's ({"content"}) when role is "": its content is the text of its
// parts, or a list of them when an image is among them.
func messagePayload(role string, parts []part, text string) json.RawMessage {
	b := append(make([]byte, 0, 32+len(text)), `{"content":`...)
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

// runPayload is a run event's payload: {"data": {"model", "status": "ok",
// "usage": {...}, "usage_id" (when total is known)}, "name": "run"}, of
// the tokens a turn added.
func runPayload(model string, added tokens, total *tokens, date string) json.RawMessage {
	cached := min(added.Cached, added.Input)
	b := rawjson.AppendString(append(make([]byte, 0, 320), `{"data":{"model":`...), model)
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
	return resultPayload(id, rawjson.AppendString(nil, status), status != "" && status != "completed")
}
