package cursor

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// bubbleRoles are the roles of a bubble's type: 1 the user's, 2 the
// assistant's (its tools' calls and results too).
var bubbleRoles = map[string]string{"1": "user", "2": "assistant"}

// bubble maps a bubble's line (its data; id the bubble's id as its key
// names it), its entries dated by its createdAt (an RFC 3339 string, or
// milliseconds before Cursor 0.40), ids the bubble's id: its thinking
// (thinking, allThinkingBlocks) as thinking events; its text a message of
// its role; its toolFormerData a call and, once it ran, its result; its
// codeBlocks an event cursor/code_blocks; a model its modelInfo names
// first a run event; what else it holds that says something an event
// cursor/bubble. A bubble of another type, or that is not an object, is
// an event cursor/bubble of it whole.
func (c *converter) bubble(in *input, id string) []source.Output {
	raw := in.rec.Raw("data")
	b := obj(source.ObjectOf(raw))
	role := bubbleRoles[string(b.Raw("type"))]
	if bid := b.Str("bubbleId"); bid != "" {
		id = bid
	}
	if id != "" {
		in.id = c.st.Session.ID + "/" + id
		if in.rec.Has("inline") && b.Str("bubbleId") == "" {
			in.id = source.WithPart(c.st.Session.ID+"/inline", int(in.rec.Int("inline"))+1)
		}
	}
	in.uuid = id
	for _, k := range []string{"createdAt", "timestamp"} { // timestamp: Cursor before 0.40
		v := source.Trim(b.Raw(k))
		if at := msDate(v); at != "" {
			c.st.Date, in.date = at, at
			break
		} else if !isEmpty(v) && (isString(v) || v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
			in.bad = rawjson.AppendCompact(nil, v) // kept as written, in the meta
		}
	}
	if b == nil || role == "" {
		return []source.Output{c.event(in, "cursor/bubble", orNull(raw))}
	}
	read := []string{"type"}
	for _, k := range []string{"bubbleId", "createdAt", "timestamp"} {
		if v := source.Trim(b.Raw(k)); len(v) == 0 || v[0] != '{' && v[0] != '[' {
			read = append(read, k) // a string or a number: in the entries' ids, dates or meta
		}
	}
	if v := b.Raw("_v"); len(v) > 0 && v[0] >= '0' && v[0] <= '9' {
		in.v = v
		read = append(read, "_v")
	}
	var out []source.Output
	if m := b.Sub("modelInfo"); len(m) == 1 && m.Str("modelName") != "" {
		out = append(out, c.run(in, m.Str("modelName"))...)
		read = append(read, "modelInfo")
	}
	thinking := b.Sub("thinking")
	if t := thinking.Raw("text"); isString(t) {
		out = append(out, c.thinking(in, t, rest(thinking, "text")))
		read = append(read, "thinking")
	}
	if blocks, ok := thinkingBlocks(b.Raw("allThinkingBlocks"), thinking.Str("text")); ok {
		for _, blk := range blocks {
			out = append(out, c.thinking(in, blk.Raw("text"), rest(blk, "text")))
		}
		read = append(read, "allThinkingBlocks")
	}
	if t := b.Raw("text"); isString(t) {
		if string(t) != `""` {
			out = append(out, c.message(in, role, t, nil))
		}
		read = append(read, "text")
		if isString(b.Raw("richText")) {
			read = append(read, "richText") // the text, as Cursor's editor lays it out
		}
	}
	if t := b.Sub("toolFormerData"); t != nil {
		out = append(out, c.tool(in, id, t)...)
		read = append(read, "toolFormerData")
	}
	if cb := source.Trim(b.Raw("codeBlocks")); len(cb) > 0 && cb[0] == '[' {
		if !isEmpty(cb) {
			out = append(out, c.event(in, "cursor/code_blocks", rawjson.NewObject().Raw("codeBlocks", rawjson.AppendCompact(nil, cb)).Done()))
		}
		read = append(read, "codeBlocks")
	}
	if r := rest(b, read...); string(r) != "{}" || len(out) == 0 {
		out = append(out, c.event(in, "cursor/bubble", r))
	}
	return out
}

// thinkingBlocks are the blocks of allThinkingBlocks, each an object with
// a text, but one whose text is the bubble's thinking's (made already);
// ok is false when the member is not an array of such blocks.
func thinkingBlocks(v []byte, made string) ([]obj, bool) {
	v = source.Trim(v)
	if len(v) == 0 || v[0] != '[' {
		return nil, false
	}
	var out []obj
	ok := true
	rawjson.ArrayItems(v, func(item []byte) {
		blk := obj(source.ObjectOf(item))
		if !isString(blk.Raw("text")) {
			ok = false
			return
		}
		if t := blk.Str("text"); t != "" && t != made {
			out = append(out, blk)
		}
	})
	return out, ok
}

// finished are the statuses of a tool that ran, and whether it failed.
var finished = map[string]bool{"completed": false, "success": false, "error": true, "cancelled": true, "aborted": true, "rejected": true}

// tool maps a bubble's toolFormerData, {"tool", "toolCallId", "name",
// "params", "rawArgs", "status", "result", "userDecision", "error",
// "additionalData", ...}: a call of its name (else "tool_<tool>"), id its
// toolCallId (else the bubble's), arguments its params (else its
// rawArgs); and, once it has a result or a status of a tool that ran, its
// result, failed when the status is error, cancelled, aborted or
// rejected, or the user rejected it. The call keeps what else it holds.
func (c *converter) tool(in *input, bubble string, t obj) []source.Output {
	callID := t.Str("toolCallId")
	if callID == "" {
		callID = bubble + "/tool"
	}
	name := t.Str("name")
	if name == "" {
		name = "tool_" + compactText(t.Raw("tool"))
	}
	status := t.Str("status")
	failed, ran := finished[status]
	ran = ran || !isEmpty(t.Raw("result"))
	var read []string
	if ran {
		read = []string{"result", "userDecision", "error"} // the result's
		if status != "" {
			read = append(read, "status")
		}
	}
	for _, k := range []string{"toolCallId", "name"} {
		if t.Str(k) != "" {
			read = append(read, k)
		}
	}
	args := compactText(t.Raw("params"))
	if isEmpty(t.Raw("params")) {
		args = compactText(t.Raw("rawArgs"))
		read = append(read, "params", "rawArgs")
	} else {
		read = append(read, "params")
		if compactText(t.Raw("rawArgs")) == args {
			read = append(read, "rawArgs")
		}
	}
	out := []source.Output{c.call(in, callID, name, args, rest(t, read...))}
	if !ran {
		return out // not run yet: pending
	}
	failed = failed || t.Str("userDecision") == "rejected"
	content := source.Trim(t.Raw("result"))
	if len(content) == 0 || string(content) == "null" {
		content = []byte(`""`)
	}
	details := rawjson.NewObject().StrIf("status", status)
	for _, k := range []string{"userDecision", "error"} {
		if v := t.Raw(k); !isEmpty(v) {
			details.Raw(k, rawjson.AppendCompact(nil, v))
		}
	}
	if !isString(content) { // a string is compact as it is
		content = rawjson.AppendCompact(nil, content)
	}
	return append(out, c.result(in, callID, content, failed, details.Done()))
}
