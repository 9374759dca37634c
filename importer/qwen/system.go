package qwen

import (
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// system maps a system record: a chat compression is an anchor, a custom
// title a title event, any other subtype (telemetry, slash commands,
// rewinds, snapshots...) an event qwen/system/<subtype> of the record
// without its envelope.
func (in *input) system() []source.Output {
	switch in.r.Subtype {
	case "chat_compression":
		if o, ok := in.compaction(); ok {
			return o
		}
	case "custom_title":
		if o, ok := in.title(); ok {
			return o
		}
	}
	name := "qwen/system"
	if in.r.Subtype != "" {
		name += "/" + in.r.Subtype
	}
	return in.event(name, in.r.withoutEnvelope())
}

// compaction is the anchor a chat compression starts: its state says the
// summary (the text of the first turn of the compressed history, the one
// Qwen Code writes the summary into) and the compression's info (token
// counts and status). The rest of the compressed history is the turns
// kept, copies of records the tape holds: not kept. A history whose first
// turn is not a user's text is kept whole instead.
func (in *input) compaction() ([]source.Output, bool) {
	p := in.r.SystemPayload
	if len(p) == 0 || p[0] != '{' {
		return nil, false
	}
	state := rawjson.NewObject().Str("source", "qwen")
	if hist, ok := lookupMember(p, "compressedHistory"); ok {
		if summary, ok := in.summaryOf(hist); ok {
			state.Str("summary", summary)
		} else {
			state.Raw("compressed_history", rawjson.AppendCompact(nil, hist))
		}
	}
	if info, ok := lookupMember(p, "info"); ok {
		state.Raw("compression", rawjson.AppendCompact(nil, info))
	}
	payload := rawjson.NewObject().Str("name", "compact").Raw("state", state.Done()).Done()
	o := in.entry(tapelog.KindAnchor, payload, in.meta())
	o.Anchor = true
	return []source.Output{o}, true
}

// summaryOf is the text of the first turn of a compressed history, when
// it is a user's turn of text parts only.
func (in *input) summaryOf(hist []byte) (string, bool) {
	var first []byte
	rawjson.ArrayItems(hist, func(item []byte) {
		if first == nil {
			first = item
		}
	})
	if len(first) == 0 || first[0] != '{' {
		return "", false
	}
	if role, _ := lookupMember(first, "role"); string(role) != `"user"` {
		return "", false
	}
	parts, ok := decodeMessage(first, nil)
	if !ok || len(parts) == 0 {
		return "", false
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.kind != textPart {
			return "", false
		}
		texts = append(texts, p.text)
	}
	return strings.Join(texts, "\n"), true
}

// title is the title event of a custom_title record ({"customTitle",
// "titleSource"}): tape tapes shows the last one as the tape's title.
// Qwen Code writes the title again every 32 KB of transcript, so that its
// session list finds it near the end: each is an event.
func (in *input) title() ([]source.Output, bool) {
	var title, from string
	ok, titled := true, false
	rawjson.ObjectMembers(in.r.SystemPayload, func(key, value []byte) {
		value = source.Trim(value)
		var isString bool
		switch string(key) {
		case "customTitle":
			title, isString = source.StringValue(value)
			titled = isString
		case "titleSource":
			from, isString = source.StringValue(value)
		}
		ok = ok && isString
	})
	if !ok || !titled {
		return nil, false
	}
	data := rawjson.NewObject().Str("title", title).Str("from", "custom_title").StrIf("title_source", from).Done()
	return []source.Output{in.entry(tapelog.KindEvent, source.NamedData("title", data), in.meta())}, true
}
