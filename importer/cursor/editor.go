package cursor

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// mirrorLine maps a line of a chat's mirror file.
func (c *converter) mirrorLine(l tapelog.RawLine, rec obj) ([]source.Output, error) {
	in := &input{l: l, rec: rec, id: c.ids.ID(l.No, 0), date: c.st.Date}
	out := c.startMirror(in)
	return append(out, c.event(in, "cursor/row", l.Data)), nil
}

// startMirror makes the chat's first anchor, at its first line.
func (c *converter) startMirror(in *input) []source.Output {
	if c.st.Started {
		return nil
	}
	c.st.Started = true
	c.st.Session = source.Session{Source: "cursor", ID: "unknown"}
	state := rawjson.NewObject().Str("source", "cursor").Str("session_id", c.st.Session.ID).Str("file", c.path)
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", state.Done()).Done()
	e := tapelog.Entry{ID: c.st.Session.ID, Kind: tapelog.KindAnchor, Payload: payload, Meta: source.Meta(c.path, in.l.No, "", "", nil).Done()}
	return []source.Output{{Session: c.st.Session, Anchor: true, Entry: e}}
}
