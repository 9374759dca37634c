package openclaw

import (
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
	if date, bad := source.RecordDate(r.RawDate, c.st.Date); bad != "" {
		r.Timestamp, r.badDate, warn = date, r.RawDate, source.LineWarning(bad)
	} else {
		r.Timestamp = date
	}
	c.st.Date = r.Timestamp
	var out []source.Output
	if !c.st.Started {
		out = c.start(l, r)
		if r.Type == "session" && !r.mismatch {
			return out, warn // the header: the anchor is all it makes
		}
	}
	return append(out, c.entries(c.input(l, r))...), warn
}

// entries are the entries a record makes.
func (c *converter) entries(in *input) []source.Output {
	r := in.r
	switch {
	case !r.hasType || r.mismatch:
		// An object of a shape the mapping does not know (no type, an id
		// that is not a string): kept whole, as an event.
		name := "openclaw/record"
		if r.hasType {
			name = "openclaw/" + r.Type
		}
		return in.event(name, r.whole())
	}
	switch r.Type {
	case "message":
		return in.message()
	case "compaction":
		return in.compaction()
	case "model_change":
		return in.modelChange()
	case "custom":
		return in.custom()
	case "custom_message":
		return in.customMessage()
	case "session_info":
		return in.sessionInfo()
	}
	// A branch summary (pi writes one when the conversation goes back to
	// an earlier entry, its parentId, and summarizes the branch it leaves:
	// the branch's entries stay on the tape, and the context goes on
	// from the entries before it, so no anchor: decision 0091), a second
	// header (a copy's), a label, a thinking level change, or a type a
	// later OpenClaw adds: kept as an event.
	return in.event("openclaw/"+r.Type, r.withoutEnvelope())
}

// start makes the first anchor of the session's tape, from the header when
// the transcript's first record is one: its id is the session's, and it
// says where the session started and the one it came from.
func (c *converter) start(l tapelog.RawLine, r record) []source.Output {
	c.st.Started = true
	h := header{}
	isHeader := r.Type == "session" && !r.mismatch
	if isHeader {
		h = readHeader(r)
		if h.id != "" {
			c.st.Session.ID = h.id
		}
		if h.model != "" {
			c.st.Model = h.model
		}
	}
	s := c.st.Session
	state := rawjson.NewObject().Str("source", "openclaw").Str("session_id", s.ID).Str("file", c.path).
		StrIf("cwd", h.cwd).StrIf("openclaw_agent", agentOf(c.path)).StrIf("parent_session", h.parent).StrIf("parent_file", h.parentFile)
	if h.version != nil {
		state.Raw("format_version", h.version)
	}
	state.StrIf("model", h.model).StrIf("provider", h.provider).StrIf("thinking_level", h.thinking)
	withExtra(state, h.rest)
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", state.Done()).Done()
	meta := source.Meta(c.path, l.No, "", "", nil)
	if isHeader {
		meta = source.Meta(c.path, l.No, "", "", r.badDate)
	}
	e := tapelog.Entry{ID: s.ID, Kind: tapelog.KindAnchor, Payload: payload, Meta: meta.Done(), Date: r.Timestamp}
	return []source.Output{{Session: s, Anchor: true, Entry: e}}
}

// header is what the first anchor keeps of a transcript's header.
type header struct {
	id, cwd          string
	parent           string // the session the transcript was forked from, or continues after a compaction
	parentFile       string // parentSession as written: the parent's transcript
	model, provider  string // a first layout's header's (Clawdbot, late 2025)
	thinking         string
	version          []byte           // the format's version: absent in the first layout, 2, 3
	rest             []rawjson.Member // the header's other members
	branchedFromFile string
}

// readHeader reads a header's members. One of another type than pi
// writes is kept with the rest.
func readHeader(r record) header {
	var h header
	for _, m := range r.members {
		k, v := string(m.Key), m.Value
		var dst *string
		switch k {
		case "type", "timestamp":
			continue
		case "id":
			dst = &h.id
		case "cwd":
			dst = &h.cwd
		case "parentSession":
			dst = &h.parentFile
		case "branchedFrom":
			dst = &h.branchedFromFile
		case "modelId":
			dst = &h.model
		case "provider":
			dst = &h.provider
		case "thinkingLevel":
			dst = &h.thinking
		case "version":
			if len(v) > 0 && (v[0] >= '0' && v[0] <= '9') {
				h.version = v
				continue
			}
		}
		if dst != nil {
			if s, ok := source.StringValue(v); ok {
				*dst = s
				continue
			}
			if string(v) == "null" {
				continue
			}
		}
		h.rest = append(h.rest, m)
	}
	if h.parentFile == "" {
		h.parentFile = h.branchedFromFile
	} else if h.branchedFromFile != "" {
		h.rest = append(h.rest, rawjson.Member{Key: []byte("branchedFrom"), Value: []byte(rawjson.AppendString(nil, h.branchedFromFile))})
	}
	if h.parentFile != "" {
		h.parent = fileSessionID(h.parentFile)
	}
	return h
}

// input is one record being mapped: its line, and the entries made of it
// so far (k).
type input struct {
	c *converter
	l tapelog.RawLine
	r record
	k int
}

func (c *converter) input(l tapelog.RawLine, r record) *input {
	return &input{c: c, l: l, r: r}
}

// meta starts the meta of an entry of the record (source.Meta): the file,
// the line, the record's id and its parent's.
func (in *input) meta() *rawjson.Object {
	return source.Meta(in.c.path, in.l.No, in.r.ID, in.r.Parent, in.r.badDate)
}

// entry is the next entry made from the record, with its meta, dated
// as the record.
func (in *input) entry(kind string, payload []byte, meta *rawjson.Object) source.Output {
	return in.entryAt(kind, payload, meta, in.r.Timestamp)
}

// entryAt is entry with another date.
func (in *input) entryAt(kind string, payload []byte, meta *rawjson.Object, date string) source.Output {
	var id string
	if in.r.ID != "" {
		id = source.WithPart(in.r.ID, in.k)
	} else {
		id = source.LineID(in.c.idPath, in.l.No, in.k)
	}
	in.k++
	return source.Output{Session: in.c.st.Session, Entry: tapelog.Entry{ID: id, Kind: kind, Payload: payload, Meta: meta.Done(), Date: date}}
}

// event keeps data whole, as an event named name.
func (in *input) event(name string, data []byte) []source.Output {
	return []source.Output{in.entry(tapelog.KindEvent, source.NamedData(name, data), in.meta())}
}

// anchor is an anchor of the record: a new phase of the session.
func (in *input) anchor(name string, state []byte) []source.Output {
	o := in.entry(tapelog.KindAnchor, rawjson.NewObject().Str("name", name).Raw("state", state).Done(), in.meta())
	o.Anchor = true
	return []source.Output{o}
}
