package amp

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// msg is a message of the thread being mapped.
type msg struct {
	key     string // its key in its entries' ids (keyOf)
	id      int64  // its messageId; -1 for none
	members []rawjson.Member
	blocks  [][]byte // its content's blocks (a string content is one text)
	read    map[string]bool
}

// message maps the i-th message of the thread, then the runs of the
// ledger events that end at it.
func (m *mapping) message(i int, it item) {
	m.line = it.line
	ms := source.ObjectOf(it.raw)
	if ms == nil {
		data := compact(it.raw)
		m.event(m.tid+"/message/"+source.ShortSum(data), "amp/message", data)
		return
	}
	g := &msg{id: -1, members: ms, read: map[string]bool{"role": true}}
	m.keyOf(i, g)
	role, _ := str(lookup(ms, "role"))
	g.blocksOf()
	switch role {
	case "user":
		m.user(g)
	case "assistant":
		m.assistant(g)
	case "info":
		m.info(g)
	default:
		data := compact(it.raw)
		m.event(m.tid+"/"+g.key, "amp/message", data)
		return
	}
	m.rest(g, role)
	if g.id >= 0 {
		m.ledgerAfter(g.id, i)
	}
}

// keyOf sets a message's key: its messageId, a whole number Amp counts
// up from 0 in each thread; for its k-th repeat in the thread, "<id>.<k>"
// (a fork copies its parent's messages, ids and all, and numbers its own
// from 0 again); "#<index>" without one (threads of 2025).
func (m *mapping) keyOf(i int, g *msg) {
	v := source.Trim(lookup(g.members, "messageId"))
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || n < 0 {
		g.key = "#" + strconv.Itoa(i)
		return
	}
	g.id, g.read["messageId"] = n, true
	g.key = strconv.FormatInt(n, 10)
	if k := m.seen[g.key]; k > 0 {
		m.seen[g.key] = k + 1
		g.key += "." + strconv.Itoa(k)
		return
	}
	m.seen[g.key] = 1
}

func lookup(ms []rawjson.Member, key string) []byte {
	v, _ := rawjson.Lookup(ms, key)
	return v
}

// blocksOf reads a message's content: a list of blocks, or a string (one
// text). Of any other shape it is not read, and kept with the message's
// other members.
func (g *msg) blocksOf() {
	v := source.Trim(lookup(g.members, "content"))
	switch {
	case len(v) > 0 && v[0] == '[':
		rawjson.ArrayItems(v, func(b []byte) { g.blocks = append(g.blocks, source.Trim(b)) })
	case len(v) > 0 && v[0] == '"':
		g.blocks = [][]byte{rawjson.NewObject().Raw("type", []byte(`"text"`)).Raw("text", v).Done()}
	default:
		return
	}
	g.read["content"] = true
}

// blockType is a block's type, and its members; "" for a block that is
// not an object with a string type.
func blockType(b []byte) (string, []rawjson.Member) {
	ms := source.ObjectOf(b)
	t, ok := str(lookup(ms, "type"))
	if !ok {
		return "", ms
	}
	return t, ms
}

// plainText is the text of a block that is {"type": "text", "text"} and
// nothing else, as its JSON string.
func plainText(ms []rawjson.Member) ([]byte, bool) {
	if len(ms) != 2 {
		return nil, false
	}
	v := source.Trim(lookup(ms, "text"))
	return v, len(v) > 0 && v[0] == '"'
}

// user maps a user's message: its tool results, then one message of its
// texts and images, then its other blocks. Its date is meta.sentAt.
func (m *mapping) user(g *msg) {
	meta := source.ObjectOf(lookup(g.members, "meta"))
	if d, ok := m.dateOf(lookup(meta, "sentAt"), millisDate, `"meta.sentAt"`); ok {
		m.date = d
		g.read["meta"] = len(meta) == 1 // else kept with the other members
	}
	m.ledgerBefore(m.date)
	var parts []json.RawMessage
	var texts [][]byte // as JSON strings
	allText := true
	for i, b := range g.blocks {
		t, ms := blockType(b)
		if t == "tool_result" && m.result(g, i, ms) {
			continue
		}
		if t == "text" {
			if s, ok := plainText(ms); ok {
				texts = append(texts, s)
				parts = append(parts, rawjson.NewObject().Str("type", "text").Raw("text", s).Done())
				continue
			}
		}
		if t == "image" {
			if p, ok := imagePart(ms); ok {
				parts, allText = append(parts, p), false
				continue
			}
		}
		m.block(g, i, t, b)
	}
	if len(parts) == 0 {
		return
	}
	var payload json.RawMessage
	switch {
	case !allText:
		payload = rawjson.NewObject().Str("role", "user").Raw("content", rawjson.Array(toBytes(parts)...)).Done()
	case len(texts) == 1:
		payload = textMessage("user", texts[0])
	default:
		payload = rawjson.NewObject().Str("role", "user").Raw("content", joined(texts)).Done()
	}
	synthetic := !absent(source.Trim(lookup(g.members, "source")))
	m.emit(tapelog.Entry{ID: m.tid + "/" + g.key, Kind: tapelog.KindMessage, Payload: payload}, false, m.where(synthetic))
}

// textMessage is the payload {"role", "content": text}, text a JSON
// string as written, in one buffer of its size.
func textMessage(role string, text []byte) json.RawMessage {
	b := make([]byte, 0, len(text)+len(role)+32)
	b = rawjson.AppendString(append(b, `{"role":`...), role)
	b = rawjson.AppendCompact(append(b, `,"content":`...), text)
	return append(b, '}')
}

// joined is texts (JSON strings) joined by newlines, as a JSON string.
func joined(texts [][]byte) json.RawMessage {
	list := make([]string, len(texts))
	for i, t := range texts {
		list[i], _ = rawjson.String(t)
	}
	return rawjson.AppendString(nil, strings.Join(list, "\n"))
}

func toBytes(parts []json.RawMessage) [][]byte {
	b := make([][]byte, len(parts))
	for i, p := range parts {
		b[i] = p
	}
	return b
}

// imagePart is an image block ({"type": "image", "source": {"type":
// "base64", "mediaType", "data"} or {"type": "url", "url"}}) as an OpenAI
// message's part.
func imagePart(ms []rawjson.Member) (json.RawMessage, bool) {
	src := source.ObjectOf(lookup(ms, "source"))
	if len(ms) != 2 || src == nil {
		return nil, false
	}
	t, _ := str(lookup(src, "type"))
	var u string
	switch {
	case t == "base64" && len(src) == 3:
		media, ok1 := str(lookup(src, "mediaType"))
		data, ok2 := str(lookup(src, "data"))
		if !ok1 || !ok2 {
			return nil, false
		}
		u = "data:" + media + ";base64," + data
	case t == "url" && len(src) == 2:
		var ok bool
		if u, ok = str(lookup(src, "url")); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	return rawjson.NewObject().Str("type", "image_url").Raw("image_url", rawjson.NewObject().Str("url", u).Done()).Done(), true
}

// where is the meta a message's entry adds to its source: the thread's
// working folder and branch, and synthetic for a message Amp wrote (a
// course correction).
func (m *mapping) where(synthetic bool) func(*rawjson.Object) {
	return func(o *rawjson.Object) {
		o.StrIf("cwd", m.cwd).StrIf("git_branch", m.branch)
		if synthetic {
			o.True("synthetic")
		}
	}
}

// block keeps a block the mapping does not read as an event
// amp/<type> (amp/block for one without a type).
func (m *mapping) block(g *msg, i int, t string, b []byte) {
	name := "amp/block"
	if t != "" && !strings.ContainsAny(t, "/ ") {
		name = "amp/" + t
	}
	m.event(m.tid+"/"+g.key+"/"+strconv.Itoa(i), name, compact(b))
}

// assistant maps the model's message: each text a message, each thinking
// a thinking event, its tool calls one tool_call entry at the place of
// the first, its usage a run (usage.go). Its date is its usage's
// timestamp, else its ledger event's.
func (m *mapping) assistant(g *msg) {
	usage := source.Trim(lookup(g.members, "usage"))
	if d, ok := m.dateOf(member(usage, "timestamp"), isoDate, `"usage.timestamp"`); ok {
		m.date = d
	} else if d, ok := m.ledger.dateFor(g.id); ok {
		m.date = d
	}
	m.ledgerBefore(m.date)
	st := source.ObjectOf(lookup(g.members, "state"))
	stateType, _ := str(lookup(st, "type"))
	if stateType == "streaming" {
		m.streaming = true
		data := source.MembersObject(g.members, nil)
		m.event(m.tid+"/"+g.key+"/streaming", "amp/streaming", data)
		for k := range g.members {
			g.read[string(g.members[k].Key)] = true
		}
		return
	}
	stop := ""
	if stateType == "complete" && (len(st) == 1 || len(st) == 2 && lookup(st, "stopReason") != nil) {
		if s, ok := str(lookup(st, "stopReason")); ok || len(st) == 1 {
			stop, g.read["state"] = s, true
		}
	}
	calls := m.calls(g)
	for i, b := range g.blocks {
		t, ms := blockType(b)
		id := m.tid + "/" + g.key + "/" + strconv.Itoa(i)
		switch {
		case t == "text":
			if s, ok := plainText(ms); ok {
				m.emit(tapelog.Entry{ID: id, Kind: tapelog.KindMessage, Payload: textMessage("assistant", s)}, false, m.where(false))
				continue
			}
		case t == "thinking":
			if v := source.Trim(lookup(ms, "thinking")); len(v) > 0 && v[0] == '"' {
				m.event(id, "thinking", source.MembersObject(ms, func(k string) bool { return k == "type" }))
				continue
			}
		case t == "tool_use" && calls.first == i:
			m.emit(tapelog.Entry{ID: m.tid + "/" + g.key + "/calls", Kind: tapelog.KindToolCall, Payload: calls.payload()}, false, nil)
			continue
		case t == "tool_use" && calls.has[i]:
			continue
		}
		m.block(g, i, t, b)
	}
	if m.usage(g, usage, stop, stateType) {
		g.read["usage"] = true
	}
}

// info maps a message Amp adds itself: a summary of the thread so far (a
// compaction: a new anchor, from which the model's context is the summary
// and what follows), a shell command the user ran, a notice.
func (m *mapping) info(g *msg) {
	for i, b := range g.blocks {
		t, ms := blockType(b)
		if t == "summary" && len(ms) == 2 {
			s := source.ObjectOf(lookup(ms, "summary"))
			kind, _ := str(lookup(s, "type"))
			if text, ok := str(lookup(s, "summary")); ok && kind == "message" && len(s) == 2 {
				state := rawjson.NewObject().Str("source", "amp").Str("summary", text).Done()
				payload := rawjson.NewObject().Str("name", "compact").Raw("state", state).Done()
				m.emit(tapelog.Entry{ID: m.tid + "/" + g.key + "/" + strconv.Itoa(i), Kind: tapelog.KindAnchor, Payload: payload}, true, nil)
				continue
			}
		}
		m.block(g, i, t, b)
	}
}

// rest keeps a message's members the mapping did not read (a user's
// agentMode, userState, fileMentions; an assistant's state when it is not
// a plain "complete") as one event amp/<role>.
func (m *mapping) rest(g *msg, role string) {
	var rest []rawjson.Member
	for _, mb := range g.members {
		if !g.read[string(mb.Key)] {
			rest = append(rest, mb)
		}
	}
	if len(rest) > 0 {
		m.event(m.tid+"/"+g.key+"/rest", "amp/"+role, source.MembersObject(rest, nil))
	}
}
