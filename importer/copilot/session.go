package copilot

import (
	"encoding/json"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// start makes the first anchor of the tape a line's entries go to, the
// first time one goes there: the session's (whose first line is not its
// session.start), or a subagent's.
func (c *converter) start(in *input) []source.Output {
	if c.st.Started[in.s.Agent] {
		return nil
	}
	state := rawjson.NewObject().Str("source", "copilot").Str("session_id", in.s.ID)
	if in.s.Agent != "" {
		state.Str("agent_id", in.s.Agent).Str("parent_session", in.s.ID)
	}
	state.Str("file", c.path).StrIf("cwd", c.st.CWD).StrIf("git_branch", c.st.Branch)
	return c.anchor(in, state.Done())
}

// anchor is the first anchor of in.s's tape, whose state is given; its
// meta names the line it was made at.
func (c *converter) anchor(in *input, state []byte) []source.Output {
	if c.st.Started == nil {
		c.st.Started = map[string]bool{}
	}
	c.st.Started[in.s.Agent] = true
	id := in.s.ID
	if in.s.Agent != "" {
		id += "/agent/" + in.s.Agent
	}
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", state).Done()
	return []source.Output{{Session: in.s, Anchor: true, Entry: tapelog.Entry{ID: id, Kind: tapelog.KindAnchor, Payload: payload, Meta: c.meta(in).Done(), Date: in.date}}}
}

// workContext is what the anchor and the metas read of a context: the
// working directory and the git branch.
type workContext struct {
	CWD    json.RawMessage `json:"cwd"`
	Branch json.RawMessage `json:"branch"`
}

func readContext(raw json.RawMessage) (cwd, branch string) {
	var wc workContext
	if !source.IsObject(raw) || json.Unmarshal(raw, &wc) != nil {
		return "", ""
	}
	cwd, _ = rawjson.String(source.Trim(wc.CWD))
	branch, _ = rawjson.String(source.Trim(wc.Branch))
	return cwd, branch
}

// sessionStart makes the session's first anchor of its session.start: the
// working directory, branch, version and model it names, and the whole
// data as written ("start").
func (c *converter) sessionStart(in *input) []source.Output {
	if id, ok := rawjson.String(in.f.SessionID); ok && id != "" && !c.st.Named {
		c.st.Session.ID = id // a file whose path names no session
		in.s = c.st.Session
	}
	c.st.CWD, c.st.Branch = readContext(in.f.Context)
	state := rawjson.NewObject().Str("source", "copilot").Str("session_id", in.s.ID).Str("file", c.path).
		StrIf("cwd", c.st.CWD).StrIf("git_branch", c.st.Branch)
	for _, m := range []struct {
		key string
		raw json.RawMessage
	}{{"version", in.f.Version}, {"producer", in.f.Producer}, {"model", in.f.SelectedModel}} {
		if s, ok := rawjson.String(m.raw); ok {
			state.StrIf(m.key, s)
		}
	}
	state.Raw("start", compact(in.ev.Data))
	return c.anchor(in, state.Done())
}

// contextEvent keeps a session.resume or session.context_changed as an
// event, whose meta names the working directory and branch when they
// changed.
func (c *converter) contextEvent(in *input) []source.Output {
	cwd, branch := readContext(in.ev.Data) // a context_changed's data is the context
	if in.ev.Type == "session.resume" {
		cwd, branch = readContext(in.f.Context)
	}
	m := c.meta(in)
	if cwd != "" && cwd != c.st.CWD {
		m.Str("cwd", cwd)
		c.st.CWD = cwd
	}
	if branch != "" && branch != c.st.Branch {
		m.Str("git_branch", branch)
		c.st.Branch = branch
	}
	payload := source.NamedData("copilot/"+in.ev.Type, in.ev.Data)
	return []source.Output{{Session: in.s, Entry: tapelog.Entry{ID: c.id(in, 0), Kind: tapelog.KindEvent, Payload: payload, Meta: m.Done(), Date: in.date}}}
}

// compaction makes a successful compaction's summary a new anchor,
// "compact", whose state keeps the rest of its data; a failed one, or one
// without a summary, is an event.
func (c *converter) compaction(in *input) []source.Output {
	summary, ok := rawjson.String(in.f.Summary)
	if !ok || string(source.Trim(in.f.Success)) != "true" {
		return c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)
	}
	var rest map[string]json.RawMessage
	_ = json.Unmarshal(in.ev.Data, &rest) // an object: it decodes
	delete(rest, "summaryContent")
	state := rawjson.NewObject().Str("source", "copilot").Str("summary", summary).Raw("compaction", source.MustJSON(rest)).Done()
	payload := rawjson.NewObject().Str("name", "compact").Raw("state", state).Done()
	out := c.entry(in, 0, tapelog.KindAnchor, payload)
	out.Anchor = true
	return []source.Output{out}
}

// sessionError is an error entry: its errorType as the kind, its message,
// and the whole data.
func (c *converter) sessionError(in *input) []source.Output {
	msg, ok := rawjson.String(in.f.Message)
	kind, ok2 := optString(in.f.ErrorType)
	if !ok || !ok2 {
		return c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)
	}
	if kind == "" {
		kind = "session"
	}
	payload := rawjson.NewObject().Str("kind", kind).Str("message", msg).Raw("data", compact(in.ev.Data)).Done()
	return c.one(in, 0, tapelog.KindError, payload)
}
