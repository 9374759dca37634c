package cline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// mapItems maps a document's items: an array's, each by the kind of the
// file (or, for a file of another name, by what it holds), or the object
// a metadata file is.
func (c *converter) mapItems(d *document, items [][]byte, array bool) []source.Output {
	c.pending = nil
	if !array {
		if len(items) == 0 {
			return nil
		}
		return c.object(c.newInput(d, 0, "doc:"+source.ShortSum(items[0])), items[0])
	}
	out := make([]source.Output, 0, 2*len(items)+2)
	seen := make(map[string]int, len(items))
	for i, raw := range items {
		out = append(out, c.item(d, i, raw, seen)...)
	}
	return out
}

// membersInto is source.ObjectOf's members of the object v (a part of a
// checked document), appended to buf: each key decoded and once, where it
// was last written; nil when v is not an object. A converter reads
// thousands of items and blocks a document, each into the room of the
// one before.
func membersInto(buf []rawjson.Member, v []byte) []rawjson.Member {
	v = source.Trim(v)
	if !source.IsObject(v) {
		return nil
	}
	all := buf[:0]
	rawjson.ObjectMembers(v, func(key, value []byte) {
		all = append(all, rawjson.Member{Key: source.DecodeKey(key), Value: source.Trim(value)})
	})
	return source.LastOfEach(all)
}

// item maps the i-th item of an array document.
func (c *converter) item(d *document, i int, raw []byte, seen map[string]int) []source.Output {
	ms := membersInto(c.itemMembers, raw)
	if ms != nil {
		c.itemMembers = ms[:0]
	}
	k := c.kind
	if k == anyKind {
		k = sniff(ms)
	}
	in := c.newInput(d, i, "")
	switch {
	case ms == nil || k == metaKind || k == historyKind:
		in.id = unique(seen, "item:"+source.ShortSum(raw))
		return append(c.start(in, nil), in.event("cline/item", raw))
	case k == apiKind:
		ts := in.readDate(ms)
		if ts == "" {
			in.estimate()
		}
		in.id = unique(seen, apiID(ts, ms))
		return c.apiMessage(in, ms, raw)
	}
	ts := in.readDate(ms)
	base := "ui:" + ts
	if ts == "" {
		base = "ui:" + source.ShortSum(raw)
	}
	in.id = unique(seen, base)
	return c.uiMessage(in, ms, raw)
}

// sniff is the kind of an item of a file of another name: a message of
// the model's (a role, or Roo Code's reasoning items), or of the person's
// (a say or an ask).
func sniff(ms []rawjson.Member) kind {
	if _, ok := rawjson.Lookup(ms, "role"); ok {
		return apiKind
	}
	if t, ok := rawjson.Lookup(ms, "type"); ok {
		switch s, _ := source.StringValue(source.Trim(t)); s {
		case "reasoning":
			return apiKind
		case "say", "ask":
			return uiKind
		}
	}
	return metaKind
}

// unique is id, or, for the n-th item of a document with that id, id.n.
func unique(seen map[string]int, id string) string {
	seen[id]++
	if n := seen[id]; n > 1 {
		return id + "." + strconv.Itoa(n)
	}
	return id
}

// apiID is the id of a message of the model's: its ts and role, which
// the agents give a message when they add it to the history (Cline 3.3x
// on, Roo Code, Kilo Code) and never change; a message without a ts
// (Cline before, Claude Dev), a sum of its role and content, which they
// never change either. So the messages of a history read again,
// shortened (a checkpoint restored, a context truncated in place) or with
// members added (Roo Code's condenseParent), keep their ids. (Two
// messages of one ts and role are told apart by their place: unique.)
func apiID(ts string, ms []rawjson.Member) string {
	role, _ := str(ms, "role")
	if ts != "" && (role == "user" || role == "assistant") {
		return "api:" + ts + ":" + role[:1]
	}
	h := sha256.New()
	r, _ := rawjson.Lookup(ms, "role")
	content, _ := rawjson.Lookup(ms, "content")
	h.Write(source.Trim(r))
	h.Write([]byte{0})
	h.Write(source.Trim(content))
	if len(content) == 0 && len(r) == 0 {
		h.Write(rawjson.AppendCompact(nil, source.MembersObject(ms, nil)))
	}
	s := hex.EncodeToString(h.Sum(nil)[:4])
	if ts != "" {
		return "api:" + ts + ":" + s
	}
	return "api:" + s
}

// input is one item of a document being mapped, and the entries made of
// it so far.
type input struct {
	c     *converter
	d     *document
	index int    // the item's place in its document
	id    string // the item's: its entries' ids are id, id/2, ...
	k     int
	ms    int64 // its entries' date, in milliseconds since 1970; -1 for none
	// dateText is the date of ms dateMs to the millisecond, formatted once
	// for the item's entries.
	dateText string
	dateMs   int64
	badDate  []byte // its ts as written, when that is no time
	// estimated says the date is the task's start and the item's place
	// (estimate).
	estimated bool
	uuid      string // the id the item gives itself, for the meta
	cwd       string // the working directory the item names, for the next meta
	// synthetic says the item's messages are no one's words (synthetic:
	// true in their meta).
	synthetic bool
	// first is what the meta of the item's first entry adds: the members
	// the mapping does not read.
	first func(*rawjson.Object)
}

// newInput is the input of the i-th item of d: dated, until it says
// otherwise, by the last date read.
func (c *converter) newInput(d *document, i int, id string) *input {
	in := &input{c: c, d: d, index: i, id: id, ms: -1}
	if c.st.Millis > 0 {
		in.ms = c.st.Millis
	}
	return in
}

// maxMillis is the last millisecond of the year 9999: a later ts is no
// time a tape takes.
const maxMillis = 253402300799999

// readDate reads an item's ts, milliseconds since 1970 (its entries'
// date); an item without one takes the date of the item before, so that
// it sorts where it was written, and one whose ts is no time too, with a
// warning. It returns the ts as written, for the item's id ("" when
// absent).
func (in *input) readDate(ms []rawjson.Member) string {
	raw, ok := rawjson.Lookup(ms, "ts")
	raw = source.Trim(raw)
	if !ok || string(raw) == "null" {
		return ""
	}
	n, err := strconv.ParseFloat(string(raw), 64)
	if err == nil && n >= 1 && n <= maxMillis && raw[0] != '"' {
		in.ms, in.estimated = int64(n), false
		in.c.st.Millis = in.ms
		return string(raw)
	}
	in.badDate = raw
	warn := fmt.Sprintf(`"ts" %s is not a time in milliseconds; imported without a date`, short(raw))
	if in.ms >= 0 {
		warn = fmt.Sprintf(`"ts" %s is not a time in milliseconds; imported with the date of the item before, %s`, short(raw), in.date(0))
	}
	if in.c.warn == nil {
		in.c.warn = source.LineWarning(fmt.Sprintf("item %d: %s", in.index, warn))
	}
	return source.ShortSum(raw)
}

// estimate dates a message of the model's that has no ts (Cline before
// 3.3x, Claude Dev) by the task's start, which a Cline task's id is (its
// time in milliseconds), and its place in the history, a millisecond
// each: the tape shows the messages in their order, and its meta says
// the date is estimated. A task whose id is no time (Roo Code's and Kilo
// Code's UUIDs) leaves it without a date.
func (in *input) estimate() {
	id := in.c.st.Session.ID
	if len(id) != 13 || id[0] < '1' {
		return
	}
	start, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return
	}
	in.ms, in.estimated = start+int64(in.index), true
}

// date is the date of the item's k-th entry: its time, and k
// microseconds, so that the entries of one item sort in the order made,
// within the millisecond the agent wrote; "" for an item without one.
func (in *input) date(k int) string {
	if in.ms < 0 {
		return ""
	}
	if in.dateMs != in.ms || in.dateText == "" {
		in.dateMs, in.dateText = in.ms, time.UnixMilli(in.ms).UTC().Format("2006-01-02T15:04:05.000")
	}
	if k >= 1000 {
		return time.UnixMicro(in.ms*1000 + int64(k)).UTC().Format("2006-01-02T15:04:05.000000Z")
	}
	return in.dateText + string([]byte{byte('0' + k/100), byte('0' + k/10%10), byte('0' + k%10), 'Z'})
}

// short is a value as a message shows it: cut to 64 bytes.
func short(raw []byte) string {
	s := string(rawjson.AppendCompact(nil, raw))
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// takeWarning is the first warning of the document just mapped, once.
func (c *converter) takeWarning() error {
	w := c.warn
	c.warn = nil
	return w
}

// meta starts the meta of the item's next entry: its file, line (the
// document's) and place in the document; the working directory, when it
// names one the meta before did not; and, on its first entry, the
// members the mapping does not read.
func (in *input) meta() *rawjson.Object {
	m := source.Meta(in.c.path, in.d.line, in.uuid, "", in.badDate).Int("index", int64(in.index))
	if in.estimated {
		m.True("date_estimated")
	}
	if in.cwd != "" && in.cwd != in.c.st.CWD {
		m.Str("cwd", in.cwd)
		in.c.st.CWD = in.cwd
	}
	if in.first != nil {
		in.first(m)
		in.first = nil
	}
	return m
}

// entry is the item's next entry. Every entry of a document may be on
// its tape already: the agent wrote the document again, whole, and the
// writer skips what the tape holds (Replay, decision 0094).
func (in *input) entry(kind string, payload []byte, meta *rawjson.Object) source.Output {
	e := tapelog.Entry{ID: source.WithPart(in.id, in.k), Kind: kind, Payload: payload, Meta: meta.Done(), Date: in.date(in.k)}
	in.k++
	return source.Output{Session: in.c.st.Session, Entry: e, Replay: true}
}

// event keeps data whole, as an event named name.
func (in *input) event(name string, data []byte) source.Output {
	return in.entry(tapelog.KindEvent, source.NamedData(name, data), in.meta())
}

// start makes the first anchor of the task's tape, before the first entry
// a file makes of it: {"source": "cline", "session_id", "agent", "editor",
// "file"}, and what state adds of the item that starts it.
func (c *converter) start(in *input, state func(*rawjson.Object)) []source.Output {
	if c.st.Started {
		return nil
	}
	c.st.Started = true
	s := c.st.Session
	st := rawjson.NewObject().Str("source", "cline").Str("session_id", s.ID).StrIf("agent", c.agent).
		StrIf("editor", c.editor).Str("file", c.path)
	if in.cwd != "" {
		st.Str("cwd", in.cwd)
	}
	if state != nil {
		state(st)
	}
	payload := rawjson.NewObject().Str("name", "session/start").Raw("state", st.Done()).Done()
	meta := source.Meta(c.path, in.d.line, "", "", nil)
	if in.estimated {
		meta.True("date_estimated")
	}
	e := tapelog.Entry{ID: s.ID, Kind: tapelog.KindAnchor, Payload: payload, Meta: meta.Done(), Date: in.date(0)}
	return []source.Output{{Session: s, Anchor: true, Entry: e, Replay: true}}
}

// title is the event that names the task: the first words the person
// wrote (ui_messages.json's first message, or history_item.json's task).
// Its id is the task's: of the two, the tape keeps the first.
func (in *input) title(text, from string) source.Output {
	data := rawjson.NewObject().Str("title", text).Str("from", from).Done()
	o := in.entry(tapelog.KindEvent, source.NamedData("title", data), in.meta())
	o.Entry.ID = in.c.st.Session.ID + "/title"
	return o
}

// others is the members of ms but those named, as an object; nil when
// there are none.
func others(ms []rawjson.Member, read ...string) []byte {
	var o *rawjson.Object
	for _, m := range ms {
		if isOneOf(string(m.Key), read) {
			continue
		}
		if o == nil {
			o = rawjson.NewObject()
		}
		o.Raw(string(m.Key), rawjson.AppendCompact(nil, m.Value))
	}
	if o == nil {
		return nil
	}
	return o.Done()
}

func isOneOf(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// str is the string value of member key of ms; ok is false when it is
// absent or not a string.
func str(ms []rawjson.Member, key string) (string, bool) {
	v, ok := rawjson.Lookup(ms, key)
	if !ok {
		return "", false
	}
	return source.StringValue(source.Trim(v))
}

// member is the value of member key of ms, trimmed; nil when absent.
func member(ms []rawjson.Member, key string) []byte {
	v, _ := rawjson.Lookup(ms, key)
	return source.Trim(v)
}

// isPlain reports whether a name can end an event's name: a word of
// letters, digits and '_' (a type is any string an agent writes).
func isPlain(t string) bool {
	for _, r := range t {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return t != ""
}
