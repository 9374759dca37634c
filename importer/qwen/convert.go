package qwen

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	r, err := c.decode(l.Data)
	if err != nil {
		return c.release(), err
	}
	var warn error
	prev := c.st.Date
	if date, bad := source.RecordDate(r.RawDate, prev); bad != "" {
		r.Timestamp, r.badDate, warn = date, r.RawDate, source.LineWarning(bad)
	} else {
		r.Timestamp = date
	}
	c.st.Date = r.Timestamp
	return c.mapRecord(l, r, prev), warn
}

// mapRecord maps a record whose line decoded. prev is the date of the
// line before, which a state saved before this line holds.
func (c *converter) mapRecord(l tapelog.RawLine, r record, prev string) []source.Output {
	sess := c.session(r)
	opens := sess == c.st.Session && !c.st.Started[sess.Key()] && r.hasType && r.Type == "system" && !r.mismatch
	if opens && c.hold == nil {
		saved := c.st
		saved.Date = prev
		c.saved = source.MustJSON(saved)
		c.hold = &opening{line: l.No, offset: l.Offset, start: c.startInfo(l, r)}
	}
	if c.hold != nil && opens {
		if c.hold.start.parent == "" {
			c.hold.start.parent = parentOf(r)
		}
		c.hold.outs = append(c.hold.outs, c.entries(l, r, sess)...)
		return nil
	}
	out := c.release()
	if !c.st.Started[sess.Key()] {
		out = append(out, c.start(sess, c.startInfo(l, r))...)
	}
	return append(out, c.entries(l, r, sess)...)
}

// entries are the entries a record makes.
func (c *converter) entries(l tapelog.RawLine, r record, sess source.Session) []source.Output {
	in := c.input(l, r, sess)
	switch {
	case !r.hasType || r.mismatch:
		// An object of a shape the mapping does not know (no type, a
		// member it reads of another type): kept whole, as an event; its
		// usage counts, as ccusage counts it.
		name := "qwen/record"
		if r.hasType {
			name = "qwen/" + r.Type
		}
		return in.withRun(in.event(name, r.whole()))
	case r.Type == "user" || r.Type == "assistant" || r.Type == "tool_result":
		return in.conversation()
	case r.Type == "system":
		return in.system()
	}
	return in.event("qwen/"+r.Type, r.withoutEnvelope())
}

// session is the session a record belongs to: the file's, or a
// subagent's for a sidechain record written into its session's file.
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
	if s.Agent == "" && r.IsSidechain && r.AgentID != "" {
		s.Agent = r.AgentID
	}
	return s
}

// startInfo is what a session's first anchor says, from its first record.
type startInfo struct {
	line                 int
	date                 string
	cwd, branch, version string
	agentName, parent    string
}

func (c *converter) startInfo(l tapelog.RawLine, r record) startInfo {
	return startInfo{line: l.No, date: r.Timestamp, cwd: r.CWD, branch: r.GitBranch, version: r.Version, agentName: r.AgentName, parent: parentOf(r)}
}

// parentOf is the session a record says its session came from: the
// session a /branch fork copied it from (forkedFrom), or the one that
// made a sub-session (a parent_session record).
func parentOf(r record) string {
	var p struct {
		SessionID       any `json:"sessionId"`
		ParentSessionID any `json:"parentSessionId"`
	}
	switch {
	case r.ForkedFrom != nil && json.Unmarshal(r.ForkedFrom, &p) == nil:
		s, _ := p.SessionID.(string)
		return s
	case r.Type == "system" && r.Subtype == "parent_session" && json.Unmarshal(r.SystemPayload, &p) == nil:
		s, _ := p.ParentSessionID.(string)
		return s
	}
	return ""
}

// start makes the first anchor of a session's tape.
func (c *converter) start(s source.Session, info startInfo) []source.Output {
	c.st.Started[s.Key()] = true
	state := rawjson.NewObject().Str("source", "qwen").Str("session_id", s.ID)
	id := s.ID
	if s.Agent != "" {
		state.Str("agent_id", s.Agent).StrIf("agent_name", info.agentName).Str("parent_session", s.ID)
		id += "/agent/" + s.Agent
	} else {
		state.StrIf("parent_session", info.parent)
	}
	state.Str("file", c.path).StrIf("cwd", info.cwd).StrIf("git_branch", info.branch).StrIf("version", info.version)
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", state.Done()).Done()
	meta := source.Meta(c.path, info.line, "", "", nil).Done()
	return []source.Output{{Session: s, Anchor: true, Entry: tapelog.Entry{ID: id, Kind: tapelog.KindAnchor, Payload: payload, Meta: meta, Date: info.date}}}
}

// input is one record being mapped: its line, its session, and the
// entries made of it so far (k).
type input struct {
	c    *converter
	l    tapelog.RawLine
	r    record
	sess source.Session
	k    int
	// The working directory and branch the entries' metas name: those of
	// the record, when they changed since the line before.
	cwd, branch string
}

func (c *converter) input(l tapelog.RawLine, r record, sess source.Session) *input {
	in := &input{c: c, l: l, r: r, sess: sess}
	if r.CWD != "" && r.CWD != c.st.CWD {
		in.cwd, c.st.CWD = r.CWD, r.CWD
	}
	if r.GitBranch != "" && r.GitBranch != c.st.Branch {
		in.branch, c.st.Branch = r.GitBranch, r.GitBranch
	}
	return in
}

// meta starts the meta of an entry of the record (source.Meta), with the
// working directory and branch when they changed.
func (in *input) meta() *rawjson.Object {
	return source.Meta(in.c.path, in.l.No, in.r.UUID, in.r.Parent, in.r.badDate).StrIf("cwd", in.cwd).StrIf("git_branch", in.branch)
}

// entry is the next entry made from the record, with its meta.
func (in *input) entry(kind string, payload []byte, meta *rawjson.Object) source.Output {
	var id string
	if in.r.UUID != "" {
		id = source.WithPart(in.r.UUID, in.k)
	} else {
		id = source.LineID(in.c.path, in.l.No, in.k)
	}
	in.k++
	return source.Output{Session: in.sess, Entry: tapelog.Entry{ID: id, Kind: kind, Payload: payload, Meta: meta.Done(), Date: in.r.Timestamp}}
}

// event keeps data whole, as an event named name.
func (in *input) event(name string, data []byte) []source.Output {
	return []source.Output{in.entry(tapelog.KindEvent, source.NamedData(name, data), in.meta())}
}
