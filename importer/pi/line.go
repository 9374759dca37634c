package pi

import (
	"encoding/json"
	"slices"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// input is one line being mapped: its record's members, and its envelope
// as read.
type input struct {
	l   tapelog.RawLine
	rec object
	typ string // the record's type; "" when it has none that is a string
	// id is the record's own id (a tree entry's), "" for none; parent its
	// parentId, and tree whether it has one (a string, or null: a root).
	id, parent string
	tree       bool
	stamp      string          // the timestamp as written, when it is a string
	date       string          // the date of its entries (source.RecordDate)
	badDate    json.RawMessage // the timestamp as written, when it is no date
	// used are the members read as the envelope: the rest of the record
	// is its data.
	used []string
}

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	rec, err := splitLine(l.Data)
	if err != nil {
		return nil, err
	}
	in := &input{l: l, rec: rec, used: make([]string, 0, 4)}
	c.pre = c.st
	warn := c.envelope(in)
	out := c.start(in)
	if in.typ == "session" && len(out) > 0 {
		return out, warn // the header, which started the tape
	}
	return append(out, c.mapRecord(in)...), warn
}

// splitLine splits a line into its record's members (source.LineMembers:
// invalid UTF-8 read as U+FFFD, the last of a repeated key). A line that
// is not a JSON object is a bad line.
func splitLine(data []byte) (object, error) {
	ms, err := source.LineMembers(data, nil)
	return object(ms), err
}

// envelope reads a record's type, id, parentId and timestamp, each when
// it is of the shape Pi writes (else it stays in the record's data). An
// unreadable timestamp is a warning: the line's entries take the date
// before it.
func (c *converter) envelope(in *input) error {
	if t, ok := in.rec.str("type"); ok && t != "" {
		in.typ = t
		in.used = append(in.used, "type")
	}
	if id, ok := in.rec.str("id"); ok && id != "" {
		in.id = id
		in.used = append(in.used, "id")
	}
	if p := in.rec.raw("parentId"); string(p) == "null" {
		in.tree = true
		in.used = append(in.used, "parentId")
	} else if s, ok := in.rec.str("parentId"); ok {
		in.parent, in.tree = s, true
		in.used = append(in.used, "parentId")
	}
	raw := in.rec.raw("timestamp")
	in.used = append(in.used, "timestamp")
	in.stamp, _ = rawjson.String(raw)
	date, bad := source.RecordDate(raw, c.st.Date)
	in.date, c.st.Date = date, date
	if bad != "" {
		in.badDate = source.Trim(raw)
		return source.LineWarning(bad)
	}
	return nil
}

// mapRecord maps a record by its type. Every record of the tree first
// moves the path: one whose parent is not the last entry starts a branch.
func (c *converter) mapRecord(in *input) []source.Output {
	var out []source.Output
	if in.typ != "branch_summary" {
		out = c.branch(in)
	}
	switch in.typ {
	case "":
		return append(out, c.event(in, 0, "pi/record", in.rec.whole()))
	case "session":
		// A second header, or the first after a title line flushed
		// alone started the tape: kept, under an id of its own where
		// it would be the first anchor's.
		o := c.kept(in)
		if o.Entry.ID == c.anchorID() {
			o.Entry.ID += "/header"
		}
		return append(out, o)
	case "title":
		return append(out, c.slot(in)...)
	case "message":
		return append(out, c.message(in)...)
	case "custom_message":
		if o := c.custom(in, in.rec, in.used); o != nil {
			return append(out, o...)
		}
	case "session_info":
		return append(out, c.title(in, "name")...)
	case "title_change":
		return append(out, c.title(in, "title")...)
	case "model_change":
		if m, ok := in.rec.str("modelId"); ok && m != "" {
			c.st.Model = m
		} else if m, ok := in.rec.str("model"); ok && m != "" {
			c.st.Model = m // oh-my-pi's "provider/model"
		}
	case "compaction":
		return append(out, c.anchor(in, "compact", "compact"))
	case "branch_summary":
		return append(out, c.branchSummary(in))
	case "reset_boundary":
		return append(out, c.anchor(in, "reset", "reset"))
	}
	return append(out, c.kept(in))
}

// branch is the anchor of a branch, before the first entry of one: an
// entry of the tree whose parent is not the last entry (Pi appends to the
// entry the user went back to), or a new root.
func (c *converter) branch(in *input) []source.Output {
	if in.id == "" || !in.tree {
		return nil
	}
	leaf := c.st.Leaf
	c.st.Leaf = in.id
	if leaf == "" || in.parent == leaf || in.id == leaf { // the last entry written again is no branch
		return nil
	}
	return []source.Output{c.branchAnchor(in, nil, nil, leaf)}
}

// branchAnchor is the anchor "branch": where the path leaves the entry
// leaf for the entry the record names as its parent; with a
// branch_summary's summary of the path left (a JSON string), and the
// rest of its record.
func (c *converter) branchAnchor(in *input, summary, rest []byte, leaf string) source.Output {
	st := rawjson.NewObject().Str("source", "pi")
	if in.parent == "" {
		st.Raw("parent_id", nil) // a new root: the user went back before the first message
	} else {
		st.Str("parent_id", in.parent)
	}
	st.StrIf("left_id", leaf)
	id := c.base(in) + "/branch"
	if in.typ == "branch_summary" {
		id = c.base(in) // the record is the anchor
	}
	if summary != nil {
		st.Raw("summary", summary)
	}
	if rest != nil {
		st.Raw("branch", rest)
	}
	payload := rawjson.NewObject().Str("name", "branch").Raw("state", st.Done()).Done()
	e := tapelog.Entry{ID: id, Kind: tapelog.KindAnchor, Payload: payload, Meta: c.meta(in).Done(), Date: in.date}
	return source.Output{Session: c.st.Session, Entry: e, Anchor: true}
}

// branchSummary maps a branch_summary: the anchor of the branch it
// starts, with the summary of the path left ("summary"), and the rest of
// the record ("branch").
func (c *converter) branchSummary(in *input) source.Output {
	leaf := c.st.Leaf
	if in.id != "" && in.tree {
		c.st.Leaf = in.id
	}
	var summary []byte
	skip := in.used
	if s := in.rec.raw("summary"); isString(s) {
		summary = compact(s)
		skip = plus(skip, "summary")
	}
	return c.branchAnchor(in, summary, in.rec.rest(skip...), leaf)
}

// anchor is a record that starts a phase (a compaction, a reset) as an
// anchor named name, whose state holds its "summary" when it is a string
// and the rest of the record under key.
func (c *converter) anchor(in *input, name, key string) source.Output {
	st := rawjson.NewObject().Str("source", "pi")
	skip := in.used
	if s := in.rec.raw("summary"); isString(s) {
		st.Raw("summary", compact(s))
		skip = plus(skip, "summary")
	}
	if r := in.rec.rest(skip...); r != nil {
		st.Raw(key, r)
	}
	payload := rawjson.NewObject().Str("name", name).Raw("state", st.Done()).Done()
	e := tapelog.Entry{ID: c.id(in, 0), Kind: tapelog.KindAnchor, Payload: payload, Meta: c.meta(in).Done(), Date: in.date}
	return source.Output{Session: c.st.Session, Entry: e, Anchor: true}
}

// plus is list and more, in a new slice: list is another's.
func plus(list []string, more ...string) []string { return append(slices.Clip(list), more...) }

// base is the id of a line's first entry: the record's own id, else (a
// record without one, or a session whose ids are places) its place.
func (c *converter) base(in *input) string {
	if in.id == "" || c.st.Positional {
		return source.LineID(c.path, in.l.No, 0)
	}
	return in.id
}

// id is the id of a line's k-th entry.
func (c *converter) id(in *input, k int) string { return source.WithPart(c.base(in), k) }

// meta starts the meta of an entry of the line; the caller may add to it.
func (c *converter) meta(in *input) *rawjson.Object {
	return source.Meta(c.path, in.l.No, in.id, in.parent, in.badDate)
}

// entry is the k-th entry of the line.
func (c *converter) entry(in *input, k int, kind string, payload json.RawMessage, meta *rawjson.Object) source.Output {
	if meta == nil {
		meta = c.meta(in)
	}
	e := tapelog.Entry{ID: c.id(in, k), Kind: kind, Payload: payload, Meta: meta.Done(), Date: in.date}
	return source.Output{Session: c.st.Session, Entry: e}
}

// event is the k-th entry of the line, an event named name of data (JSON
// text; nil for null).
func (c *converter) event(in *input, k int, name string, data []byte) source.Output {
	return c.entry(in, k, tapelog.KindEvent, source.NamedData(name, data), nil)
}

// kept keeps a record the mapping does not turn into anything else: an
// event "pi/<type>" of the record without its envelope.
func (c *converter) kept(in *input) source.Output {
	return c.event(in, 0, "pi/"+in.typ, in.rec.rest(in.used...))
}
