package crush

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// converter converts one mirror file: one session's rows.
type converter struct {
	path    string
	st      convState
	members []rawjson.Member
}

func newConverter(path string, state []byte) (*converter, error) {
	c := &converter{path: path}
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
	date string // the row's created_at
	k    int    // the entries made of the line so far
}

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	members, err := source.LineMembers(l.Data, c.members)
	if err != nil {
		return nil, err
	}
	c.members = members
	row := obj(members)
	in := &input{l: l, row: row, date: c.dateOf(row.Int("created_at"))}
	switch row.Str("table") {
	case "sessions":
		return c.session(in), nil
	case "messages":
		out := c.message(in)
		if rest := source.MembersObject(row, read(row, messageColumns)); string(rest) != "{}" {
			out = append(out, c.event(in, "crush/messages", rest)...) // columns a later Crush added
		}
		return out, nil
	case "files":
		return c.file(in), nil
	}
	return append(c.start(in, nil), c.event(in, "crush/row", l.Data)...), nil
}

func (c *converter) Held() (int, int64, bool) { return 0, 0, false }

func (c *converter) Flush() []source.Output { return nil }

func (c *converter) State() ([]byte, error) { return json.Marshal(c.st) }

// dateOf is a time of Crush's (timeOf) as a tape date, and the date of
// the line before for none; it becomes the date of the lines after.
func (c *converter) dateOf(t int64) string {
	if t > 0 {
		c.st.Date = tapelog.FormatTime(timeOf(t).UTC())
	}
	return c.st.Date
}

// messageColumns are the members of a message's line its entries hold
// (its table, ids, role, parts, model and provider as strings; its times
// and summary flag as integers; its parts as whatever they are), and
// fileColumns those of a file's that its event does not keep.
var (
	messageColumns = map[string]byte{"table": '"', "id": '"', "session_id": '"', "role": '"', "model": '"', "provider": '"', "parts": '*',
		"created_at": '0', "updated_at": '0', "finished_at": '0', "is_summary_message": '0'}
	fileColumns = map[string]byte{"table": '"', "id": '"', "session_id": '"', "created_at": '0'}
)

// read says which members of row its entries hold, of the columns
// given, each of the JSON type it maps ('"' a string, '0' an integer, '*'
// any): a member of another type is kept as it is, with the line's
// columns the mapping does not know.
func read(row obj, columns map[string]byte) func(key string) bool {
	return func(key string) bool {
		switch columns[key] {
		case '*':
			return true
		case '"':
			return isString(row.Raw(key))
		case '0':
			_, err := strconv.ParseInt(string(row.Raw(key)), 10, 64)
			return err == nil
		}
		return false
	}
}

// session maps a session's line: the first anchor of its tape, its title
// and its usage the first time; the row whole as an event, and its title
// and usage where they changed, when it is written again.
func (c *converter) session(in *input) []source.Output {
	var out []source.Output
	if c.st.Started {
		in.date = c.dateOf(in.row.Int("updated_at")) // written again when it changed
		row := source.MembersObject(in.row, func(k string) bool { return k == "table" })
		sum := sha256.Sum256(in.l.Data)
		o := c.entry(in, tapelog.KindEvent, source.NamedData("crush/session", row))
		o.Entry.ID = c.st.Session.ID + "/session/" + hex.EncodeToString(sum[:6])
		out = append(out, o)
	} else {
		out = c.start(in, in.row)
	}
	if m := in.row.Str("last_model"); m != "" {
		c.st.Model = m
	}
	if s := in.row.Str("summary_message_id"); s != "" {
		c.st.Summary = s
	}
	out = append(out, c.title(in, in.row.Str("title"))...)
	return append(out, c.usage(in)...)
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
	c.st.Session = source.Session{Source: "crush", ID: id}
	c.st.CWD = row.Str("project")
	state := rawjson.NewObject().Str("source", "crush").Str("session_id", id).
		StrIf("parent_session", row.Str("parent_session_id")).Str("file", c.path).StrIf("cwd", c.st.CWD).
		StrIf("db", row.Str("db"))
	if row != nil {
		state.Raw("session", source.MembersObject(row, func(k string) bool { return k == "table" }))
	}
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", state.Done()).Done()
	e := tapelog.Entry{ID: id, Kind: tapelog.KindAnchor, Payload: payload, Meta: c.meta(in, "").Done(), Date: in.date}
	return []source.Output{{Session: c.st.Session, Anchor: true, Entry: e}}
}

// title is the event that names the session; tape tapes shows the last.
func (c *converter) title(in *input, title string) []source.Output {
	if title == "" || title == c.st.Title {
		return nil
	}
	c.st.Title = title
	data := rawjson.NewObject().Str("title", title).Str("from", "session").Done()
	o := c.entry(in, tapelog.KindEvent, source.NamedData("title", data))
	o.Entry.ID = c.st.Session.ID + "/title/" + source.ShortSum([]byte(title))
	return []source.Output{o}
}

// meta is the meta of an entry of the line: the file, the line, the row's
// id and its session's (a message's, a file's), the project, and the
// model of the line (a message's) or the session's last.
func (c *converter) meta(in *input, model string) *rawjson.Object {
	m := source.Meta(c.path, in.l.No, in.row.Str("id"), in.row.Str("session_id"), nil)
	if c.st.CWD != "" {
		m.Str("cwd", c.st.CWD)
	}
	if model == "" {
		model = c.st.Model
	}
	if model != "" {
		m.Str("model", model)
	}
	return m
}

// entry is the line's next entry: the row's id, then id/2, id/3...
func (c *converter) entry(in *input, kind string, payload []byte) source.Output {
	id := in.row.Str("id")
	if id == "" {
		id = source.LineID(c.path, in.l.No, 0)
	}
	model := ""
	if in.row.Str("table") == "messages" {
		model = in.row.Str("model")
	}
	meta := c.meta(in, model)
	if p := in.row.Str("provider"); p != "" && in.row.Str("table") == "messages" {
		meta.Str("provider", p)
	}
	e := tapelog.Entry{ID: source.WithPart(id, in.k), Kind: kind, Payload: payload, Meta: meta.Done(), Date: in.date}
	in.k++
	return source.Output{Session: c.st.Session, Entry: e}
}

// event keeps data whole, as an event named name.
func (c *converter) event(in *input, name string, data []byte) []source.Output {
	return []source.Output{c.entry(in, tapelog.KindEvent, source.NamedData(name, data))}
}

// file maps a version of a file the agent edited (Crush's file history:
// the file's path, its content, its version) to an event that keeps it.
func (c *converter) file(in *input) []source.Output {
	out := c.start(in, nil)
	return append(out, c.event(in, "crush/file", source.MembersObject(in.row, read(in.row, fileColumns)))...)
}

// dateAt is a time of Crush's in seconds as a tape date; "" for none.
func dateAt(t int64) string {
	if t <= 0 {
		return ""
	}
	return tapelog.FormatTime(timeOf(t).UTC())
}
