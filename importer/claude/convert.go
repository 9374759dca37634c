package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	r, mismatch, err := c.decode(l)
	switch {
	case err != nil:
		return c.closeAll(), fmt.Errorf("not a JSON record: %v", source.JSONReason(err))
	case !source.IsObject(l.Data):
		return c.closeAll(), errors.New("not a JSON object")
	case mismatch || r.Message.decodeContent() != nil || r.Type == "":
		// An object of a shape this mapping does not know (no type, a
		// field of another type): kept as it is, as an event.
		r = record{Type: r.Type, UUID: r.UUID, ParentUUID: r.ParentUUID, SessionID: r.SessionID, RawDate: r.RawDate, unknown: true}
	}
	var warn error
	if date, bad := source.RecordDate(r.RawDate, c.st.Date); bad != "" {
		r.Timestamp, r.badDate, warn = date, source.Trim(r.RawDate), source.LineWarning(bad)
	} else {
		r.Timestamp = date
	}
	c.st.Date = r.Timestamp
	return c.mapRecord(l, r), warn
}

// decode reads a line into a record in one pass (scanRecord), or with
// encoding/json the lines scanRecord leaves to it, and every line when
// c.slow is set. mismatch says the line is a JSON object with a member
// of another type than the mapping reads; err, that it is no JSON value.
func (c *converter) decode(l tapelog.RawLine) (r record, mismatch bool, err error) {
	c.membersOf = 0
	if !c.slow {
		var ok bool
		if c.members, mismatch, ok = scanRecord(l.Data, c.members, &r); ok {
			c.membersOf = l.No
			return r, mismatch, nil
		}
		r = record{}
	}
	err = json.Unmarshal(l.Data, &r)
	if source.IsTypeError(err) {
		return r, true, nil
	}
	return r, false, err
}

// record maps a record whose line decoded.
func (c *converter) mapRecord(l tapelog.RawLine, r record) []source.Output {
	var out []source.Output
	// A turn is held while its lines come; any line that is not metadata
	// and not the turn's own closes it.
	if c.turn != nil && !(r.Type == "assistant" && r.Message.ID != "" && r.Message.ID == c.turn.msgID) && isChainRecord(r.Type) {
		out = append(out, c.closeTurn()...)
	}
	if c.bound != nil && isChainRecord(r.Type) {
		out = append(out, c.closeBoundary(r)...)
		if _, ok := compactSummary(r); ok {
			return out // its text is the anchor's summary
		}
	}
	sess := c.session(r)
	switch {
	case r.unknown:
	case r.Type == "assistant":
		return append(out, c.assistant(l, r, sess)...)
	case r.Type == "user":
		return append(out, c.user(l, r, sess)...)
	case r.Type == "system" && r.Subtype == "compact_boundary":
		// A session's first anchor goes out before the boundary is held:
		// metadata held after it would otherwise start the tape, and its
		// session/start anchor would follow the compaction's.
		out = append(out, c.start(l, r, sess)...)
		c.hold()
		c.bound = &boundary{line: l.No, offset: l.Offset, rec: r.detached(), sess: sess, meta: c.meta(l, r, sess)}
		return out
	case r.Type == "progress":
		// Copies of a subagent's records, which its own file holds; only
		// their usage is kept, marked as a copy (progress.go).
		o := c.progressUsage(l, r, sess)
		switch {
		case c.turn != nil:
			c.turn.add(o...)
		case c.bound != nil:
			c.bound.after = append(c.bound.after, o...)
		default:
			out = append(out, o...)
		}
		return out
	}
	o := c.event(l, r, sess)
	if c.turn != nil {
		c.turn.add(o...) // metadata written in the middle of a turn stays in its place
		return out
	}
	if c.bound != nil {
		c.bound.after = append(c.bound.after, o...)
		return out
	}
	return append(out, o...)
}

// isChainRecord reports whether a record is part of the conversation
// (and so ends a held turn), rather than metadata written beside it.
func isChainRecord(t string) bool { return t == "user" || t == "assistant" || t == "system" }

// session is the session a record belongs to: the file's, or a subagent's
// for the sidechain lines Claude Code 2.0 wrote into the session's file.
func (c *converter) session(r record) source.Session {
	if c.st.Session.ID == "" {
		// A file not named by its session's id (one copied by hand): the
		// first line decides, and no later line changes it.
		c.st.Session.ID = r.SessionID
		if c.st.Session.ID == "" {
			c.st.Session.ID = strings.TrimSuffix(filepath.Base(c.path), ".jsonl")
		}
	}
	s := c.st.Session
	if s.Agent == "" && r.IsSidechain {
		s.Agent = "sidechain"
		if r.AgentID != "" {
			s.Agent = r.AgentID
		}
	}
	return s
}

// start makes the first anchor of a session's tape, the first time an
// entry goes to it.
func (c *converter) start(l tapelog.RawLine, r record, s source.Session) []source.Output {
	key := s.Key()
	if c.st.Started[key] {
		return nil
	}
	c.st.Started[key] = true
	state := map[string]any{"source": "claude", "session_id": s.ID, "file": c.path}
	if s.Agent != "" {
		state["agent_id"] = s.Agent
		state["parent_session"] = s.ID
	}
	if r.CWD != "" {
		state["cwd"] = r.CWD
	}
	if r.GitBranch != "" {
		state["git_branch"] = r.GitBranch
	}
	if r.Version != "" {
		state["version"] = r.Version
	}
	id := s.ID
	if s.Agent != "" {
		id += "/agent/" + s.Agent
	}
	payload := source.MustJSON(map[string]any{"name": "session/start", "state": state})
	meta := source.Meta(c.path, l.No, "", "", nil).Done()
	return []source.Output{{Session: s, Anchor: true, Entry: tapelog.Entry{ID: id, Kind: tapelog.KindAnchor, Payload: payload, Meta: meta, Date: r.Timestamp}}}
}

// meta is the meta of an entry made from line l: where it came from, and
// the working directory and branch when they changed.
func (c *converter) meta(l tapelog.RawLine, r record, s source.Session) json.RawMessage {
	m := recordMeta(c.path, l, r)
	if r.CWD != "" && r.CWD != c.st.CWD {
		m.Str("cwd", r.CWD)
		c.st.CWD = r.CWD
	}
	if r.GitBranch != "" && r.GitBranch != c.st.Branch {
		m.Str("git_branch", r.GitBranch)
		c.st.Branch = r.GitBranch
	}
	if r.IsMeta {
		m.True("synthetic") // injected by Claude Code, not typed by the user
	}
	if r.IsCompactSummary {
		// A summary without its boundary (the boundary was imported
		// alone once the file went quiet): a message, marked.
		m.True("compact_summary")
	}
	if s.Agent != "" && s.Agent != c.st.Session.Agent {
		m.True("sidechain")
	}
	return m.Done()
}

// recordMeta starts the meta of an entry made from line l (source.Meta).
func recordMeta(path string, l tapelog.RawLine, r record) *rawjson.Object {
	var parent string
	if r.ParentUUID != nil {
		parent = *r.ParentUUID
	}
	return source.Meta(path, l.No, r.UUID, parent, r.badDate)
}

// entryID is the id of the k-th entry made from line l.
func (c *converter) entryID(l tapelog.RawLine, r record, k int) string {
	if r.UUID != "" {
		return source.WithPart(r.UUID, k)
	}
	return source.LineID(c.path, l.No, k)
}

// user maps a user line: its text, its tool results.
func (c *converter) user(l tapelog.RawLine, r record, s source.Session) []source.Output {
	out := c.start(l, r, s)
	meta := c.meta(l, r, s)
	text, parts, results := userContent(&r.Message.Content)
	k := 0
	add := func(kind string, payload json.RawMessage) {
		out = append(out, source.Output{Session: s, Entry: tapelog.Entry{ID: c.entryID(l, r, k), Kind: kind, Payload: payload, Meta: meta, Date: r.Timestamp}})
		k++
	}
	if len(results) > 0 {
		add(tapelog.KindToolResult, resultsPayload(results))
	}
	switch {
	case text != nil:
		add(tapelog.KindMessage, rawjson.NewObject().Str("role", "user").Str("content", *text).Done())
	case len(parts) > 0:
		add(tapelog.KindMessage, rawjson.NewObject().Str("role", "user").Raw("content", source.MustJSON(parts)).Done())
	}
	if k == 0 {
		add(tapelog.KindEvent, c.eventPayload("claude/user", l)) // no text and no result: kept as it is
	}
	return out
}

// userContent splits a user message's content into its text (a
// string content), its other parts in the OpenAI shape, and its tool
// results (resultsPayload writes them).
func userContent(content *content) (text *string, parts []any, results []block) {
	if content.Text != nil {
		return content.Text, nil, nil
	}
	var raw []json.RawMessage
	for i, b := range content.Blocks {
		switch {
		case b.Type == "tool_result" && !b.odd:
			results = append(results, b)
		default:
			if raw == nil {
				raw = content.rawBlocks()
			}
			parts = append(parts, chatPart(b, raw[i]))
		}
	}
	return nil, parts, results
}

// resultsPayload is the payload of a tool_result entry:
// {"results": [{"tool_call_id", "content", "is_error" when true}...]},
// written into one buffer of its size: a tool's output, the bulk of a
// transcript, is copied once (it was three times, through an Object per
// result and rawjson.Array).
func resultsPayload(results []block) json.RawMessage {
	n := 16
	for _, b := range results {
		n += len(b.ToolUseID) + len(b.Content) + 64
	}
	p := append(make([]byte, 0, n), `{"results":[`...)
	for i, b := range results {
		if i > 0 {
			p = append(p, ',')
		}
		p = append(p, `{"tool_call_id":`...)
		p = rawjson.AppendString(p, b.ToolUseID)
		p = append(p, `,"content":`...)
		if c := source.Trim(b.Content); len(c) > 0 {
			p = append(p, c...)
		} else {
			p = append(p, "null"...)
		}
		if b.IsError {
			p = append(p, `,"is_error":true`...)
		}
		p = append(p, '}')
	}
	return append(p, "]}"...)
}

// chatPart is a content block as an OpenAI chat part: text as text, an
// image as an image_url with a data URL, anything else as it is.
func chatPart(b block, raw json.RawMessage) any {
	switch {
	case b.odd:
	case b.Type == "text" && b.Text != nil:
		return map[string]any{"type": "text", "text": *b.Text}
	case b.Type == "image" && b.Source != nil:
		var src struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		}
		if json.Unmarshal(b.Source, &src) == nil && src.Type == "base64" {
			return map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:" + src.MediaType + ";base64," + src.Data}}
		}
	}
	return raw
}

// event keeps a record tape has no entry kind for as an event named after
// its type: everything but the envelope, which the meta holds.
func (c *converter) event(l tapelog.RawLine, r record, s source.Session) []source.Output {
	out := c.start(l, r, s)
	name := "claude/" + r.Type
	if r.Type == "" {
		name = "claude/record"
	}
	if r.Subtype != "" {
		name += "/" + r.Subtype
	}
	payload := c.eventPayload(name, l)
	switch {
	case r.unknown:
		// Of a shape the mapping does not read: the envelope too may be
		// what it could not read, and the meta does not hold it.
		payload = source.NamedData(name, source.Trim(l.Data))
	case r.Type == "custom-title" && r.CustomTitle != "", r.Type == "ai-title" && r.AITitle != "":
		// Claude Code's own name for the session: tape tapes shows it.
		title := r.CustomTitle
		if title == "" {
			title = r.AITitle
		}
		payload = source.MustJSON(map[string]any{"name": "title", "data": map[string]any{"title": title, "from": r.Type}})
	}
	e := tapelog.Entry{ID: c.entryID(l, r, 0), Kind: tapelog.KindEvent, Payload: payload, Meta: c.meta(l, r, s), Date: r.Timestamp}
	return append(out, source.Output{Session: s, Entry: e})
}

// eventPayload is {"name": name, "data": the line without its envelope}:
// from the members scanRecord split the line into, when it did.
func (c *converter) eventPayload(name string, l tapelog.RawLine) json.RawMessage {
	if c.membersOf == l.No && l.No != 0 {
		if p, ok := eventData(name, c.members); ok {
			return p
		}
	}
	return eventPayloadJSON(name, l.Data)
}

// eventPayloadJSON is eventPayload by encoding/json, for lines scanRecord
// left to it.
func eventPayloadJSON(name string, line []byte) json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(line, &m) // it decoded as a record already
	for _, k := range envelopeKeys {
		delete(m, k)
	}
	return source.MustJSON(map[string]any{"name": name, "data": m})
}
