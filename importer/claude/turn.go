package claude

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// openTurn is an assistant turn being read: Claude Code writes one line
// per content block, all with the message's id, and the usage on each,
// final only on the later ones. The turn is held until a line of another
// record comes, then becomes its entries in order, its tool calls one
// tool_call entry, and its usage one run event.
type openTurn struct {
	msgID  string
	line   int
	offset int64
	sess   source.Session
	out    []source.Output
	callAt int      // index in out of the tool_call entry; -1 while there is none
	calls  [][]byte // each a call object
	// The usage with the largest total among the turn's lines, as ccusage
	// counts it, and the line it is on.
	usage            *tokenUsage
	model, requestID string
	usageDate        string
	usageMeta        json.RawMessage
	usageAt          int // where in out the run event goes: after the line it came from
	firstID          string
}

func (t *openTurn) add(o ...source.Output) { t.out = append(t.out, o...) }

// assistant maps an assistant line: one content block, usually.
func (c *converter) assistant(l tapelog.RawLine, r record, s source.Session) []source.Output {
	if c.turn == nil {
		c.hold()
		c.turn = &openTurn{msgID: r.Message.ID, line: l.No, offset: l.Offset, sess: s, callAt: -1, firstID: c.entryID(l, r, 0)}
	}
	t := c.turn
	t.add(c.start(l, r, s)...)
	meta := c.meta(l, r, s)
	k := 0
	entry := func(kind string, payload json.RawMessage) {
		t.add(source.Output{Session: s, Entry: tapelog.Entry{ID: c.entryID(l, r, k), Kind: kind, Payload: payload, Meta: meta, Date: r.Timestamp}})
		k++
	}
	blocks := r.Message.Content.Blocks
	if text := r.Message.Content.Text; text != nil {
		blocks = []block{{Type: "text", Text: text}}
	}
	var raw []json.RawMessage
	for i, b := range blocks {
		switch read := !b.odd; { // an odd block is kept as it is
		case read && b.Type == "text" && b.Text != nil && r.IsAPIError:
			entry(tapelog.KindError, rawjson.NewObject().Str("kind", "api").Str("message", *b.Text).Done())
		case read && b.Type == "text" && b.Text != nil:
			entry(tapelog.KindMessage, rawjson.NewObject().Str("role", "assistant").Str("content", *b.Text).Done())
		case read && b.Type == "thinking" && b.Thinking != nil:
			data := rawjson.NewObject().Str("thinking", *b.Thinking).StrIf("signature", b.Signature).Done()
			entry(tapelog.KindEvent, rawjson.NewObject().Str("name", "thinking").Raw("data", data).Done())
		case read && b.Type == "tool_use":
			if t.callAt < 0 {
				t.callAt = len(t.out)
				entry(tapelog.KindToolCall, nil) // its payload is written when the turn ends
			}
			args := string(source.OrNull(source.Trim(b.Input)))
			fn := rawjson.NewObject().Str("name", b.Name).Str("arguments", args).Done()
			t.calls = append(t.calls, rawjson.NewObject().Str("id", b.ID).Str("type", "function").Raw("function", fn).Done())
		default:
			if raw == nil {
				raw = r.Message.Content.rawBlocks()
			}
			entry(tapelog.KindEvent, blockEvent(b, raw[i]))
		}
	}
	if len(blocks) == 0 {
		entry(tapelog.KindEvent, c.eventPayload("claude/assistant", l)) // no block: kept as it is
	}
	if u := r.Message.Usage; u != nil && r.Message.Model != "<synthetic>" && (t.usage == nil || u.total() > t.usage.total()) {
		t.usage, t.model, t.requestID, t.usageDate = u, r.Message.Model, r.RequestID, r.Timestamp
		t.usageMeta = recordMeta(c.path, l, r).Done()
		t.usageAt = len(t.out)
	}
	if r.Message.ID == "" {
		return c.closeTurn() // a turn without an id cannot continue on another line
	}
	return nil
}

// blockEvent is the payload of an event that keeps a content block
// the mapping has no entry for: {"name": "claude/<type>", "data": the
// block without its type}. A block that is not an object, or whose
// members the mapping cannot read, is kept whole: "claude/block" with the
// block as written.
func blockEvent(b block, raw json.RawMessage) json.RawMessage {
	var data map[string]json.RawMessage
	if b.odd || b.Type == "" || json.Unmarshal(raw, &data) != nil {
		return source.NamedData("claude/block", raw)
	}
	delete(data, "type")
	return source.MustJSON(map[string]any{"name": "claude/" + b.Type, "data": data})
}

// closeTurn emits the held turn.
func (c *converter) closeTurn() []source.Output {
	t := c.turn
	c.turn = nil
	if t.callAt >= 0 {
		t.out[t.callAt].Entry.Payload = rawjson.NewObject().Raw("calls", rawjson.Array(t.calls...)).Done()
	}
	if t.usage != nil {
		payload := runPayload(t.usage, t.model, usageID(t.msgID, t.requestID), false)
		run := source.Output{Session: t.sess, Entry: tapelog.Entry{ID: t.firstID + "/usage", Kind: tapelog.KindEvent, Payload: payload, Meta: t.usageMeta, Date: t.usageDate}}
		t.out = slices.Insert(t.out, t.usageAt, run)
	}
	return t.out
}

// usageID is the id of a turn's usage: one usage per message and request,
// as Claude Code repeats it on every line of a turn (see
// views.Run.UsageID); "" for a turn without a message id.
func usageID(msgID, requestID string) string {
	if msgID == "" || requestID == "" {
		return msgID
	}
	return msgID + ":" + requestID
}

// runPayload is the payload of a turn's run event, {"data": {"model",
// "status": "ok", "usage": {the four counts}, "usage_id" unless "",
// "usage_copy": true if copied}, "name": "run"}, as source.MustJSON wrote
// it from maps (keys sorted), without encoding/json: one a turn, 3% of an
// import's CPU that way. copied marks a usage repeated from another
// transcript (progress.go).
func runPayload(u *tokenUsage, model, id string, copied bool) json.RawMessage {
	b := make([]byte, 0, 192+len(model)+len(id))
	b = append(b, `{"data":{"model":`...)
	b = rawjson.AppendString(b, model)
	b = append(b, `,"status":"ok","usage":{"cache_creation_input_tokens":`...)
	b = strconv.AppendInt(b, u.CacheCreation, 10)
	b = append(b, `,"cache_read_input_tokens":`...)
	b = strconv.AppendInt(b, u.CacheRead, 10)
	b = append(b, `,"input_tokens":`...)
	b = strconv.AppendInt(b, u.Input, 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, u.Output, 10)
	b = append(b, '}')
	if copied {
		b = append(b, `,"usage_copy":true`...)
	}
	if id != "" {
		b = append(b, `,"usage_id":`...)
		b = rawjson.AppendString(b, id)
	}
	return append(b, `},"name":"run"}`...)
}
