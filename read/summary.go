package read

import (
	"bytes"
	"encoding/json"
	"strings"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// An entry's text, in one place for every front end that shows an entry in
// a line (tape log and show, the context, and the terminal UI and export
// to come): the web page's chat renders entries its own way, from the
// same views helpers (views.Calls, views.ParseCall).

// Summary is the text a person wants to see of an entry: who said what,
// which tool was called with what, what came back.
func Summary(e tapelog.Entry) string {
	var p map[string]json.RawMessage
	if json.Unmarshal(e.Payload, &p) != nil {
		return CompactJSON(e.Payload)
	}
	str := func(key string) string {
		var s string
		if json.Unmarshal(p[key], &s) == nil {
			return s
		}
		return CompactJSON(p[key])
	}
	switch e.Kind {
	case tapelog.KindMessage:
		text := ContentText(p["content"])
		if calls := CallsText(p["tool_calls"]); calls != "" {
			text = strings.TrimSpace(text + " → " + calls)
		}
		return str("role") + ": " + text
	case tapelog.KindSystem:
		return ContentText(p["content"])
	case tapelog.KindToolCall:
		return CallsText(p["calls"])
	case tapelog.KindToolResult:
		var results []json.RawMessage
		if json.Unmarshal(p["results"], &results) != nil {
			return CompactJSON(e.Payload)
		}
		parts := make([]string, len(results))
		for i, r := range results {
			parts[i] = ContentText(r)
		}
		return strings.Join(parts, " | ")
	case tapelog.KindEvent:
		if _, ok := p["name"]; ok {
			return strings.TrimSpace(str("name") + " " + CompactJSON(p["data"]))
		}
	case tapelog.KindError:
		return str("kind") + ": " + str("message")
	}
	return CompactJSON(e.Payload)
}

// ContentText is the text of a chat message's content: a string as it is,
// the text parts of a list joined, anything else as JSON.
func ContentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var texts []string
		for _, part := range parts {
			if part.Text != "" {
				texts = append(texts, part.Text)
			} else if part.Type != "" {
				texts = append(texts, "["+part.Type+"]")
			}
		}
		return strings.Join(texts, " ")
	}
	return CompactJSON(raw)
}

// CallsText renders a list of tool calls as name(arguments);
// name(arguments), whatever shape each call has (views.ParseCall); an item
// that is no object as its JSON.
func CallsText(raw json.RawMessage) string {
	var calls []json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &calls) != nil {
		return CompactJSON(raw)
	}
	parts := make([]string, len(calls))
	for i, c := range calls {
		if c = bytes.TrimSpace(c); len(c) == 0 || c[0] != '{' {
			parts[i] = CompactJSON(c)
			continue
		}
		p := views.ParseCall(c)
		var s string
		if json.Unmarshal(p.Arguments, &s) == nil {
			parts[i] = p.Name + "(" + s + ")"
		} else {
			parts[i] = p.Name + "(" + CompactJSON(p.Arguments) + ")"
		}
	}
	return strings.Join(parts, "; ")
}

// CompactJSON is raw without insignificant white space, or raw as it is
// when it is not JSON; "" for nothing.
func CompactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}
