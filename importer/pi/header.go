package pi

import (
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// headerKeys are the members of a session header the first anchor reads;
// the others are kept in its state's "header".
var headerKeys = []string{"type", "id", "version", "timestamp", "cwd", "parentSession", "branchedFrom", "title", "systemPrompt"}

// start makes the first anchor of the session's tape, before its first
// entry: from the header, when the file starts with one (after oh-my-pi's
// title line, which waits for it), else from the file's name.
func (c *converter) start(in *input) []source.Output {
	switch {
	case c.st.Started:
		return nil
	case in.typ == "title" && isString(in.rec.raw("title")):
		return nil // oh-my-pi's title line, before the header
	}
	c.hold, c.saved = nil, nil
	if in.typ == "session" {
		return c.header(in)
	}
	c.st.Started = true
	st := c.startState()
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", st.Done()).Done()
	return append([]source.Output{c.anchorOutput(in, payload)}, c.slotOutput(in.date)...)
}

// anchorID is the id of the session's first anchor: the session's id, or
// <session>/agent/<agent> for a subagent's.
func (c *converter) anchorID() string {
	if s := c.st.Session; s.Agent != "" {
		return s.ID + "/agent/" + s.Agent
	}
	return c.st.Session.ID
}

func (c *converter) anchorOutput(in *input, payload []byte) source.Output {
	e := tapelog.Entry{ID: c.anchorID(), Kind: tapelog.KindAnchor, Payload: payload,
		Meta: source.Meta(c.path, in.l.No, "", "", in.badDate).Done(), Date: in.date}
	return source.Output{Session: c.st.Session, Entry: e, Anchor: true}
}

// startState begins the first anchor's state: the source, the session,
// its file, and a subagent's session.
func (c *converter) startState() *rawjson.Object {
	s := c.st.Session
	st := rawjson.NewObject().Str("source", "pi").Str("session_id", s.ID)
	if s.Agent != "" {
		st.Str("agent_id", s.Agent).Str("parent_session", s.ID)
	}
	return st.Str("file", c.path)
}

// header maps the session's header: the first anchor, whose state holds
// what it says; its title, a title event; an early Pi's system prompt, a
// system entry.
func (c *converter) header(in *input) []source.Output {
	c.st.Started = true
	h := in.rec
	id, _ := h.str("id")
	if id != "" && c.st.Session.Agent == "" {
		c.st.Session.ID = id // the header's id, whatever the file is called
	}
	c.st.Positional = positional(h)
	st := c.startState()
	if c.st.Session.Agent != "" && id != "" {
		st.Str("agent_session_id", id)
	}
	skip := []string{"type", "timestamp"}
	if id != "" {
		skip = append(skip, "id")
	}
	take := func(key, as string) string {
		v, ok := h.str(key)
		if ok {
			skip = append(skip, key)
			if as != "" && v != "" {
				st.Str(as, v)
			}
		}
		return v
	}
	take("cwd", "cwd")
	if v := h.raw("version"); len(v) > 0 && v[0] >= '0' && v[0] <= '9' {
		st.Raw("version", v)
		skip = append(skip, "version")
	}
	parent := take("parentSession", "")
	if parent == "" {
		parent = take("branchedFrom", "") // a version 1 session's
	}
	if parent != "" && c.st.Session.Agent == "" {
		if strings.ContainsAny(parent, `/\`) || strings.HasSuffix(parent, ".jsonl") {
			st.Str("parent_file", parent)
			parent = parentID(parent)
		}
		st.Str("parent_session", parent)
	}
	title := take("title", "")
	prompt := take("systemPrompt", "")
	if r := h.rest(skip...); r != nil {
		st.Raw("header", r)
	}
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", st.Done()).Done()
	out := []source.Output{c.anchorOutput(in, payload)}
	if title != "" {
		out = append(out, c.titleEntry(in, c.anchorID()+"/title/"+source.ShortSum([]byte(title)), title, "session", nil))
	}
	if prompt != "" {
		payload := rawjson.NewObject().Str("content", prompt).Done()
		e := tapelog.Entry{ID: c.anchorID() + "/system", Kind: tapelog.KindSystem, Payload: payload, Meta: c.meta(in).Done(), Date: in.date}
		out = append(out, source.Output{Session: c.st.Session, Entry: e})
	}
	return append(out, c.slotOutput(in.date)...)
}

// positional reports whether a session's entries are known by their
// places rather than their ids: a version 1 session (no "version", or
// 1), whose entries have no ids, or one Pi migrated from version 1, which
// gave each entry a new random id and rewrote the file: its header got
// its "version" after its "id" (JavaScript keeps the order members were
// added in), where Pi writes "version" first.
func positional(h object) bool {
	v := h.raw("version")
	if len(v) == 0 || string(v) == "1" || string(v) == "null" {
		return true
	}
	for _, m := range h {
		switch string(m.Key) {
		case "version":
			return false
		case "id":
			return true
		}
	}
	return false
}

// slot maps oh-my-pi's title line, rewritten in place as the title
// changes: a title event (the rest of the line but its padding in its
// "record"), dated as the header once the header has started the tape.
func (c *converter) slot(in *input) []source.Output {
	title, ok := in.rec.str("title")
	if !ok {
		return []source.Output{c.kept(in)}
	}
	if title == "" {
		return nil // no title yet
	}
	c.st.Slot = &slotTitle{Title: title, Line: in.l.No, Rest: in.rec.rest("type", "title", "pad")}
	if !c.st.Started {
		if c.hold == nil {
			l := in.l
			l.Data = nil
			c.hold, c.saved = &l, source.MustJSON(c.pre)
		}
		return nil
	}
	return c.slotOutput(in.date)
}

// slotOutput is the title event of the title line, dated date. Its id
// holds a sum of the title: the line is rewritten in place, and a file
// read again from its start with another title there adds the new title.
func (c *converter) slotOutput(date string) []source.Output {
	s := c.st.Slot
	if s == nil {
		return nil
	}
	c.st.Slot = nil
	in := &input{l: tapelog.RawLine{No: s.Line}, date: date}
	return []source.Output{c.titleEntry(in, source.LineID(c.path, s.Line, 0)+"/"+source.ShortSum([]byte(s.Title)), s.Title, "title", s.Rest)}
}

// title maps a record that names the session (session_info's "name",
// oh-my-pi's title_change "title"): a title event, which `tape tapes`
// shows, with the rest of the record.
func (c *converter) title(in *input, key string) []source.Output {
	t, ok := in.rec.str(key)
	if !ok {
		return []source.Output{c.kept(in)}
	}
	rest := in.rec.rest(plus(in.used, key)...)
	return []source.Output{c.titleEntry(in, c.id(in, 0), t, in.typ, rest)}
}

// titleEntry is a title event {"title", "from": the record's type,
// "record": the rest of the record}.
func (c *converter) titleEntry(in *input, id, title, from string, rest []byte) source.Output {
	data := rawjson.NewObject().Str("title", title).Str("from", from)
	if rest != nil {
		data.Raw("record", rest)
	}
	payload := rawjson.NewObject().Str("name", "title").Raw("data", data.Done()).Done()
	e := tapelog.Entry{ID: id, Kind: tapelog.KindEvent, Payload: payload, Meta: c.meta(in).Done(), Date: in.date}
	return source.Output{Session: c.st.Session, Entry: e}
}

// parentID is the session id of the session file at path (Pi names a
// session's parent by its file): the id its name ends in.
func parentID(path string) string {
	stem := strings.TrimSuffix(filepath.Base(filepath.FromSlash(strings.ReplaceAll(path, `\`, "/"))), ".jsonl")
	if m := sessionFile.FindStringSubmatch(stem); m != nil {
		return m[1]
	}
	return stem
}
