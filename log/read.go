package log

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
)

// Entries returns the entries of the given anchors, in tape order: each
// anchor's entry (none for an Unanchored folder), then the entries of its *.jsonl files, merged (see the
// package doc for the rule). Pass the result of Anchors, or a slice of it.
//
// The iterator yields a *LineError for a line or file it cannot read and
// goes on; any other error ends it.
func (t *Tape) Entries(ctx context.Context, anchors []Anchor) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		for _, a := range anchors {
			if err := ctx.Err(); err != nil {
				yield(Entry{}, err)
				return
			}
			if a.Err != nil && !yield(Entry{}, a.Err) {
				return
			}
			if !a.Unanchored && !yield(a.Entry, nil) {
				return
			}
			if !t.readFolder(ctx, a, yield) {
				return
			}
		}
	}
}

// All returns every entry of the tape, in order.
func (t *Tape) All(ctx context.Context) iter.Seq2[Entry, error] {
	anchors, err := t.Anchors()
	if err != nil {
		return func(yield func(Entry, error) bool) { yield(Entry{}, err) }
	}
	return t.Entries(ctx, anchors)
}

// Range returns the entries from the anchor selected by from through the
// anchor selected by to, both included, in order; "" means the first or the
// last anchor. Selectors are those of FindAnchor. Range(ctx, "", "") is All.
func (t *Tape) Range(ctx context.Context, from, to string) iter.Seq2[Entry, error] {
	anchors, err := t.Anchors()
	if err == nil {
		anchors, err = SelectAnchors(anchors, from, to)
	}
	if err != nil {
		return func(yield func(Entry, error) bool) { yield(Entry{}, err) }
	}
	return t.Entries(ctx, anchors)
}

// SelectAnchors returns the anchors from the one from selects through the
// one to selects, both included; "" means the first or the last.
func SelectAnchors(anchors []Anchor, from, to string) ([]Anchor, error) {
	lo, hi := 0, len(anchors)-1
	var err error
	if from != "" {
		if lo, err = FindAnchor(anchors, from); err != nil {
			return nil, err
		}
	}
	if to != "" {
		if hi, err = FindAnchor(anchors, to); err != nil {
			return nil, err
		}
	}
	if hi < lo {
		return nil, fmt.Errorf("log: anchor %q comes after anchor %q; give them in tape order", from, to)
	}
	return anchors[lo : hi+1], nil
}

// ErrNoAnchor is wrapped by FindAnchor's error when nothing matches.
var ErrNoAnchor = errors.New("log: no such anchor")

// FindAnchor picks one anchor by a selector, trying in turn: its folder name
// ("002_plan"), its seq ("2"), its full name, and its slug. A name used by
// several anchors selects the last of them, the one in force, as Bub's
// context does.
func FindAnchor(anchors []Anchor, sel string) (int, error) {
	found, unique := MatchAnchors(anchors, sel)
	switch {
	case len(found) == 0:
		return -1, fmt.Errorf("%w %q", ErrNoAnchor, sel)
	case unique: // a folder or a seq: the first, should a hand-made folder repeat one
		return found[0], nil
	}
	return found[len(found)-1], nil
}

// MatchAnchors is every anchor sel selects, in tape order, by FindAnchor's
// rule: the first of folder name, seq, full name and slug that some anchor
// matches decides. unique says the rule was a folder name or a seq, which
// name one anchor; a name or a slug may name several (a phase each session
// names "plan"). A search limited to an anchor covers all of them; a read
// of one anchor, FindAnchor's, the last.
func MatchAnchors(anchors []Anchor, sel string) (found []int, unique bool) {
	rules := []func(Anchor) bool{func(a Anchor) bool { return a.Folder == sel }}
	if seq, _, ok := ParseFolderName(sel + "_"); ok {
		rules = append(rules, func(a Anchor) bool { return a.Seq == seq })
	}
	byName := len(rules)
	rules = append(rules,
		func(a Anchor) bool { return a.Name == sel },
		func(a Anchor) bool { _, slug, _ := ParseFolderName(a.Folder); return slug == sel })
	for r, match := range rules {
		for i, a := range anchors {
			if match(a) {
				found = append(found, i)
			}
		}
		if found != nil {
			return found, r < byName
		}
	}
	return nil, false
}

// fileCursor is one *.jsonl file of a folder being merged: the entry at
// its head.
type fileCursor struct {
	s    *FileScanner
	head Entry
	ok   bool // head holds an entry
}

// readFolder yields the entries of one anchor folder's *.jsonl files, merged
// by effective time, then file name; within a file, lines stay in order.
func (t *Tape) readFolder(ctx context.Context, a Anchor, yield func(Entry, error) bool) bool {
	dir := t.folderPath(a.Folder)
	_, files, _, err := t.FolderFiles(a.Folder)
	if err != nil {
		return yield(Entry{}, &LineError{Path: dir, Reason: "cannot list folder: " + IOReason(err)})
	}
	cursors := make([]*fileCursor, 0, len(files))
	defer func() {
		for _, c := range cursors {
			c.s.Close()
		}
	}()
	for _, fi := range files {
		if fi.Err != nil { // a symlink out of the workspace: say so, read the rest
			if !yield(Entry{}, fi.Err) {
				return false
			}
			continue
		}
		s, err := t.ScanFile(a, fi.Name, FilePos{})
		if err != nil {
			if !yield(Entry{}, err) {
				return false
			}
			continue
		}
		c := &fileCursor{s: s}
		cursors = append(cursors, c)
		if !advance(c, yield) {
			return false
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			yield(Entry{}, err)
			return false
		}
		var min *fileCursor
		for _, c := range cursors { // cursors are sorted by name: ties go to the first
			if c.ok && (min == nil || c.head.Pos.Time.Before(min.head.Pos.Time)) {
				min = c
			}
		}
		if min == nil {
			return true
		}
		if !yield(min.head, nil) || !advance(min, yield) {
			return false
		}
	}
}

func (t *Tape) maxLineBytes() int {
	return int(max(DefaultMaxLineBytes, t.ws.config.MaxEntryBytes+1))
}

// advance reads c's next entry into c.head, yielding the bad lines on the way.
func advance(c *fileCursor, yield func(Entry, error) bool) bool {
	for {
		e, err := c.s.Next()
		if errors.Is(err, io.EOF) {
			c.ok = false
			return true
		}
		var le *LineError
		if errors.As(err, &le) {
			if !yield(Entry{}, err) {
				return false
			}
			continue
		}
		if err != nil {
			c.ok = false
			return yield(Entry{}, err)
		}
		c.head, c.ok = e, true
		return true
	}
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
