package amp

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// mapping is one document being mapped into the entries of its thread.
type mapping struct {
	c       *converter
	doc     *document
	final   bool
	session source.Session
	tid     string // the thread's id, which every entry's id starts with
	date    string // the date of what is being mapped, or the last one read
	line    int    // the line of what is being mapped
	cwd     string // the thread's working folder and branch, from its env
	branch  string
	ledger  *ledger        // the thread's usage ledger; nil: its messages' usage counts
	seen    map[string]int // the message keys met, and how many times
	out     []source.Output
	// streaming says a message is still being streamed: held, unless
	// final.
	streaming bool
}

// skipped are the thread's members that are not kept: a version counter
// (v), the next message's number (nextMessageId), and ~debug, which holds
// the last inference's usage again, as its assistant message does.
var skipped = map[string]bool{"v": true, "nextMessageId": true, "~debug": true}

// thread maps a document: the thread's anchor, then what its members
// say, then its messages in order, each followed by the runs of its
// usage. streaming says a message is still being streamed; then, unless
// final, nothing of the document is imported yet.
func (c *converter) thread(d *document, p parsed, final bool) ([]source.Output, bool) {
	m := &mapping{c: c, doc: d, final: final, date: c.st.Date, line: d.Line, seen: map[string]int{}, out: make([]source.Output, 0, 2*len(p.messages)+8)}
	m.tid = c.stem
	if v, ok := rawjson.Lookup(p.members, "id"); ok {
		if id, ok := nonEmpty(v); ok {
			m.tid = id
		}
	}
	if m.tid == "" {
		m.tid = "T-" + c.tag
	}
	m.session = source.Session{Source: "amp", ID: m.tid}
	var title, relationships []byte
	var extra []rawjson.Member // the members kept as an event
	state := rawjson.NewObject().Str("source", "amp").Str("session_id", m.tid).Str("file", c.path)
	m.envState(state, p.members)
	for _, mb := range p.members {
		switch k := string(mb.Key); {
		case k == "id" && source.Trim(mb.Value)[0] == '"':
		case k == "created":
			if d, ok := m.dateOf(mb.Value, millisDate, `"created"`); ok {
				m.date = d
			} else if !absent(source.Trim(mb.Value)) {
				extra = append(extra, mb)
			}
		case k == "title" && source.Trim(mb.Value)[0] == '"':
			title = source.Trim(mb.Value)
		case k == "usageLedger" && m.readLedger(mb.Value):
			if others := source.MembersObject(source.ObjectOf(mb.Value), func(k string) bool { return k == "events" }); string(others) != "{}" {
				extra = append(extra, rawjson.Member{Key: mb.Key, Value: others})
			}
		case k == "relationships" && source.Trim(mb.Value)[0] == '[':
			relationships = source.Trim(mb.Value)
		case k == "env" || skipped[k]:
		default:
			extra = append(extra, mb)
		}
	}
	m.parentState(state, p.members, relationships)
	m.emit(tapelog.Entry{ID: m.tid, Kind: tapelog.KindAnchor, Payload: source.MustJSON(map[string]any{"name": "session/start", "state": state.Done()})}, true, nil)
	later := m.relationships(relationships, len(p.messages))
	m.ledger.prepare(p.messages)
	for i, it := range p.messages {
		m.message(i, it)
		m.relationsAt(later[i])
	}
	// What the thread's members say goes after its messages, at the last
	// message's date: a fork's first messages are copies, dated before
	// the fork was made, and a tape orders a file's entries by the latest
	// date before them (a run counts on the day it sorts at).
	m.line = d.Line
	m.relationsAt(later[len(p.messages)])
	m.ledgerRest()
	if t, ok := str(title); ok && t != "" {
		m.event(m.tid+"/title/"+source.ShortSum([]byte(t)), "title", rawjson.NewObject().Str("title", t).Str("from", "title").Done())
	}
	if v, ok := rawjson.Lookup(p.members, "env"); ok && !absent(source.Trim(v)) {
		m.event(m.tid+"/env/"+source.ShortSum(compact(v)), "amp/env", compact(v))
	}
	if len(extra) > 0 {
		data := source.MembersObject(extra, nil)
		m.event(m.tid+"/thread/"+source.ShortSum(data), "amp/thread", data)
	}
	c.st.Date = m.date
	return m.out, m.streaming
}

// envState reads the thread's env ({"initial": {"trees": [{"displayName",
// "uri", "repository": {"url", "ref", "sha"}}], "platform": {...},
// "tags"}}): the working folder and branch every message's meta names,
// and what the anchor's state says of them.
func (m *mapping) envState(st *rawjson.Object, members []rawjson.Member) {
	v, _ := rawjson.Lookup(members, "env")
	initial := member(v, "initial")
	var tree []byte
	rawjson.ArrayItems(member(initial, "trees"), func(t []byte) {
		if tree == nil {
			tree = t
		}
	})
	if u, ok := str(member(tree, "uri")); ok {
		if p, err := url.Parse(u); err == nil && p.Scheme == "file" && p.Path != "" {
			m.cwd = p.Path
		}
	}
	repo := member(tree, "repository")
	if ref, ok := str(member(repo, "ref")); ok {
		m.branch = strings.TrimPrefix(ref, "refs/heads/")
	}
	st.StrIf("cwd", m.cwd).StrIf("git_branch", m.branch)
	if s, ok := str(member(repo, "url")); ok {
		st.StrIf("repository_url", s)
	}
	if s, ok := str(member(repo, "sha")); ok {
		st.StrIf("git_commit", s)
	}
	if s, ok := str(member(member(initial, "platform"), "clientVersion")); ok {
		st.StrIf("version", s)
	}
}

// parentState adds to the anchor's state the thread it came from: a
// subagent's main thread (mainThreadID), or the thread it was handed off
// or forked from (its relationship whose role is "child").
func (m *mapping) parentState(state *rawjson.Object, members []rawjson.Member, relationships []byte) {
	if v, ok := rawjson.Lookup(members, "agentMode"); ok {
		if s, ok := str(v); ok {
			state.StrIf("agent_mode", s)
		}
	}
	if v, ok := rawjson.Lookup(members, "mainThreadID"); ok {
		if s, ok := nonEmpty(v); ok {
			state.Str("parent_session", s).Str("relationship", "subagent")
			return
		}
	}
	done := false
	rawjson.ArrayItems(relationships, func(r []byte) {
		role, _ := str(member(r, "role"))
		parent, ok := nonEmpty(member(r, "threadID"))
		if done || role != "child" || !ok {
			return
		}
		done = true
		state.Str("parent_session", parent)
		if t, ok := str(member(r, "type")); ok {
			state.StrIf("relationship", t)
		}
	})
}

// relationships are the thread's links to others, each kept as an event
// amp/relationship: {"threadID", "type" (handoff, fork,
// mention), "role" (child: this thread was made from the other, at the
// other's message messageIndex; parent: this thread made the other, at
// its own message messageIndex), "messageIndex", "createdAt", "comment"}.
// A parent's link goes after the message it names; the others after the
// last (later, by the index of the message: n for after the last).
func (m *mapping) relationships(list []byte, n int) map[int][][]byte {
	later := map[int][][]byte{}
	rawjson.ArrayItems(list, func(r []byte) {
		role, _ := str(member(r, "role"))
		at, err := strconv.Atoi(string(member(r, "messageIndex")))
		switch {
		case role == "child":
			later[n] = append(later[n], r) // the anchor's state names its parent
		case err == nil && at >= 0 && at < n:
			later[at] = append(later[at], r)
		default:
			later[n] = append(later[n], r)
		}
	})
	return later
}

// relationsAt makes the events of links to other threads, at the date of
// the message before them: a fork made days after the message it starts
// at would otherwise sort the thread's later messages after it.
func (m *mapping) relationsAt(list [][]byte) {
	for _, r := range list {
		data := compact(r)
		m.event(m.tid+"/relationship/"+source.ShortSum(data), "amp/relationship", data)
	}
}

// emit adds an entry of the thread, at the date and line being mapped,
// with meta its source, and more.
func (m *mapping) emit(e tapelog.Entry, anchor bool, more func(*rawjson.Object)) {
	meta := source.Meta(m.c.path, m.line, "", "", nil)
	if more != nil {
		more(meta)
	}
	e.Meta = meta.Done()
	if e.Date == "" {
		e.Date = m.date
	}
	m.out = append(m.out, source.Output{Session: m.session, Entry: e, Anchor: anchor})
}

// event adds an event {"name", "data"} at the date being mapped.
func (m *mapping) event(id, name string, data json.RawMessage) {
	m.eventAt(id, name, data, m.date)
}

func (m *mapping) eventAt(id, name string, data json.RawMessage, date string) {
	m.emit(tapelog.Entry{ID: id, Kind: tapelog.KindEvent, Payload: source.NamedData(name, data), Date: date}, false, nil)
}
