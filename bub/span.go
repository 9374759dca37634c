package bub

import tapelog "github.com/tape-dev/tape/log"

// Span is the part of a tape a context is built from: the entries of some
// of its anchors, the first anchor's own entry left out when the context
// starts after it.
type Span struct {
	Folders []string // the anchor folders whose entries are read, in tape order
	After   string   // the folder whose anchor entry is left out; "" for none
}

// ContextSpan is the span of a tape, whose anchors are given in order,
// that a context reads, as Bub reads it: with all, the whole tape, every
// anchor included as a message; else the entries after the last anchor
// named anchor (or, when no anchor has that name, the anchor with that
// folder, seq or slug, as tapelog.FindAnchor picks one), the anchors
// after it included; else, with anchor "", the entries after the last
// anchor. An anchor that matches none is an error that wraps
// tapelog.ErrNoAnchor. Every front end of a context (tape context, the
// MCP context tool) asks here.
func ContextSpan(anchors []tapelog.Anchor, anchor string, all bool) (Span, error) {
	var s Span
	switch {
	case all || len(anchors) == 0:
	case anchor != "":
		i, err := lastNamed(anchors, anchor)
		if err != nil {
			return Span{}, err
		}
		anchors, s.After = anchors[i:], anchors[i].Folder
	default:
		anchors = anchors[len(anchors)-1:]
		s.After = anchors[0].Folder
	}
	s.Folders = make([]string, len(anchors))
	for i, a := range anchors {
		s.Folders[i] = a.Folder
	}
	return s, nil
}

// lastNamed finds the last anchor named sel, before trying sel as a
// folder, seq or slug: an anchor may be named "2".
func lastNamed(anchors []tapelog.Anchor, sel string) (int, error) {
	for i := len(anchors) - 1; i >= 0; i-- {
		if anchors[i].Name == sel {
			return i, nil
		}
	}
	return tapelog.FindAnchor(anchors, sel)
}

// Trim leaves out of entries, the span's in tape order, the anchor entry
// the context starts after.
func (s Span) Trim(entries []tapelog.Entry) []tapelog.Entry {
	if s.After == "" {
		return entries
	}
	for i, e := range entries {
		if e.Kind == tapelog.KindAnchor && e.Pos.Folder == s.After {
			return append(entries[:i:i], entries[i+1:]...)
		}
	}
	return entries
}
