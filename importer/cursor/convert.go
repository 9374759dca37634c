package cursor

import (
	"encoding/json"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// convState is what a converter carries from line to line, and keeps in
// a checkpoint.
type convState struct {
	Session source.Session `json:"session"`
	Started bool           `json:"started"`
	Title   string         `json:"title,omitempty"` // the last title event made
	Model   string         `json:"model,omitempty"` // the model of the last run event made
	CWD     string         `json:"cwd,omitempty"`
	Date    string         `json:"date,omitempty"` // the last date read
}

// converter converts one file: an agent transcript, or the mirror file of
// a chat of a database. Each line says which it is: a mirror line has a
// "table".
type converter struct {
	path    string
	st      convState
	ids     source.LineIDs
	members []rawjson.Member
}

func newConverter(path string, state []byte) (*converter, error) {
	c := &converter{path: path, ids: source.NewLineIDs(path)}
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	return c, nil
}

// obj is a JSON object's members, each key once.
type obj = source.Object

// input is the line being converted, and the entries made of it so far.
type input struct {
	l    tapelog.RawLine
	rec  obj
	id   string // the record's id: its entries' are id, id/2, id/3...
	date string
	k    int
	v    []byte // the layout version of the bubble (its _v), for the meta
	uuid string // the bubble's id, for the meta
	bad  []byte // its time as written, when it is no date
}

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	members, err := source.LineMembers(l.Data, c.members)
	if err != nil {
		return nil, err
	}
	c.members = members
	rec := obj(members)
	if rec.Has("table") {
		return c.mirrorLine(l, rec)
	}
	return c.transcriptLine(&input{l: l, rec: rec, id: c.ids.ID(l.No, 0), date: c.st.Date}), nil
}

func (c *converter) Held() (int, int64, bool) { return 0, 0, false }

func (c *converter) Flush() []source.Output { return nil }

func (c *converter) State() ([]byte, error) { return json.Marshal(c.st) }

// entry is the line's next entry.
func (c *converter) entry(in *input, kind string, payload []byte, meta *rawjson.Object) source.Output {
	if meta == nil {
		meta = c.meta(in)
	}
	e := tapelog.Entry{ID: source.WithPart(in.id, in.k), Kind: kind, Payload: payload, Meta: meta.Done(), Date: in.date}
	in.k++
	return source.Output{Session: c.st.Session, Entry: e}
}

// meta is the meta of an entry of the line: the file, the line, and the
// folder the chat is of.
func (c *converter) meta(in *input) *rawjson.Object {
	m := source.Meta(c.path, in.l.No, in.uuid, "", in.bad)
	if c.st.CWD != "" {
		m.Str("cwd", c.st.CWD)
	}
	if len(in.v) > 0 {
		m.Raw("bubble_v", in.v)
	}
	return m
}

// event keeps data whole, as an event named name.
func (c *converter) event(in *input, name string, data []byte) source.Output {
	return c.entry(in, tapelog.KindEvent, source.NamedData(name, data), nil)
}

// message is a message of role, its content text as written (a JSON
// string).
func (c *converter) message(in *input, role string, text []byte, meta *rawjson.Object) source.Output {
	return c.entry(in, tapelog.KindMessage, rawjson.NewObject().Str("role", role).Raw("content", text).Done(), meta)
}

// thinking is a "thinking" event of text (a JSON string), with what else
// the block holds (its signature).
func (c *converter) thinking(in *input, text []byte, rest []byte) source.Output {
	d := rawjson.NewObject().Raw("thinking", text)
	if len(rest) > 0 && string(rest) != "{}" {
		d.Raw("block", rest)
	}
	return c.entry(in, tapelog.KindEvent, source.NamedData("thinking", d.Done()), nil)
}

// call is a tool call of one function, its arguments JSON text.
func (c *converter) call(in *input, id, name, args string, extra []byte) source.Output {
	call := rawjson.NewObject().Str("id", id).Str("type", "function").
		Raw("function", rawjson.NewObject().Str("name", name).Str("arguments", args).Done())
	if len(extra) > 0 && string(extra) != "{}" {
		call.Raw("extra", extra)
	}
	return c.entry(in, tapelog.KindToolCall, rawjson.NewObject().Raw("calls", rawjson.Array(call.Done())).Done(), nil)
}

// result is the result of the call id: content as written (a JSON value,
// compact), failed or not, with details. Its payload is written in one
// buffer: a tool's output is most of what a chat holds.
func (c *converter) result(in *input, id string, content []byte, failed bool, details []byte) source.Output {
	b := make([]byte, 0, len(content)+len(id)+len(details)+64)
	b = append(b, `{"results":[{"tool_call_id":`...)
	b = rawjson.AppendString(b, id)
	b = append(b, `,"content":`...)
	b = append(b, content...)
	if failed {
		b = append(b, `,"is_error":true`...)
	}
	if len(details) > 0 && string(details) != "{}" {
		b = append(b, `,"details":`...)
		b = append(b, details...)
	}
	b = append(b, "}]}"...)
	return c.entry(in, tapelog.KindToolResult, b, nil)
}

// title is the event that names the chat, when the title is new; its id
// is made of the title, so the same title read again adds nothing.
func (c *converter) title(in *input, title, from string) []source.Output {
	if title == "" || title == c.st.Title {
		return nil
	}
	c.st.Title = title
	o := c.event(in, "title", rawjson.NewObject().Str("title", title).Str("from", from).Done())
	o.Entry.ID = c.st.Session.ID + "/title/" + source.ShortSum([]byte(title))
	if c.st.Session.Agent != "" {
		o.Entry.ID = c.st.Session.ID + "/agent/" + c.st.Session.Agent + "/title/" + source.ShortSum([]byte(title))
	}
	return []source.Output{o}
}

// run is a run event that names the model the chat uses from here, when
// it changed: Cursor keeps no token counts, so it has no usage; `tape
// tapes` shows its model.
func (c *converter) run(in *input, model string) []source.Output {
	if model == "" || model == c.st.Model {
		return nil
	}
	c.st.Model = model
	return []source.Output{c.event(in, "run", rawjson.NewObject().Str("status", "ok").Str("model", model).Done())}
}

// isString reports whether a value as written is a JSON string.
func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

// isEmpty reports whether a value as written says nothing: absent, null,
// false, "", [] or {}.
func isEmpty(v []byte) bool {
	v = source.Trim(v)
	switch string(v) {
	case "", "null", "false", `""`, "[]", "{}":
		return true
	}
	if len(v) > 1 && (v[0] == '[' || v[0] == '{') {
		inner := source.Trim(v[1 : len(v)-1])
		return len(inner) == 0
	}
	return false
}

// rest is the object's members but those read, and those that say
// nothing (isEmpty), compact: what an entry keeps of a record beside what
// it maps.
func rest(o obj, read ...string) []byte {
	return source.MembersObject(o, func(k string) bool {
		for _, r := range read {
			if k == r {
				return true
			}
		}
		return isEmpty(o.Raw(k))
	})
}

// compactText is a value as a tool's arguments or output hold it: a
// JSON string's text, else the value's JSON, compact.
func compactText(v []byte) string {
	if s, ok := source.StringValue(v); ok {
		return s
	}
	if len(source.Trim(v)) == 0 {
		return ""
	}
	return string(rawjson.AppendCompact(nil, v))
}
