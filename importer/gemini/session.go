package gemini

import (
	"bytes"
	"encoding/json"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// head is what the first anchor keeps of a session's header.
type head struct {
	projectHash, kind string
	directories       []string
	date              string // its startTime, when that is a date
}

// start makes the first anchor of the session's tape, before its first
// entry.
func (c *converter) start(l tapelog.RawLine, h *head) []source.Output {
	if c.st.Started {
		return nil
	}
	c.st.Started = true
	s := c.st.Session
	state := map[string]any{"source": "gemini", "session_id": s.ID, "file": c.path}
	id := s.ID
	if s.Agent != "" {
		state["agent_id"], state["parent_session"] = s.Agent, s.ID
		id += "/agent/" + s.Agent
	}
	date := c.st.Date
	if h != nil {
		for k, v := range map[string]string{"project_hash": h.projectHash, "kind": h.kind} {
			if v != "" {
				state[k] = v
			}
		}
		if len(h.directories) > 0 {
			state["directories"], state["cwd"] = h.directories, h.directories[0]
		}
		if h.date != "" {
			date = h.date
		}
	}
	payload := source.MustJSON(map[string]any{"name": "session/start", "state": state})
	e := tapelog.Entry{ID: id, Kind: tapelog.KindAnchor, Payload: payload, Meta: source.Meta(c.path, l.No, "", "", nil).Done(), Date: date}
	return []source.Output{{Session: s, Anchor: true, Entry: e}}
}

// members decodes an object's members, in the order written (the last
// of a repeated key wins, in its first place), in one pass.
func members(raw json.RawMessage) (keys []string, m map[string]json.RawMessage) {
	m = map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, m
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		k, _ := t.(string)
		if _, ok := m[k]; !ok {
			keys = append(keys, k)
		}
		m[k] = v
	}
	return keys, m
}

// header maps the session's header: {"sessionId", "projectHash",
// "startTime", "lastUpdated", "kind", "directories", "summary"}, the
// first line of a .jsonl; a document's members but its messages; or a
// whole legacy record on one line, messages and all.
func (c *converter) header(in input) []source.Output {
	keys, m := members(in.raw)
	return c.headerMembers(in, keys, m)
}

// headerMembers maps a header's members.
func (c *converter) headerMembers(in input, keys []string, m map[string]json.RawMessage) []source.Output {
	h := &head{}
	var extra []string // the members the anchor does not keep
	for _, k := range keys {
		v := m[k]
		switch s, isStr := rawjson.String(source.Trim(v)); {
		case k == "sessionId" && isStr && !c.st.Started:
			c.st.Session = fileSession(c.path, s)
		case k == "projectHash" && isStr && !c.st.Started:
			h.projectHash = s
		case k == "kind" && isStr && !c.st.Started:
			h.kind = s
		case k == "directories" && !c.st.Started && stringList(v, &h.directories):
		case k == "startTime" && isStr:
			if date, bad := source.RecordDate(v, ""); bad == "" && date != "" {
				h.date, c.st.Date = date, date
			} else {
				extra = append(extra, k)
			}
		case k == "lastUpdated" && isStr, k == "messages", k == "summary" && isStr:
		default:
			extra = append(extra, k)
		}
	}
	if h.date != "" {
		in.date = h.date
	}
	out := c.start(in.l, h)
	if t := str(m["summary"]); t != "" {
		out = append(out, c.title(in, t))
	}
	if len(extra) > 0 {
		data := kept(extra, m)
		out = append(out, c.event(in, hashID(c.st.Session.ID+"/session", data), "gemini/session", data))
	}
	if items, ok := list(m["messages"]); ok {
		for _, item := range items {
			out = append(out, c.item(in, item, "document")...)
		}
	} else if m["messages"] != nil {
		data := kept([]string{"messages"}, m)
		out = append(out, c.event(in, hashID(c.st.Session.ID+"/session", data), "gemini/session", data))
	}
	return out
}

// stringList reads a list of strings into dst.
func stringList(raw json.RawMessage, dst *[]string) bool {
	raw = source.Trim(raw)
	var l []string
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &l) != nil {
		return false
	}
	*dst = l
	return true
}

// list reads a JSON array's items.
func list(raw json.RawMessage) ([]json.RawMessage, bool) {
	raw = source.Trim(raw)
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	return items, true
}

// kept is an object of the members keys of m, in that order: the part of
// a record an event keeps.
func kept(keys []string, m map[string]json.RawMessage) json.RawMessage {
	o := rawjson.NewObject()
	for _, k := range keys {
		o.Raw(k, rawjson.AppendCompact(nil, m[k]))
	}
	return o.Done()
}

// title is the event that names the session: Gemini CLI's one-line
// summary of it. Its id is the summary's, so that a document read again
// and a .jsonl made of it name the session once.
func (c *converter) title(in input, t string) source.Output {
	payload := source.MustJSON(map[string]any{"name": "title", "data": map[string]any{"title": t, "from": "summary"}})
	return source.Output{Session: c.st.Session, Entry: c.entry(in, hashID(c.st.Session.ID+"/title", []byte(t)), tapelog.KindEvent, payload)}
}

// set maps {"$set": {...}}, an update of the header: a summary names the
// session; messages replace the history (a new anchor, see history); a
// lastUpdated, or the session's own id again, says nothing new; anything
// else is kept as an event gemini/set.
func (c *converter) set(in input) []source.Output {
	out := c.start(in.l, nil)
	keys, m := members(in.rec.Set)
	var extra []string
	for _, k := range keys {
		v := m[k]
		s, isStr := rawjson.String(source.Trim(v))
		switch {
		case k == "summary" && isStr:
			out = append(out, c.title(in, s))
		case k == "lastUpdated" && isStr, k == "messages":
		case k == "sessionId" && isStr && (s == c.st.Session.ID || s == c.st.Session.Agent):
		default:
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		out = append(out, c.event(in, source.LineID(c.path, in.l.No, 1), "gemini/set", kept(extra, m)))
	}
	if v, ok := m["messages"]; ok {
		out = append(out, c.history(in, v)...)
	}
	return out
}

// history maps the messages of a $set, which replace the session's
// history (Gemini CLI 0.44 and later write it when a session resumes,
// when a turn is cancelled, when the history is compressed, and when
// tool outputs are masked): an anchor "history" whose state lists the
// ids of the messages the model's context holds from then on, and after
// it those of the messages that are not on the tape yet. Each message
// keeps its own id, so those already imported make nothing (Replay).
// Before any message of the file, the history is the one the session
// starts with, the context Gemini CLI sets up: no anchor, and its
// messages are synthetic.
func (c *converter) history(in input, raw json.RawMessage) []source.Output {
	items, ok := list(raw)
	if !ok {
		return []source.Output{c.event(in, source.LineID(c.path, in.l.No, 2), "gemini/set", rawjson.NewObject().Raw("messages", rawjson.AppendCompact(nil, raw)).Done())}
	}
	var out []source.Output
	in.synthetic = c.st.Messages == 0
	if c.st.Messages > 0 {
		ids := []string{}
		for _, item := range items {
			var r record
			if json.Unmarshal(item, &r) == nil && str(r.ID) != "" {
				ids = append(ids, str(r.ID))
			}
		}
		payload := source.MustJSON(map[string]any{"name": "history", "state": map[string]any{"source": "gemini", "history": ids}})
		out = append(out, source.Output{Session: c.st.Session, Anchor: true, Entry: c.entry(in, source.LineID(c.path, in.l.No, 0), tapelog.KindAnchor, payload)})
	}
	for _, item := range items {
		out = append(out, c.item(in, item, "set")...)
	}
	return out
}

// rewind maps {"$rewindTo": id}: Gemini CLI dropped that message and all
// after it from the session (/rewind). tape keeps them; an anchor
// "rewind" starts a new phase whose context is the messages before that
// one, then what comes after the anchor (decision 0085).
func (c *converter) rewind(in input) []source.Output {
	out := c.start(in.l, nil)
	payload := source.MustJSON(map[string]any{"name": "rewind", "state": map[string]any{"source": "gemini", "rewind_to": str(in.rec.RewindTo)}})
	return append(out, source.Output{Session: c.st.Session, Anchor: true, Entry: c.entry(in, source.LineID(c.path, in.l.No, 0), tapelog.KindAnchor, payload)})
}
