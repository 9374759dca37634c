package kimi

import (
	"strconv"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	r, err := c.decode(l.Data)
	if err != nil {
		return nil, err
	}
	var warn error
	date, raw, bad := dateOf(r, c.st.Date)
	if bad != "" {
		warn = source.LineWarning(bad)
	}
	r.date, r.badDate, c.st.Date = date, raw, date
	sess := c.place.session
	if sess.ID == "" {
		sess.ID = "x" // a file named ".jsonl": any name is a session's
	}
	in := &input{c: c, l: l, sess: sess, date: r.date, badDate: r.badDate}
	var out []source.Output
	if !c.st.Started[sess.Key()] {
		if r.hasType && r.typ == "metadata" && c.st.Metadata == "" {
			// The metadata line opens the file: the session's first
			// anchor says it, made with the first record, so that an
			// agent that has none makes no tape (Kimi Code writes the
			// line alone when it opens an agent that did nothing yet).
			c.st.Metadata = string(fields(r.members).without("type"))
			return nil, warn
		}
		out = c.start(in)
	}
	return append(out, in.record(r)...), warn
}

// record maps a line: Kimi Code's records have a string "type", Kimi
// CLI's a "message" envelope; anything else is kept whole.
func (in *input) record(r record) []source.Output {
	f := fields(r.members)
	switch {
	case r.hasType && r.typ == "metadata":
		return in.event("kimi/metadata", f.without("type"))
	case r.hasType:
		return in.code(r.typ, f)
	case r.message != nil && f.only("timestamp", "message"):
		return in.envelope(r.message, f)
	}
	return in.event("kimi/record", f.object())
}

// start makes the first anchor of the file's session, at its first
// record: the metadata line's protocol_version, and the line whole when
// it says more (but its created_at, the date of the records that have
// none).
func (c *converter) start(in *input) []source.Output {
	s := in.sess
	state := rawjson.NewObject().Str("source", "kimi").Str("session_id", s.ID)
	id := s.ID
	if s.Agent != "" {
		state.Str("agent_id", s.Agent).Str("parent_session", s.ID)
		id += "/agent/" + s.Agent
	}
	state.Str("file", c.path).StrIf("agent", c.place.agent).StrIf("work_dir_key", c.place.workDir)
	if old, ok := strings.CutPrefix(s.ID, "ses_"); ok && source.IsUUID(old) {
		state.Str("migrated_from", old) // Kimi Code's copy of a Kimi CLI session
	}
	if md := fieldsOf([]byte(c.st.Metadata)); c.st.Metadata != "" {
		v, ok := md.str("protocol_version")
		state.StrIf("protocol_version", v)
		if _, dated := millis(md.get("created_at"), 1); !ok || !md.only("protocol_version", "created_at") || !dated && md.get("created_at") != nil {
			state.Raw("metadata", []byte(c.st.Metadata))
		}
	}
	return []source.Output{in.anchor(s, id, "session/start", state.Done())}
}

// input is one line being mapped: its line, the session its entries go
// to, and the entries made of it so far (k).
type input struct {
	c       *converter
	l       tapelog.RawLine
	sess    source.Session
	date    string
	badDate []byte
	k       int
	// nested says the line's entries are a Kimi CLI subagent's events,
	// copied into its parent's wire.jsonl (SubagentEvent).
	nested bool
}

// meta starts the meta of an entry of the line (source.Meta).
func (in *input) meta() *rawjson.Object {
	return source.Meta(in.c.path, in.l.No, "", "", in.badDate)
}

// entry is the next entry made from the line, with its meta.
func (in *input) entry(kind string, payload []byte, meta *rawjson.Object) source.Output {
	id := source.WithPart(in.c.tag+strconv.Itoa(in.l.No), in.k) // source.LineID, its tag made once
	in.k++
	return source.Output{Session: in.sess, Entry: tapelog.Entry{ID: id, Kind: kind, Payload: payload, Meta: meta.Done(), Date: in.date}}
}

// event keeps data whole, as an event named name.
func (in *input) event(name string, data []byte) []source.Output {
	return []source.Output{in.entry(tapelog.KindEvent, source.NamedData(name, data), in.meta())}
}

// anchor is an anchor entry of session s named name, with its state: the
// first of a session (id: the session's) or a new phase of it (id: the
// line's).
func (in *input) anchor(s source.Session, id, name string, state []byte) source.Output {
	in.c.st.Started[s.Key()] = true
	payload := rawjson.NewObject().Str("name", name).Raw("state", state).Done()
	if id == "" {
		o := in.entry(tapelog.KindAnchor, payload, in.meta())
		o.Anchor = true
		return o
	}
	return source.Output{Session: s, Anchor: true, Entry: tapelog.Entry{ID: id, Kind: tapelog.KindAnchor, Payload: payload, Meta: in.meta().Done(), Date: in.date}}
}

// withCWD adds the working directory a record names to meta, when it
// changed since the last one put in a meta: the sessions view reads a
// tape's directory from its entries' metas.
func (in *input) withCWD(meta *rawjson.Object, cwd string) *rawjson.Object {
	if cwd != "" && cwd != in.c.st.CWD {
		in.c.st.CWD = cwd
		meta.Str("cwd", cwd)
	}
	return meta
}
