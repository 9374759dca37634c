package goose

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// converter converts one file: a mirror file (one session's rows), or a
// session file of Goose before its database.
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
	date string
}

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	members, err := source.LineMembers(l.Data, c.members)
	if err != nil {
		return nil, err
	}
	c.members = members
	row := obj(members)
	in := &input{l: l, row: row}
	switch {
	case row.Has("table"):
		return c.row(in), nil
	case row.Has("role") && row.Has("content"):
		in.date = c.dateOf(row.Raw("created"))
		return c.message(in, legacyMessage(c.path, in)), nil
	case !c.st.Started && l.No == 1 && isMetadata(row):
		return c.metadata(in), nil
	}
	in.date = c.st.Date
	return append(c.start(in, nil), c.event(in, "", 0, "goose/record", l.Data)...), nil
}

// row maps a mirror line by its table.
func (c *converter) row(in *input) []source.Output {
	switch table := in.row.Str("table"); table {
	case "sessions":
		return c.session(in)
	case "messages":
		in.date = c.dateOf(in.row.Raw("created_timestamp"))
		return c.message(in, mirrorMessage(in))
	case "usage_ledger":
		// A request's tokens (schema 15 on): kept, not counted, as
		// ccusage counts the session's row.
		in.date = c.dateOf(in.row.Raw("created_timestamp"))
		out := c.start(in, nil)
		id := ""
		if n, err := strconv.ParseInt(string(in.row.Raw("id")), 10, 64); err == nil {
			id = c.st.Session.ID + "/ledger/" + strconv.FormatInt(n, 10)
		}
		return append(out, c.event(in, id, 0, "goose/usage_ledger", in.row.Without("table"))...)
	}
	in.date = c.st.Date
	return append(c.start(in, nil), c.event(in, "", 0, "goose/row", in.l.Data)...)
}

func (c *converter) Held() (int, int64, bool) { return 0, 0, false }

func (c *converter) Flush() []source.Output { return nil }

func (c *converter) State() ([]byte, error) { return json.Marshal(c.st) }

// dateOf is a message's created time (seconds since 1970; milliseconds
// past 10^10, as Goose reads them) as a tape date, and the converter's
// last date; the last date when it has none.
func (c *converter) dateOf(v []byte) string {
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err == nil && n > 0 {
		t := time.Unix(n, 0)
		if n > 10_000_000_000 {
			t = time.UnixMilli(n)
		}
		if d := tapeDate(t); d != "" {
			c.st.Date = d
		}
	}
	return c.st.Date
}

// tapeDate is t as a tape date; "" for a year a tape does not take.
func tapeDate(t time.Time) string {
	if y := t.UTC().Year(); y < 1970 || y > 9999 {
		return ""
	}
	return tapelog.FormatTime(t.UTC())
}

// rowDate is a session's created_at or updated_at as a tape date: any of
// the forms Goose and SQLite write ("2025-11-28 10:00:00", RFC 3339 with
// or without a fraction, seconds since 1970); "" for none.
func rowDate(v []byte) string {
	if t, ok := ccusageTime(v); ok {
		return tapeDate(t)
	}
	s, _ := rawjson.String(v)
	s = strings.Replace(strings.TrimSpace(s), " ", "T", 1)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return tapeDate(t)
		}
	}
	return ""
}

// session maps a session's row: the first anchor of its tape and its
// title, the first time; the row as an event when it comes again (its
// name or its counts changed); and a run of its tokens each time they
// are new (usage.go).
func (c *converter) session(in *input) []source.Output {
	in.date = rowDate(in.row.Raw("created_at"))
	if in.date == "" {
		in.date = c.st.Date
	}
	var out []source.Output
	if c.st.Started {
		if d := rowDate(in.row.Raw("updated_at")); d != "" {
			in.date = d
		}
		out = c.event(in, "", 0, "goose/sessions", in.row.Without("table"))
	} else {
		out = c.start(in, in.row)
	}
	c.st.Date = in.date
	title := in.row.Str("name")
	if title == "" {
		title = in.row.Str("description")
	}
	out = append(out, c.title(in, title)...)
	return append(out, c.run(in)...)
}

// metadata maps the first line of a session file of Goose before its
// database: {"working_dir", "description", "schedule_id",
// "message_count", the token counts}. Its anchor keeps the line whole;
// its description is the title. ccusage does not read these files, and
// tape counts none of their tokens either.
func (c *converter) metadata(in *input) []source.Output {
	in.date = c.st.Date
	return append(c.start(in, in.row), c.title(in, in.row.Str("description"))...)
}

// isMetadata reports whether a line is a session file's metadata: an
// object of the members Goose wrote there, not a message.
func isMetadata(row obj) bool {
	return row.Has("description") || row.Has("working_dir") || row.Has("message_count")
}

// start makes the session's first anchor, before its first entry. Its
// state keeps the session's row or metadata line (row, when the line is
// one) whole.
func (c *converter) start(in *input, row obj) []source.Output {
	if c.st.Started {
		return nil
	}
	c.st.Started = true
	id := ""
	switch {
	case row.Has("table"):
		id = row.Str("id")
	case in.row.Has("table"):
		id = in.row.Str("session_id")
	}
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(c.path), ".jsonl") // Goose named its files by their session
	}
	if id == "" {
		id = "unknown"
	}
	c.st.Session = source.Session{Source: "goose", ID: id}
	c.st.CWD = row.Str("working_dir")
	model, _ := modelName(row.Raw("model_config_json"))
	c.st.Model = model
	state := rawjson.NewObject().Str("source", "goose").Str("session_id", id).
		StrIf("parent_session", row.Str("parent_session_id")).Str("file", c.path).StrIf("cwd", c.st.CWD).
		StrIf("model", model).StrIf("provider", row.Str("provider_name")).StrIf("session_type", row.Str("session_type")).
		StrIf("db", row.Str("db"))
	switch {
	case row.Has("table"):
		state.Raw("session", row.Without("table"))
	case row != nil:
		state.Raw("metadata", source.MembersObject(row, nil))
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
	return []source.Output{c.entry(in, c.st.Session.ID+"/title/"+source.ShortSum([]byte(title)), 0, tapelog.KindEvent, source.NamedData("title", data))}
}

// run is the run event of a session's tokens, as ccusage counts them
// (usage.go), when they are not those the last run counted: dated on the
// day ccusage counts them, its usage_id the session's id and created_at,
// so that of a session's runs (one each time Goose added to its counts)
// the one of the largest total counts. A session ccusage does not count
// makes none: its counts stay in its row, kept whole.
func (c *converter) run(in *input) []source.Output {
	model, at, n, ok := sessionUsage(in.row)
	date := tapeDate(at)
	if !ok || date == "" {
		return nil
	}
	key := fmt.Sprintf("%d/%d/%d/%s/%s", n.in, n.out, n.total, model, date)
	if key == c.st.Counted {
		return nil
	}
	c.st.Counted = key
	created := in.row.Raw("created_at")
	if s, ok := rawjson.String(created); ok {
		created = []byte(s)
	}
	usage := rawjson.NewObject().Int("input_tokens", n.in).Int("output_tokens", n.out).Int("total_tokens", n.total).Done()
	d := rawjson.NewObject().Str("status", "ok").Str("model", model).StrIf("provider", in.row.Str("provider_name")).
		Raw("usage", usage).Str("usage_id", "goose:"+c.st.Session.ID+"@"+string(created))
	o := c.entry(in, c.st.Session.ID+"/usage/"+source.ShortSum([]byte(key)), 0, tapelog.KindEvent,
		rawjson.NewObject().Str("name", "run").Raw("data", d.Done()).Done())
	o.Entry.Date = date
	return []source.Output{o}
}

// meta is the meta of an entry of the line: the file, the line, the
// record's id.
func (c *converter) meta(in *input, id string) *rawjson.Object {
	m := source.Meta(c.path, in.l.No, id, "", nil)
	if c.st.CWD != "" {
		m.Str("cwd", c.st.CWD)
	}
	if c.st.Model != "" {
		m.Str("model", c.st.Model)
	}
	return m
}

// entry is the k-th entry of the line, of the record id ("" for the
// line's own id).
func (c *converter) entry(in *input, id string, k int, kind string, payload []byte) source.Output {
	if id == "" {
		id = source.LineID(c.path, in.l.No, 0)
	}
	e := tapelog.Entry{ID: source.WithPart(id, k), Kind: kind, Payload: payload, Meta: c.meta(in, id).Done(), Date: in.date}
	return source.Output{Session: c.st.Session, Entry: e}
}

// event keeps data whole, as an event named name.
func (c *converter) event(in *input, id string, k int, name string, data []byte) []source.Output {
	return []source.Output{c.entry(in, id, k, tapelog.KindEvent, source.NamedData(name, data))}
}
