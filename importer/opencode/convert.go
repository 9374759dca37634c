package opencode

import (
	"encoding/json"
	"time"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// converter converts one mirror file: one session's rows, of the source
// name ("opencode", "kilo"), which names its tapes, events and usage ids.
type converter struct {
	name    string
	path    string
	st      convState
	members []rawjson.Member
}

func newConverter(name, path string, state []byte) (*converter, error) {
	c := &converter{name: name, path: path}
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	return c, nil
}

// obj is a JSON object's members, each key once.
type obj = source.Object

// input is the line being converted.
type input struct {
	l    tapelog.RawLine
	row  obj
	date string
}

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	members, err := source.LineMembers(l.Data, c.members)
	if err != nil {
		return nil, err
	}
	c.members = members
	row := obj(members)
	in := &input{l: l, row: row, date: msDate(row.Int("time_created"))}
	if in.date == "" {
		in.date = c.st.Date
	}
	c.st.Date = in.date
	var out []source.Output
	switch table := row.Str("table"); table {
	case "session":
		return c.session(in), nil
	case "message", "part":
		if table == "message" {
			out = c.message(in)
		} else {
			out = c.part(in)
		}
		if rest := source.MembersObject(row, isColumn); string(rest) != "{}" {
			// Members the mirror does not write: kept.
			out = append(out, c.event(in, 5, c.name+"/"+table, rest)...)
		}
		return out, nil
	}
	return append(c.start(in, nil), c.event(in, 0, c.name+"/row", l.Data)...), nil
}

// isColumn reports whether key is one of the members the mirror writes
// of a message's or a part's row.
func isColumn(key string) bool {
	switch key {
	case "table", "id", "session_id", "message_id", "time_created", "time_updated", "data":
		return true
	}
	return false
}

func (c *converter) Held() (int, int64, bool) { return 0, 0, false }

func (c *converter) Flush() []source.Output { return nil }

func (c *converter) State() ([]byte, error) { return json.Marshal(c.st) }

// msDate is a time in milliseconds since 1970, as OpenCode writes its
// times, as a tape date; "" for none.
func msDate(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return tapelog.FormatTime(time.UnixMilli(ms).UTC())
}

// session maps a session's row: the first anchor of its tape, the first
// time; its title, each time it changes.
func (c *converter) session(in *input) []source.Output {
	if c.st.Started {
		// Written again when its title changed: the row whole, and the
		// title.
		// Its id is the row's sum: the session's id is its first
		// anchor's, and a row written again alike is one event.
		row := source.MembersObject(in.row, func(k string) bool { return k == "table" })
		ev := c.event(in, 0, c.name+"/session", row)
		ev[0].Entry.ID = c.st.Session.ID + "/session/" + source.ShortSum(row)
		return append(ev, c.title(in, in.row.Str("title"))...)
	}
	return append(c.start(in, in.row), c.title(in, in.row.Str("title"))...)
}

// start makes the session's first anchor, before its first entry. Its
// state keeps the session's row (row, when the line is one).
func (c *converter) start(in *input, row obj) []source.Output {
	if c.st.Started {
		return nil
	}
	c.st.Started = true
	id := row.Str("id")
	if id == "" {
		id = in.row.Str("session_id")
	}
	if id == "" {
		id = "unknown"
	}
	c.st.Session = source.Session{Source: c.name, ID: id}
	cwd := row.Str("directory")
	if cwd == "" {
		cwd = row.Str("worktree")
	}
	c.st.CWD = cwd
	state := rawjson.NewObject().Str("source", c.name).Str("session_id", id).
		StrIf("parent_session", row.Str("parent_id")).Str("file", c.path).StrIf("cwd", cwd).
		StrIf("db", row.Str("db")).StrIf("version", row.Str("version"))
	if row != nil {
		state.Raw("session", source.MembersObject(row, func(k string) bool { return k == "table" }))
	}
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", state.Done()).Done()
	e := tapelog.Entry{ID: id, Kind: tapelog.KindAnchor, Payload: payload, Meta: c.meta(in).Done(), Date: in.date}
	return []source.Output{{Session: c.st.Session, Anchor: true, Entry: e}}
}

// title is the event that names the session; tape tapes shows the last.
func (c *converter) title(in *input, title string) []source.Output {
	if title == "" || title == c.st.Title {
		return nil
	}
	c.st.Title = title
	data := rawjson.NewObject().Str("title", title).Str("from", "session").Done()
	o := c.entryOf(in, tapelog.KindEvent, source.NamedData("title", data))
	o.Entry.ID = c.st.Session.ID + "/title/" + source.ShortSum([]byte(title))
	return []source.Output{o}
}

// meta is the meta of an entry of the line: the file, the line, the row's
// id and its parent's (a part's message).
func (c *converter) meta(in *input) *rawjson.Object {
	parent := in.row.Str("message_id")
	m := source.Meta(c.path, in.l.No, in.row.Str("id"), parent, nil)
	if c.st.CWD != "" {
		m.Str("cwd", c.st.CWD)
	}
	if c.st.Model != "" {
		m.Str("model", c.st.Model)
	}
	return m
}

// entryOf is an entry of the line, with the row's id.
func (c *converter) entryOf(in *input, kind string, payload []byte) source.Output {
	return c.entry(in, 0, kind, payload)
}

// entry is the k-th entry of the line.
func (c *converter) entry(in *input, k int, kind string, payload []byte) source.Output {
	id := in.row.Str("id")
	if id == "" {
		id = source.LineID(c.path, in.l.No, 0)
	}
	e := tapelog.Entry{ID: source.WithPart(id, k), Kind: kind, Payload: payload, Meta: c.meta(in).Done(), Date: in.date}
	return source.Output{Session: c.st.Session, Entry: e}
}

// event keeps data whole, as an event named name.
func (c *converter) event(in *input, k int, name string, data []byte) []source.Output {
	return []source.Output{c.entry(in, k, tapelog.KindEvent, source.NamedData(name, data))}
}

// message maps a message's row. Its text is in its parts; the row says
// who wrote it, and for a reply, its model and token counts: a run event
// that keeps the row's data whole. A user's row is kept as an event.
func (c *converter) message(in *input) []source.Output {
	out := c.start(in, nil)
	data := in.row.Sub("data")
	role := data.Str("role")
	c.st.Role = role
	if cwd := data.Sub("path").Str("cwd"); cwd != "" {
		c.st.CWD = cwd
	}
	if role == "assistant" {
		if m := data.Str("modelID"); m != "" {
			c.st.Model = m
		}
		if run, ok := c.run(in, data); ok {
			return append(out, run)
		}
	}
	return append(out, c.event(in, 0, c.name+"/message", in.row.Raw("data"))...)
}
