// Package export takes tapes out of the workspace as files a person can
// share: Markdown that reads well on GitHub, one self-contained HTML
// page, or JSON and JSONL as `tape log --json` prints entries. It picks
// the entries (anchors, kinds, dates), redacts them (package redact, on
// unless the caller says no), and hands them to package web, which says
// how a chat looks on a page and in Markdown. Several tapes go to a
// folder, a file each and an index. The files under .tape are never
// changed.
package export

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/read/records"
	"github.com/tape-dev/tape/redact"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/web"
)

// Formats are the formats an export writes, each the extension of its
// files.
var Formats = []string{"md", "html", "json", "jsonl"}

// Options say what of a tape an export writes, and how.
type Options struct {
	Format       string    // one of Formats
	Pick         read.Pick // the anchors: the whole tape when zero
	Since, Until time.Time // entries dated in [Since, Until); zero: no bound
	Kinds        []string  // only these kinds; nil: all
	// Redactor replaces the secrets of what is written; nil writes them
	// as they are.
	Redactor *redact.Redactor
	Version  string // tape's, in the files' footers
}

// Stats are what an export wrote.
type Stats struct {
	Entries  int // anchors not counted
	Redacted int // secrets replaced
}

// Tape writes the entries of a tape that opt picks to w.
func Tape(ctx context.Context, w io.Writer, ix *projector.Projector, name string, opt Options) (Stats, error) {
	if !slices.Contains(Formats, opt.Format) {
		return Stats{}, fmt.Errorf("export: no format %q (one of %v)", opt.Format, Formats)
	}
	pick := opt.Pick
	if pick == (read.Pick{}) {
		pick.All = true
	}
	kinds := opt.Kinds
	if kinds != nil && (opt.Format == "md" || opt.Format == "html") && !slices.Contains(kinds, tapelog.KindAnchor) {
		kinds = append(slices.Clip(kinds), tapelog.KindAnchor) // the headings a page is read by
	}
	got, err := read.ReadEntries(ctx, ix, read.EntryQuery{Tape: name, Pick: pick, Kinds: kinds})
	if err != nil {
		return Stats{}, err
	}
	var st Stats
	entries := slices.DeleteFunc(got.Entries, func(e tapelog.Entry) bool { return !opt.dated(e) })
	if opt.Redactor != nil {
		st.Redacted = opt.Redactor.Entries(entries)
	}
	head, err := opt.head(ctx, ix, name, entries)
	if err != nil {
		return st, err
	}
	st.Entries = head.Entries // as the file says it, and tape tapes counts
	return st, write(w, opt.Format, head, entries)
}

// dated reports whether an entry is within the dates asked for; an
// anchor entry always is, so that the entries keep their headings.
func (o Options) dated(e tapelog.Entry) bool {
	if e.Kind == tapelog.KindAnchor || o.Since.IsZero() && o.Until.IsZero() {
		return true
	}
	t := e.Pos.Time
	return (o.Since.IsZero() || !t.Before(o.Since)) && (o.Until.IsZero() || t.Before(o.Until))
}

// head is what the export says of the tape: the session's row, its title
// redacted as its entries are (it is the first prompt, often).
func (o Options) head(ctx context.Context, ix *projector.Projector, name string, entries []tapelog.Entry) (web.ExportHead, error) {
	h := web.ExportHead{Tape: name, Version: o.Version}
	rows, err := read.ListTapes(ctx, ix, sessions.Filter{Tape: name})
	if err != nil {
		return h, err
	}
	if len(rows.Page) > 0 {
		s := rows.Page[0]
		h.Title, h.Source, h.CWD, h.Branch, h.Model = s.Title, s.Source, s.CWD, s.Branch, s.Model
	}
	for _, e := range entries {
		if e.Kind != tapelog.KindAnchor { // counted as tape tapes counts them
			h.Entries++
		}
		if t := e.Pos.Time; !t.IsZero() && e.Date != "" {
			if h.First.IsZero() || t.Before(h.First) {
				h.First = t
			}
			if t.After(h.Last) {
				h.Last = t
			}
		}
	}
	if o.Redactor != nil {
		h.Title = o.Redactor.Title(h.Title)
		h.CWD, _ = o.Redactor.Text(h.CWD)
	}
	return h, nil
}

func write(w io.Writer, format string, head web.ExportHead, entries []tapelog.Entry) error {
	switch format {
	case "md":
		return web.ExportMarkdown(w, head, entries)
	case "html":
		return web.ExportHTML(w, head, entries)
	}
	var b bytes.Buffer
	if format == "json" {
		b.WriteString("[\n")
	}
	for i, e := range entries {
		b.Write(records.NewEntry(e).AppendJSON(nil))
		if format == "json" && i < len(entries)-1 {
			b.Truncate(b.Len() - 1)
			b.WriteString(",\n")
		}
		if b.Len() > 1<<20 {
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	if format == "json" {
		b.WriteString("]\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}
