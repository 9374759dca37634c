package gemini

import (
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
	state := map[string]any{"source": c.d.name, "session_id": s.ID, "file": c.path}
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

// header maps the session's header: {"sessionId", "projectHash",
// "startTime", "lastUpdated", "kind", "directories", "summary"}, the
// first line of a .jsonl; a document's members; or a whole legacy
// record on one line, messages and all.
func (c *converter) header(in input) []source.Output {
	fs := in.fields
	if fs == nil {
		fs = fields(in.raw)
	}
	return c.headerFields(in, fs)
}

// headerFields maps a header's members.
func (c *converter) headerFields(in input, fs []field) []source.Output {
	h := &head{}
	var extra []field // the members the anchor does not keep
	var summary string
	var messages []byte
	for _, f := range fs {
		s, isStr := rawjson.String(source.Trim(f.value))
		switch {
		case f.key == "sessionId" && isStr && !c.st.Started:
			c.st.Session = fileSession(c.d.name, c.path, s)
		case f.key == "projectHash" && isStr && !c.st.Started:
			h.projectHash = s
		case f.key == "kind" && isStr && !c.st.Started:
			h.kind = s
		case f.key == "directories" && !c.st.Started && stringList(f.value, &h.directories):
		case f.key == "startTime" && isStr:
			if date, bad := source.RecordDate(f.value, ""); bad == "" && date != "" {
				h.date, c.st.Date = date, date
			} else {
				extra = append(extra, f)
			}
		case f.key == "summary" && isStr:
			summary = s
		case f.key == "messages" && !absent(f.value) && source.Trim(f.value)[0] == '[':
			messages = f.value
		case f.key == "lastUpdated" && isStr:
		default:
			extra = append(extra, f)
		}
	}
	if h.date != "" {
		in.date = h.date
	}
	out := c.start(in.l, h)
	if summary != "" {
		out = append(out, c.title(in, summary))
	}
	if len(extra) > 0 {
		data := kept(extra)
		out = append(out, c.event(in, hashID(c.st.Session.ID+"/session", data), c.d.name+"/session", data))
	}
	list, _ := items(messages)
	for _, item := range list {
		out = append(out, c.item(in, item, fromDocument)...)
	}
	return out
}

// stringList reads a list of strings into dst.
func stringList(raw []byte, dst *[]string) bool {
	list, ok := items(raw)
	if !ok {
		return false
	}
	l := make([]string, len(list))
	for i, item := range list {
		if l[i], ok = stringOf(item); !ok {
			return false
		}
	}
	*dst = l
	return true
}

// kept is an object of members: the part of a record an event keeps.
func kept(fs []field) json.RawMessage {
	o := rawjson.NewObject()
	for _, f := range fs {
		o.Raw(f.key, compact(f.value))
	}
	return o.Done()
}

// title is the event that names the session: Gemini CLI's one-line
// summary of it. Its id is the summary's, so that a document read again
// and a .jsonl made of it name the session once.
func (c *converter) title(in input, t string) source.Output {
	payload := source.MustJSON(map[string]any{"name": "title", "data": map[string]any{"title": t, "from": "summary"}})
	return source.Output{Session: c.st.Session, Entry: c.entry(in, hashID(c.st.Session.ID+"/title", rawjson.AppendString(nil, t)), tapelog.KindEvent, payload)}
}

// set maps {"$set": {...}}, an update of the header: a summary names the
// session; messages replace the history (a new anchor, see history); a
// lastUpdated, or the session's own id again, says nothing new; anything
// else is kept as an event gemini/set.
func (c *converter) set(in input) []source.Output {
	out := c.start(in.l, nil)
	var extra []field
	var messages []byte
	for _, f := range fields(in.rec.Set) {
		s, isStr := rawjson.String(source.Trim(f.value))
		switch {
		case f.key == "summary" && isStr:
			out = append(out, c.title(in, s))
		case f.key == "messages":
			messages = f.value
		case f.key == "lastUpdated" && isStr:
		case f.key == "sessionId" && isStr && (s == c.st.Session.ID || s == c.st.Session.Agent):
		default:
			extra = append(extra, f)
		}
	}
	if len(extra) > 0 {
		out = append(out, c.event(in, source.LineID(c.path, in.l.No, 1), c.d.name+"/set", kept(extra)))
	}
	if messages != nil {
		out = append(out, c.history(in, messages)...)
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
func (c *converter) history(in input, raw []byte) []source.Output {
	list, ok := items(raw)
	if !ok {
		return []source.Output{c.event(in, source.LineID(c.path, in.l.No, 2), c.d.name+"/set", kept([]field{{"messages", raw}}))}
	}
	var out []source.Output
	in.synthetic = c.st.Messages == 0
	if c.st.Messages > 0 {
		ids := []string{}
		for _, item := range list {
			if isObject(item) {
				if id := str(recordOf(fields(item)).ID); id != "" {
					ids = append(ids, id)
				}
			}
		}
		payload := source.MustJSON(map[string]any{"name": "history", "state": map[string]any{"source": c.d.name, "history": ids}})
		out = append(out, source.Output{Session: c.st.Session, Anchor: true, Entry: c.entry(in, source.LineID(c.path, in.l.No, 0), tapelog.KindAnchor, payload)})
	}
	for _, item := range list {
		out = append(out, c.item(in, item, fromSet)...)
	}
	return out
}

// rewind maps {"$rewindTo": id}: Gemini CLI dropped that message and all
// after it from the session (/rewind). tape keeps them; an anchor
// "rewind" starts a new phase whose context is the messages before that
// one, then what comes after the anchor (decision 0085).
func (c *converter) rewind(in input) []source.Output {
	out := c.start(in.l, nil)
	payload := source.MustJSON(map[string]any{"name": "rewind", "state": map[string]any{"source": c.d.name, "rewind_to": str(in.rec.RewindTo)}})
	return append(out, source.Output{Session: c.st.Session, Anchor: true, Entry: c.entry(in, source.LineID(c.path, in.l.No, 0), tapelog.KindAnchor, payload)})
}
