package droid

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	if c.settings {
		return c.docLine(l)
	}
	r, err := c.decode(l.Data)
	if err != nil {
		return nil, err
	}
	var warn error
	date, bad := source.RecordDate(r.RawDate, c.st.Date)
	if bad != "" {
		r.badDate, warn = r.RawDate, source.LineWarning(bad)
	}
	r.Timestamp, c.st.Date = date, date
	return c.mapRecord(l, r), warn
}

// mapRecord maps a record whose line decoded.
func (c *converter) mapRecord(l tapelog.RawLine, r record) []source.Output {
	in := &input{c: c, l: l, r: r}
	if r.hasType && r.Type == "session_start" && !r.mismatch {
		return in.sessionStart()
	}
	out := in.start("", "", nil)
	switch {
	case !r.hasType || r.mismatch:
		// An object of a shape the mapping does not know (no type, an
		// envelope member of another type): kept whole, as an event.
		name := "droid/record"
		if r.hasType {
			name = "droid/" + r.Type
		}
		return append(out, in.event(name, r.whole())...)
	case r.Type == "message":
		return append(out, in.message()...)
	case r.Type == "compaction_state":
		return append(out, in.compaction()...)
	}
	// todo_state, agent_turn_outcome, and any type a later Droid adds.
	return append(out, in.event("droid/"+r.Type, r.withoutEnvelope())...)
}

// input is one record being mapped: its line, and the entries made of it
// so far (k).
type input struct {
	c *converter
	l tapelog.RawLine
	r record
	k int
	// lineIDs says the record's id is not its own (a session_start's is
	// the session's): its entries' ids are the line's.
	lineIDs bool
	// first is what the meta of the record's first entry adds: the
	// members of the record and its message the mapping does not read.
	first func(*rawjson.Object)
	// hidden says the record is not in the model's context: its entries'
	// metas say "context": false.
	hidden bool
}

// id is the id of the record's next entry.
func (in *input) id() string {
	defer func() { in.k++ }()
	if in.r.ID != "" && !in.lineIDs {
		return source.WithPart(in.r.ID, in.k)
	}
	return source.LineID(in.c.path, in.l.No, in.k)
}

// meta starts the meta of the record's next entry (source.Meta), with the
// working directory when it is the first entry after the session's
// anchor.
func (in *input) meta() *rawjson.Object {
	uuid := in.r.ID
	if in.lineIDs {
		uuid = ""
	}
	m := source.Meta(in.c.path, in.l.No, uuid, in.r.Parent, in.r.badDate)
	if st := &in.c.st; st.Start != "" && st.Start != st.CWD {
		m.Str("cwd", st.Start)
		st.CWD = st.Start
	}
	if in.first != nil {
		in.first(m)
		in.first = nil
	}
	if in.hidden {
		m.Raw("context", []byte("false"))
	}
	return m
}

// entry is the record's next entry.
func (in *input) entry(kind string, payload []byte, meta *rawjson.Object) source.Output {
	e := tapelog.Entry{ID: in.id(), Kind: kind, Payload: payload, Meta: meta.Done(), Date: in.r.Timestamp}
	return source.Output{Session: in.c.st.Session, Entry: e}
}

// event keeps data whole, as an event named name.
func (in *input) event(name string, data []byte) []source.Output {
	return []source.Output{in.entry(tapelog.KindEvent, source.NamedData(name, data), in.meta())}
}

// start makes the first anchor of the session's tape, before its first
// entry: of its session_start (whose cwd and parent are given, and whose
// members start keeps), or of whatever record comes first.
func (in *input) start(cwd, parent string, start []byte) []source.Output {
	c := in.c
	if c.st.Started {
		return nil
	}
	c.st.Started = true
	s := c.st.Session
	state := rawjson.NewObject().Str("source", "droid").Str("session_id", s.ID).StrIf("parent_session", parent).
		Str("file", c.path).StrIf("cwd", cwd)
	if start != nil {
		state.Raw("start", start)
	}
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", state.Done()).Done()
	meta := source.Meta(c.path, in.l.No, "", "", in.r.badDate).Done()
	// The anchor's id is the session's, as the settings' anchor's is: of
	// the two, the tape keeps the first it is given (settings.go).
	e := tapelog.Entry{ID: s.ID, Kind: tapelog.KindAnchor, Payload: payload, Meta: meta, Date: in.r.Timestamp}
	return []source.Output{{Session: s, Anchor: true, Entry: e}}
}

// sessionStart maps a session_start ({"id", "title", "sessionTitle",
// "owner", "version", "cwd"}; a subagent's "callingSessionId" and
// "callingToolUseId", a fork's "parent" and "forkedAtMessageId"): the
// session's first anchor, whose state keeps the record, and the title
// event of its title. A later one (a session resumed) is an event.
func (in *input) sessionStart() []source.Output {
	c, r := in.c, in.r
	in.lineIDs = true
	if !c.st.Named && r.ID != "" && !c.st.Started {
		c.st.Session.ID = r.ID // a file whose name is no session id
	}
	cwd, _ := r.str("cwd")
	parent, _ := r.str("callingSessionId")
	if parent == "" {
		parent, _ = r.str("parent")
	}
	var out []source.Output
	if !c.st.Started {
		c.st.Start = cwd
		out = in.start(cwd, parent, r.withoutEnvelope())
	} else {
		out = in.event("droid/session_start", r.whole())
	}
	title, _ := r.str("sessionTitle")
	if title == "" || title == "New Session" {
		// Droid's default name until it names the session; title is the
		// session's first words.
		title, _ = r.str("title")
	}
	return append(out, in.title(title)...)
}

// title is the event that names the session ({"title", "from"}): tape
// tapes shows the last one. Its id is the session's and the title's, so
// that a session_start Droid writes again (to rename the session) adds a
// title only when it is a new one.
func (in *input) title(title string) []source.Output {
	st := &in.c.st
	if title == "" || title == st.Title {
		return nil
	}
	st.Title = title
	data := rawjson.NewObject().Str("title", title).Str("from", "session_start").Done()
	o := in.entry(tapelog.KindEvent, source.NamedData("title", data), in.meta())
	o.Entry.ID = st.Session.ID + "/title/" + source.ShortSum([]byte(title))
	return []source.Output{o}
}

// compaction maps a compaction_state ({"summaryText", "summaryTokens",
// "summaryKind", "anchorMessage", "removedCount", "systemInfo", ...}): a
// new anchor "compact", from which the model's context is the summary and
// what follows; its state keeps the rest of the record. One without a
// summary is an event.
func (in *input) compaction() []source.Output {
	summary, ok := in.r.str("summaryText")
	if !ok {
		return in.event("droid/compaction_state", in.r.withoutEnvelope())
	}
	state := rawjson.NewObject().Str("source", "droid").Str("summary", summary).
		Raw("compaction", in.r.withoutEnvelope("summaryText")).Done()
	payload := rawjson.NewObject().Str("name", "compact").Raw("state", state).Done()
	m := source.Meta(in.c.path, in.l.No, in.r.ID, in.r.Parent, in.r.badDate)
	o := in.entry(tapelog.KindAnchor, payload, m)
	o.Anchor = true
	return []source.Output{o}
}
