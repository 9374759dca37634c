package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"html/template"
	"strings"

	"github.com/tape-dev/tape/internal/rawjson"
)

// What a tape holds is untrusted and may be of any size: a page bounds
// what it renders in bytes and in depth, whatever an entry holds, as it
// bounds its rows by count. See docs/decisions/0070.
const (
	// foldBytes is the most of one value a page shows: a message's text,
	// a tool's arguments or output, a payload's JSON, an anchor's state.
	// The rest is folded away with a note of how many bytes, and of the
	// file and line that hold the entry whole. 64 KiB is some 800 lines of
	// 80 columns, more than anyone reads in a browser; a 10 MB message
	// made a 20 MB page.
	foldBytes = 64 << 10
	// flatDepth is how deep JSON is indented; what nests deeper is printed
	// on one line. Indentation grows with depth, so that 9,000 nested
	// arrays, 18 KB, indented in full are 162 MB. Payloads nest a few
	// levels; at 32 a line already starts 64 columns in.
	flatDepth = 32
	// pageBytes is the most HTML of entries one page holds. Entries past it
	// go to the next page, as those past entriesPage do; an entry that
	// alone passes it is shown as a note of where it is. With values
	// folded at foldBytes, a page of the largest entries holds some 30
	// of them.
	pageBytes = 4 << 20
	// liveBytes is the most HTML one look of a live stream sends (its
	// entries and the calls they answered): an entry past it is sent as a
	// note, which the page's reload shows whole. liveReadBytes, the most
	// of the files' bytes one look reads, keeps that rare: a burst of
	// large entries comes a few per look.
	liveBytes     = 1 << 20
	liveReadBytes = 256 << 10
	// labelBytes is the most of a name, a title, a folder or a model a
	// page shows: each is a line's worth, and a writer may make any of
	// them megabytes long.
	labelBytes = 1 << 10
	// timelineStateBytes is the most of an anchor's state the timeline
	// shows beside each of its anchorsShown anchors; the anchor's own page
	// shows foldBytes of it.
	timelineStateBytes = 4 << 10
	// badShown is the most bad lines a page lists; tape doctor lists all.
	badShown = 50
)

// fold is s cut to foldBytes on a rune's boundary, and how many bytes
// were cut.
func fold(s string) (shown string, folded int) {
	shown = cutUTF8(s, foldBytes)
	return shown, len(s) - len(shown)
}

// clip is s cut to labelBytes, with … where it was cut.
func clip(s string) string {
	if len(s) <= labelBytes {
		return s
	}
	return cutUTF8(s, labelBytes) + "…"
}

// indent is raw JSON as a page shows it, and how many of raw's bytes it
// left out: indented two spaces a level down to flatDepth and on one
// line below that, at most limit bytes of it (and a closing line's
// indentation). Raw that is not JSON is
// shown as it is, cut alike. It reads raw once and writes no more than
// it keeps, whatever the depth.
func indent(raw json.RawMessage, limit int) (string, int) {
	if len(raw) == 0 {
		return "", 0
	}
	if !json.Valid(raw) {
		s := cutUTF8(string(raw), limit)
		return s, len(raw) - len(s)
	}
	var b strings.Builder
	depth := 0
	var q rawjson.Quotes
	newline := func(d int) {
		b.WriteByte('\n')
		for range d {
			b.WriteString("  ")
		}
	}
	for i := 0; i < len(raw); i++ {
		if b.Len() >= limit {
			return cutUTF8(b.String(), limit), len(raw) - i
		}
		c := raw[i]
		if q.Step(c) {
			b.WriteByte(c)
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
		case '{', '[':
			b.WriteByte(c)
			if j := skipSpace(raw, i+1); j < len(raw) && (raw[j] == '}' || raw[j] == ']') {
				b.WriteByte(raw[j]) // empty: {} and [] as json.Indent writes them
				i = j
				continue
			}
			if depth++; depth <= flatDepth {
				newline(depth)
			}
		case '}', ']':
			if depth--; depth < flatDepth {
				newline(depth)
			}
			b.WriteByte(c)
		case ',':
			b.WriteByte(c)
			if depth <= flatDepth {
				newline(depth)
			}
		case ':':
			b.WriteByte(c)
			if depth <= flatDepth {
				b.WriteByte(' ')
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), 0 // past limit by a closing line's indentation at most
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// errOverBudget is what a budgeted buffer answers a write past its
// budget with: the template stops there.
var errOverBudget = errors.New("over the page's budget")

// budgeted is a buffer that takes at most limit bytes.
type budgeted struct {
	bytes.Buffer
	limit int
}

func (b *budgeted) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.limit {
		return 0, errOverBudget
	}
	return b.Buffer.Write(p)
}

// WriteString is Write's: html/template writes strings too.
func (b *budgeted) WriteString(s string) (int, error) {
	if b.Len()+len(s) > b.limit {
		return 0, errOverBudget
	}
	return b.Buffer.WriteString(s)
}

// tooLarge is an entry whose HTML passes the budget of what shows it: a
// note of where it is, each field of it bounded.
type tooLarge struct {
	ID, Kind, Date, URL, Source, Note string
}

// The notes an entry too large to show becomes.
const (
	pageNote = "This entry is too large to show on a page"
	liveNote = "This entry is too large for the live view; reload the page to see it"
)

func newTooLarge(it *item, note string) tooLarge {
	n := tooLarge{Kind: it.Kind, Date: it.Date, Source: it.Source, Note: note}
	if len(it.ID) <= labelBytes { // else no link: the id would be as large
		n.ID, n.URL = it.ID, it.URL
	}
	return n
}

// renderItem renders it into b, and reports whether it fit: if not, b is
// as it was.
func (s *Server) renderItem(b *budgeted, name string, data any) (fit bool, err error) {
	mark := b.Len()
	err = s.pages["tape"].ExecuteTemplate(b, name, data)
	if errors.Is(err, errOverBudget) {
		b.Truncate(mark)
		return false, nil
	}
	return err == nil, err
}

// renderNote renders the note of an entry too large for b, past b's
// budget: a note is a line.
func (s *Server) renderNote(b *budgeted, it *item, note string) error {
	return s.pages["tape"].ExecuteTemplate(&b.Buffer, "toolarge", newTooLarge(it, note))
}

// renderPage renders a page's items within pageBytes, and says how many
// it rendered: it stops before the first that does not fit, which starts
// the next page, unless it is the first, which is shown as a note.
//
// Rendered by the item template, which escaped every text of the
// entries, the HTML is the page template's to insert as it is.
func (s *Server) renderPage(items []*item) (template.HTML, int, error) {
	b := &budgeted{limit: pageBytes}
	for i, it := range items {
		fit, err := s.renderItem(b, "item", it)
		if err != nil {
			return "", 0, err
		}
		if fit {
			continue
		}
		if i > 0 {
			return template.HTML(b.String()), i, nil
		}
		if err := s.renderNote(b, it, pageNote); err != nil {
			return "", 0, err
		}
	}
	return template.HTML(b.String()), len(items), nil
}

// renderNewest is renderPage for a page of a tape's newest entries: it
// keeps the last of them that fit, and says how many it skipped at the
// start, which the previous page shows.
func (s *Server) renderNewest(items []*item) (template.HTML, int, error) {
	var chunks [][]byte
	left := pageBytes
	for i := len(items) - 1; i >= 0; i-- {
		b := &budgeted{limit: left}
		fit, err := s.renderItem(b, "item", items[i])
		if err == nil && !fit && i == len(items)-1 {
			fit, err = true, s.renderNote(b, items[i], pageNote)
		}
		if err != nil {
			return "", 0, err
		}
		if !fit {
			return joinReversed(chunks), i + 1, nil
		}
		chunks = append(chunks, b.Bytes())
		left -= b.Len()
	}
	return joinReversed(chunks), 0, nil
}

func joinReversed(chunks [][]byte) template.HTML {
	var b strings.Builder
	for i := len(chunks) - 1; i >= 0; i-- {
		b.Write(chunks[i])
	}
	return template.HTML(b.String())
}
