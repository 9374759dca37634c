package cursor

import (
	"strings"
	"time"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// mirrorLine maps a line of a chat's mirror file (mirror.go): the chat's
// line, a bubble's, or one of a CLI chat (storedb.go); any other an event
// cursor/row.
func (c *converter) mirrorLine(l tapelog.RawLine, rec obj) ([]source.Output, error) {
	in := &input{l: l, rec: rec, id: c.ids.ID(l.No, 0), date: c.st.Date}
	key := rec.Str("key")
	kind, id, bubble := splitKey(key)
	switch {
	case rec.Str("table") == "cursorDiskKV" && kind == "composerData" && !rec.Has("inline"):
		var read []string
		for _, k := range []string{"db", "workspace", "parent"} {
			if isString(rec.Raw(k)) {
				read = append(read, k) // in the anchor's state
			}
		}
		return append(c.composerLine(in, id), c.envelope(in, read...)...), nil
	case rec.Str("table") == "cursorDiskKV" && (kind == "composerData" || kind == "bubbleId"):
		out := c.startMirror(in, id, false)
		out = append(out, c.bubble(in, bubble)...)
		if v := rec.Raw("inline"); len(v) > 0 && v[0] >= '0' && v[0] <= '9' {
			return append(out, c.envelope(in, "inline")...), nil
		}
		return append(out, c.envelope(in)...), nil
	case rec.Str("table") == "blobs" || rec.Str("table") == "meta":
		var read []string
		for _, k := range []string{"db", "workspace", "id"} {
			if isString(rec.Raw(k)) {
				read = append(read, k) // in the anchor's state, the entries' ids
			}
		}
		return append(c.chatLine(in), c.envelope(in, read...)...), nil
	}
	out := c.startMirror(in, id, false)
	return append(out, c.event(in, "cursor/row", l.Data)), nil
}

// envelope keeps the members of a mirror line the export does not write
// (but table, key, data and those read), as an event cursor/row.
func (c *converter) envelope(in *input, read ...string) []source.Output {
	r := rest(in.rec, append(read, "table", "key", "data")...)
	if string(r) == "{}" {
		return nil
	}
	in.v = nil
	return []source.Output{c.event(in, "cursor/row", r)}
}

// splitKey splits a cursorDiskKV key: "composerData:<id>" and
// "bubbleId:<id>:<bubble>".
func splitKey(key string) (kind, composer, bubble string) {
	kind, rest, _ := strings.Cut(key, ":")
	composer, bubble, _ = strings.Cut(rest, ":")
	return kind, composer, bubble
}

// startMirror makes the chat's first anchor, at its first line: the
// chat's own (composer: its data is the composerData, which the anchor
// keeps), or any other of a mirror file without one.
func (c *converter) startMirror(in *input, id string, composer bool) []source.Output {
	var data obj
	if composer {
		data = obj(source.ObjectOf(in.rec.Raw("data")))
	}
	if c.st.Started {
		return nil
	}
	c.st.Started = true
	if id == "" {
		id = "unknown"
	}
	c.st.Session = source.Session{Source: "cursor", ID: id}
	c.st.CWD = in.rec.Str("workspace")
	if at := msDate(data.Raw("createdAt")); at != "" {
		c.st.Date, in.date = at, at
	}
	state := rawjson.NewObject().Str("source", "cursor").Str("session_id", id).StrIf("parent_session", in.rec.Str("parent")).
		Str("file", c.path).StrIf("cwd", c.st.CWD).StrIf("git_branch", data.Str("createdOnBranch")).StrIf("db", in.rec.Str("db"))
	if composer && in.rec.Has("data") {
		state.Raw("composer", rawjson.AppendCompact(nil, in.rec.Raw("data")))
	}
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", state.Done()).Done()
	e := tapelog.Entry{ID: id, Kind: tapelog.KindAnchor, Payload: payload, Meta: source.Meta(c.path, in.l.No, "", "", nil).Done(), Date: in.date}
	return []source.Output{{Session: c.st.Session, Anchor: true, Entry: e}}
}

// composerLine maps a chat's line: the first anchor, the first time, and
// an event cursor/composer of the line whole when it is written again
// (its name, model, folder or parent changed); a title of its name and a
// run of its model where they are new.
func (c *converter) composerLine(in *input, id string) []source.Output {
	data := obj(source.ObjectOf(in.rec.Raw("data")))
	var out []source.Output
	if c.st.Started {
		if at := msDate(data.Raw("lastUpdatedAt")); at != "" {
			c.st.Date, in.date = at, at
		}
		if w := in.rec.Str("workspace"); w != "" {
			c.st.CWD = w
		}
		o := c.event(in, "cursor/composer", source.MembersObject(obj(in.rec), func(k string) bool { return k == "table" || k == "key" }))
		o.Entry.ID = c.st.Session.ID + "/composer/" + source.ShortSum(in.l.Data)
		out = append(out, o)
	} else {
		out = c.startMirror(in, id, true)
	}
	out = append(out, c.title(in, data.Str("name"), "composer")...)
	return append(out, c.run(in, data.Sub("modelConfig").Str("modelName"))...)
}

// msDate is a time Cursor wrote as milliseconds since 1970, or as an RFC
// 3339 string, as a tape date; "" for none.
func msDate(v []byte) string {
	if s, ok := source.StringValue(v); ok {
		if _, err := tapelog.ParseTime(s); err == nil {
			return s
		}
		return ""
	}
	ms := obj{{Key: []byte("v"), Value: v}}.Int("v")
	if ms <= 0 || ms > 1e14 {
		return ""
	}
	return tapelog.FormatTime(time.UnixMilli(ms).UTC())
}
