package sessions

import (
	"cmp"
	"database/sql"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// The fold of a tape's entries into its sessions row. Every part of it is
// a count, or the entry that comes first or last by some order of the
// entries' places, so its result does not depend on the order the entries
// come in: a pass folds in the entries it adds as they come (new lines
// may sort anywhere, before the entries already indexed too), and the
// fold of a whole tape is the merge of the folds of any split of it.

// entry is what the fold reads of an entry: what a pass says of one it
// added (views.Added), or a row of the entries table.
type entry struct {
	rowid  int64
	kind   string
	place  views.Place
	timeNS sql.NullInt64
	facts  views.Facts
}

func entryOf(e views.Added) entry {
	var ns sql.NullInt64
	if e.TimeNS != nil {
		ns = sql.NullInt64{Int64: *e.TimeNS, Valid: true}
	}
	return entry{rowid: e.Rowid, kind: e.Kind, place: e.Place, timeNS: ns, facts: e.Facts}
}

// isAnchor reports whether e is a folder's anchor entry (entries.file_id
// 0): the one entry the projector makes of anchor.json, a name no *.jsonl
// file has.
func (e entry) isAnchor() bool { return e.place.File == tapelog.AnchorFile }

// fold is what the view keeps of a tape's entries.
type fold struct {
	entries int64 // entries, anchor entries not counted
	anchors int64 // anchor folders: their anchor entries
	first   span  // the first anchor seq, and the earliest time of its entries
	last    span  // the newest folder (seq, folder), and the latest time of its entries
	start   span  // the first anchor folder (seq, folder), whose state the row keeps
	cwd     mark  // the first entry whose facts name a working directory
	branch  mark  // the last that names a git branch
	title   mark  // the last title event
	prompt  mark  // the first message a person wrote: the title, without a title event
	model   mark  // the last run that names a model
}

// span is a folder or anchor seq, and a time of the entries in it.
type span struct {
	ok     bool
	seq    int64
	folder string // "" for first: it spans the folders of its seq
	ns     sql.NullInt64
}

// mark is the entry a part of the fold keeps, and what it keeps of it.
type mark struct {
	ok    bool
	at    views.Place
	value string
	cut   bool  // the prompt's value is its text cut to views.PromptBytes
	entry int64 // entries.rowid
}

// empty reports whether the fold has seen no entry: the tape has none.
func (f *fold) empty() bool { return !f.first.ok }

// add folds in one entry.
func (f *fold) add(e entry) { f.merge(one(e)) }

// one is the fold of a single entry.
func one(e entry) fold {
	f := fold{
		first: span{ok: true, seq: e.place.Seq, ns: e.timeNS},
		last:  span{ok: true, seq: e.place.Seq, folder: e.place.Folder, ns: e.timeNS},
	}
	at := func(on bool, value string) mark {
		return mark{ok: on, at: e.place, value: value, entry: e.rowid}
	}
	if e.isAnchor() {
		f.anchors = 1
		f.start = span{ok: true, seq: e.place.Seq, folder: e.place.Folder}
	} else {
		f.entries = 1
	}
	f.cwd = at(e.facts.CWD != "", e.facts.CWD)
	f.branch = at(e.facts.Branch != "", e.facts.Branch)
	f.title = at(e.facts.Title != "", e.facts.Title)
	f.prompt = at(isPrompt(e), e.facts.Prompt)
	f.prompt.cut = e.facts.PromptCut
	if r := e.facts.Run; r != nil {
		f.model = at(r.Model != "", r.Model)
	}
	return f
}

// isPrompt reports whether e is a message a person wrote (views.Facts.IsPrompt).
func isPrompt(e entry) bool { return e.kind == tapelog.KindMessage && e.facts.IsPrompt() }

// merge folds g into f: f becomes the fold of both sets of entries.
func (f *fold) merge(g fold) {
	f.entries += g.entries
	f.anchors += g.anchors
	f.first.keepFirst(g.first)
	f.last.keepLast(g.last)
	f.start.keepStart(g.start)
	f.cwd.keepFirst(g.cwd)
	f.branch.keepLast(g.branch)
	f.title.keepLast(g.title)
	f.prompt.keepFirst(g.prompt)
	// The list took the model of the last run by anchor seq, folder and
	// time: an entry's time is its effective time (the projector's
	// time_ns), by which a folder orders its entries, so that is the last
	// run in tape order, the place breaking the ties the query left to
	// SQLite.
	f.model.keepLast(g.model)
}

// keepFirst keeps the least anchor seq, and the earliest time in it.
func (s *span) keepFirst(o span) {
	switch {
	case !o.ok:
	case !s.ok || o.seq < s.seq:
		*s = o
	case o.seq == s.seq:
		s.ns = minNS(s.ns, o.ns)
	}
}

// keepLast keeps the newest folder, and the latest time in it.
func (s *span) keepLast(o span) {
	if !o.ok {
		return
	}
	switch c := cmp.Or(cmp.Compare(o.seq, s.seq), cmp.Compare(o.folder, s.folder)); {
	case !s.ok || c > 0:
		*s = o
	case c == 0:
		s.ns = maxNS(s.ns, o.ns)
	}
}

// keepStart keeps the first anchor folder.
func (s *span) keepStart(o span) {
	if o.ok && (!s.ok || cmp.Or(cmp.Compare(o.seq, s.seq), cmp.Compare(o.folder, s.folder)) < 0) {
		*s = o
	}
}

// keepFirst keeps o instead of m when it comes first in tape order.
func (m *mark) keepFirst(o mark) {
	if o.ok && (!m.ok || o.at.Compare(m.at) < 0) {
		*m = o
	}
}

// keepLast keeps o instead of m when it comes last in tape order.
func (m *mark) keepLast(o mark) {
	if o.ok && (!m.ok || o.at.Compare(m.at) > 0) {
		*m = o
	}
}

// minNS is the earlier time, as SQLite's min() aggregate takes it: NULL
// only when both are.
func minNS(a, b sql.NullInt64) sql.NullInt64 {
	if !a.Valid || (b.Valid && b.Int64 < a.Int64) {
		return b
	}
	return a
}

// maxNS is the later time, NULL only when both are.
func maxNS(a, b sql.NullInt64) sql.NullInt64 {
	if !a.Valid || (b.Valid && b.Int64 > a.Int64) {
		return b
	}
	return a
}
