package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views/calls"
	"github.com/tape-dev/tape/views/sessions"
)

// sessionState is the open session: its blocks, and the lines they make
// at the screen's width, drawn again when a fold, the width or the
// entries change (not when the selection moves).
type sessionState struct {
	info    sessions.Session
	chat    *chat
	anchors []tapelog.Anchor
	counts  map[string]int // entries of each anchor, by folder
	read    int            // entries read: where the next read starts
	loaded  bool           // the first read came back
	reading bool           // a read of what follows is under way
	again   bool           // the index moved while it was: read again after
	focusID string         // an entry to select once read (a search hit's)
	cursor  int            // the block selected, an index into chat.blocks
	top     int            // the first line on screen
	lines   []line
	width   int // of lines; 0: to draw
}

// line is one line of the session on screen, and the block it draws.
type line struct {
	text  string
	block int
}

// Bounds of what a block shows opened: a 60 MB output is not drawn whole.
const (
	foldedText = 8    // lines of a long message shown before it is opened
	openedText = 2000 // lines of any block shown opened
)

func newSession(s sessions.Session, focusID string) *sessionState {
	return &sessionState{info: s, chat: newChat(), focusID: focusID}
}

// visible reports whether block i is drawn.
func (s *sessionState) visible(i int) bool { return !s.chat.blocks[i].hidden }

// layout draws the blocks' lines at width w, when they are not drawn.
func (s *sessionState) layout(w int, t theme) {
	if s.width == w && s.lines != nil {
		return
	}
	s.width, s.lines = w, s.lines[:0]
	for i, b := range s.chat.blocks {
		if b.hidden {
			continue
		}
		if b.linesAt != w {
			b.lines, b.linesAt = drawBlock(b, s.anchorName(b), w-2, t), w
		}
		for _, l := range b.lines {
			s.lines = append(s.lines, line{text: l, block: i})
		}
	}
}

// relayout has the lines put together again at the next view, each block
// drawn again only if it changed.
func (s *sessionState) relayout() { s.width = 0 }

// redraw has every block drawn again at the next view: a new theme.
func (s *sessionState) redraw() {
	s.width = 0
	for _, b := range s.chat.blocks {
		b.linesAt = 0
	}
}

func (s *sessionState) anchorName(b *block) string {
	if i := s.anchorOf(b); b.kind == tapelog.KindAnchor && i >= 0 {
		return s.anchors[i].Name
	}
	return b.who
}

// anchorOf is the index in the session's anchors of the anchor a block is
// in; -1 when it is not known.
func (s *sessionState) anchorOf(b *block) int {
	return slices.IndexFunc(s.anchors, func(a tapelog.Anchor) bool { return a.Folder == b.folder })
}

// move selects the n-th visible block after (or before) the selected one.
func (s *sessionState) move(n int) {
	step := 1
	if n < 0 {
		step, n = -1, -n
	}
	for i := s.cursor + step; n > 0 && i >= 0 && i < len(s.chat.blocks); i += step {
		if s.visible(i) {
			s.cursor, n = i, n-1
		}
	}
}

// jumpAnchor selects the next (dir 1) or the previous (-1) anchor.
func (s *sessionState) jumpAnchor(dir int) {
	for i := s.cursor + dir; i >= 0 && i < len(s.chat.blocks); i += dir {
		if s.chat.blocks[i].kind == tapelog.KindAnchor {
			s.cursor = i
			return
		}
	}
}

// selectID selects the block of an entry, or the nearest shown block
// before it (a result shown with its call); none when it has none.
func (s *sessionState) selectID(id string) {
	for i, b := range s.chat.blocks {
		if b.id != id {
			continue
		}
		for ; i > 0 && !s.visible(i); i-- {
		}
		s.cursor = i
		return
	}
}

// scroll keeps the selected block's first line on screen, rows tall.
func (s *sessionState) scroll(rows int) {
	first, last := -1, -1
	for i, l := range s.lines {
		if l.block == s.cursor {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return
	}
	if last-first < rows && last >= s.top+rows {
		s.top = last - rows + 1
	}
	if first < s.top || first >= s.top+rows {
		s.top = first
	}
	s.top = max(0, min(s.top, len(s.lines)-rows))
}

// drawBlock is a block's lines, w columns wide (a gutter of two is
// added by the view).
func drawBlock(b *block, anchorName string, w int, t theme) []string {
	when := clock(b.date)
	switch b.kind {
	case tapelog.KindAnchor:
		head := fmt.Sprintf("── ⚑ %s ", oneLine(anchorName))
		if b.date != "" {
			head += day(b.date) + " "
		}
		return []string{t.accent.Render(fit(head+strings.Repeat("─", max(0, w-widthOf(head))), w))}
	case "call":
		return drawCall(b, w, t)
	case tapelog.KindMessage:
		style := t.title
		if b.who == "user" {
			style = t.accent
		}
		return append([]string{style.Render(oneLine(b.who)) + t.dim.Render(" · "+when)}, body(b.text, w-2, !b.folded, "  ", t)...)
	case tapelog.KindError:
		return append([]string{t.failed.Render("✗ error "+oneLine(b.who)) + t.dim.Render(" · "+when)}, body(b.text, w-2, !b.folded, "  ", t)...)
	}
	// a result no call took, thinking, events, system text: one line until opened
	label := oneLine(b.who)
	if b.folded {
		line, _ := head(b.text, lineBytes)
		return []string{t.dim.Render(fit("▸ "+label+": "+oneLine(line), w))}
	}
	head := t.dim.Render("▾ " + label + " · " + when)
	lines := body(b.text, w-2, true, "  ", t)
	if b.dim {
		for i := range lines {
			lines[i] = t.dim.Render(lines[i])
		}
	}
	return append([]string{head}, lines...)
}

// drawCall is a tool call: in a line (its name, status, time, arguments)
// until opened, then its arguments and what it returned.
func drawCall(b *block, w int, t theme) []string {
	mark := "▸"
	if !b.folded {
		mark = "▾"
	}
	status := t.pending.Render("… " + b.status)
	switch b.status {
	case calls.StatusCompleted:
		status = t.ok.Render("✓")
	case calls.StatusFailed:
		status = t.failed.Render("✗ failed")
	}
	title := mark + " " + t.title.Render(oneLine(b.who)) + " " + status
	if b.took != "" {
		title += t.dim.Render(" " + b.took)
	}
	if b.folded {
		args, _ := head(argsLine(b.args), lineBytes)
		return []string{title + " " + fit(oneLine(args), max(0, w-widthOf(title)-1))}
	}
	lines := []string{title, t.dim.Render("  arguments")}
	lines = append(lines, body(b.args, w-4, true, "    ", t)...)
	if b.status == calls.StatusPending {
		return append(lines, t.dim.Render("  no result yet"))
	}
	lines = append(lines, t.dim.Render("  returned"))
	return append(lines, body(b.text, w-4, true, "    ", t)...)
}

// Bounds of what a block draws of its text, whatever its size: a tool's
// 60 MB output is wrapped from its first drawnBytes, a folded line made
// from its first lineBytes.
const (
	drawnBytes = 256 << 10
	lineBytes  = 4 << 10
)

// head is text's first n bytes, cut at a character, and how many bytes it
// left out.
func head(text string, n int) (string, int) {
	if len(text) <= n {
		return text, 0
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n], len(text) - n
}

// body is text wrapped to w columns, each line indented; at most
// openedText lines when opened, foldedText when not, and a line saying
// how many more there are, or how many bytes past drawnBytes are not
// drawn.
func body(text string, w int, opened bool, indent string, t theme) []string {
	text, cut := head(text, drawnBytes)
	lines := wrap(strings.TrimRight(text, "\n"), w)
	limit := openedText
	if !opened {
		limit = foldedText
	}
	out := make([]string, 0, min(len(lines), limit)+1)
	for i, l := range lines {
		if i == limit {
			more := fmt.Sprintf("… %d more lines", len(lines)-limit)
			if !opened {
				more += " (enter opens)"
			}
			return append(out, indent+t.dim.Render(more))
		}
		out = append(out, indent+l)
	}
	if cut > 0 {
		out = append(out, indent+t.dim.Render(fmt.Sprintf("… %d more bytes are not shown (tape export has them)", cut)))
	}
	return out
}

// clock is an entry's date as the time of day, in the local zone.
func clock(date string) string {
	if t, err := time.Parse(time.RFC3339Nano, date); err == nil {
		return t.Local().Format("15:04:05")
	}
	return oneLine(date)
}

// day is an entry's date as a day and a time, in the local zone.
func day(date string) string {
	if t, err := time.Parse(time.RFC3339Nano, date); err == nil {
		return t.Local().Format("2006-01-02 15:04")
	}
	return oneLine(date)
}
