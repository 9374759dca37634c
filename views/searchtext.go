package views

import (
	"strings"

	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// SearchText is the text of an entry that search finds: the words people
// look for, not the JSON around them.
//
//   - message: the content (a string, or the text of its parts), and the
//     names and arguments of its tool calls;
//   - system: the content; tool_call: each call's name and arguments;
//   - tool_result: every string in the results;
//   - anchor: the name, and the keys and strings of the state;
//   - event: the name, and the keys and strings of the data;
//   - error: the kind and the message;
//   - any other kind: every key and string of the payload.
func SearchText(e tapelog.Entry) string {
	p, err := rawjson.DecodeObject(e.Payload)
	if err != nil {
		return ""
	}
	return searchText(e.Kind, p, len(e.Payload)) // without the views' facts, which a snippet does not need
}

// EntryFacts is what the views need of an entry, as the projector
// stores it.
func EntryFacts(e tapelog.Entry) Facts {
	_, facts := TextAndFacts(e)
	return facts
}

// TextAndFacts is an entry's search text and the facts the views need of
// it, from one decode of its payload: decoding each part again cost as
// much as the rest of a rebuild's parsing.
func TextAndFacts(e tapelog.Entry) (string, Facts) {
	p, err := rawjson.DecodeObject(e.Payload)
	if err != nil {
		return "", Facts{}
	}
	return searchText(e.Kind, p, len(e.Payload)), Extract(e.Kind, p, e.Meta)
}

// searchText collects the text of a decoded payload of size bytes, which
// it rarely exceeds (strings lose their quotes and escapes, and gain a
// newline): the builder grown once was written once, where doubling it
// copied a long tool output three times.
func searchText(kind string, p map[string]any, size int) string {
	var b strings.Builder
	b.Grow(size)
	add := func(v any, keys bool) { WriteStrings(&b, v, keys) }
	switch kind {
	case tapelog.KindMessage, tapelog.KindSystem:
		add(p["content"], false)
		add(p["tool_calls"], false)
	case tapelog.KindToolCall:
		add(p["calls"], false)
	case tapelog.KindToolResult:
		add(p["results"], false)
	case tapelog.KindAnchor, tapelog.KindEvent:
		add(p["name"], false)
		add(p["state"], true)
		add(p["data"], true)
	case tapelog.KindError:
		add(p["kind"], false)
		add(p["message"], false)
	default:
		add(p, true)
	}
	return b.String()
}
