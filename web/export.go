package web

import (
	"bufio"
	"fmt"
	"html"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
)

// A tape taken away: the same chat the page shows (calls folded with
// their results, thinking marked, long text folded at foldBytes), written
// as one Markdown file that reads well on GitHub (ExportMarkdown) or as
// one HTML file that needs nothing else (ExportHTML). tape export (package
// export) picks the entries and redacts them; this file says how they
// look.

// ExportHead is what an export says of its tape above its entries.
type ExportHead struct {
	Tape, Title, Source, CWD, Branch, Model string
	Entries                                 int
	First, Last                             time.Time
	Version                                 string // tape's, in the footer
}

// exportItems is the chat of entries, in order, with the entries' links
// made links within the file.
func exportItems(tape string, entries []tapelog.Entry) []*item {
	c := newChat(tape)
	items := c.add(entries)
	c.finish()
	for _, it := range items {
		it.URL = "#e-" + it.ID
	}
	return items
}

// ExportMarkdown writes entries of a tape as Markdown: a title and a line
// of what the session is, each anchor a heading, each message its role
// and text, each tool call a <details> with its arguments and what it
// returned, thinking and events folded in <details> too.
func ExportMarkdown(w io.Writer, head ExportHead, entries []tapelog.Entry) error {
	b := &mdWriter{w: bufio.NewWriterSize(w, 1<<16)}
	b.WriteString("# " + mdLine(head.heading()) + "\n\n")
	b.WriteString(mdLine(head.facts()) + "\n")
	for _, it := range exportItems(head.Tape, entries) {
		writeMarkdownItem(b, it)
	}
	blank(b)
	b.WriteString("---\n\n*Exported by tape " + mdLine(head.Version) + " from `" + mdLine(head.Tape) + "`.*\n")
	return b.w.Flush()
}

// mdWriter writes Markdown through a buffer, keeping the last two bytes
// written, for blank to see whether a block may start. (Built whole in
// memory first, a 10,000-entry export spent a fifth of its time growing
// the buffer and collecting it.)
type mdWriter struct {
	w    *bufio.Writer
	tail [2]byte // the last two bytes written, the last at 1
}

func (m *mdWriter) WriteString(s string) {
	m.w.WriteString(s)
	switch len(s) {
	case 0:
	case 1:
		m.tail = [2]byte{m.tail[1], s[0]}
	default:
		m.tail = [2]byte{s[len(s)-2], s[len(s)-1]}
	}
}

func (h ExportHead) heading() string {
	if h.Title != "" {
		return h.Title
	}
	return h.Tape
}

// facts is the line under the title: tape, source, folder, branch, model,
// entries, span.
func (h ExportHead) facts() string {
	parts := []string{"tape " + h.Tape}
	for _, s := range []string{h.Source, h.CWD, h.Branch, h.Model} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	parts = append(parts, num(h.Entries)+" "+noun(h.Entries, "entry", "entries"))
	if !h.First.IsZero() {
		parts = append(parts, whenTime(h.First)+" – "+whenTime(h.Last))
	}
	return strings.Join(parts, " · ")
}

func writeMarkdownItem(b *mdWriter, it *item) {
	if it.Hidden {
		return
	}
	blank(b)
	switch {
	case it.Kind == tapelog.KindAnchor:
		b.WriteString("## ⚑ " + mdLine(it.Name) + "\n")
		if it.Date != "" {
			blank(b)
			b.WriteString("*" + when(it.Date) + "*\n")
		}
		if it.State != "" {
			mdDetails(b, "state", "", it.State, "json")
		}
	case it.Kind == tapelog.KindToolCall:
		for _, c := range it.Calls {
			writeMarkdownCall(b, c)
		}
	case it.Kind == tapelog.KindToolResult:
		b.WriteString("**tool result** · " + when(it.Date) + "\n")
		for _, r := range it.Results {
			mdOutput(b, "result", r)
		}
		if it.JSON != "" {
			mdFence(b, it.JSON, "json")
		}
	case it.Kind == tapelog.KindEvent:
		label := it.Name
		if label == "thinking" || label == "reasoning" {
			label = "💭 " + label
		}
		switch {
		case it.Text != "":
			mdDetails(b, label, "", it.Text, "")
		case it.Summary != "":
			b.WriteString("*" + mdLine(it.Name) + ": " + mdLine(it.Summary) + "*\n")
		default:
			mdDetails(b, label, wording.OneLine(it.JSON, 80), it.JSON, "json")
		}
	default:
		who := it.Kind
		if it.Role != "" {
			who = it.Role
		}
		b.WriteString("**" + mdLine(who) + "** · " + when(it.Date) + "\n")
		if it.Text != "" {
			blank(b)
			b.WriteString(mdText(it.Text) + "\n")
		} else if it.JSON != "" {
			mdFence(b, it.JSON, "json")
		}
	}
	if it.Folded > 0 {
		blank(b)
		b.WriteString("*" + num(it.Folded) + " more bytes of this entry are not shown: the whole is `" + mdLine(it.Source) + "`*\n")
	}
}

func writeMarkdownCall(b *mdWriter, c *callView) {
	summary := "🔧 " + c.Name + " · " + c.Status
	if c.Took != "" {
		summary += " · " + c.Took
	}
	blank(b)
	b.WriteString("<details><summary>" + html.EscapeString(summary) + ": <code>" + html.EscapeString(wording.OneLine(c.Args.Text, 100)) + "</code></summary>\n")
	if c.Note != "" {
		blank(b)
		b.WriteString(mdText(c.Note) + "\n")
	} else {
		mdOutput(b, "arguments", c.Args)
		switch {
		case !c.Answered:
			blank(b)
			b.WriteString("*no result yet*\n")
		case c.Status == "failed":
			mdOutput(b, "failed with", c.Output)
		default:
			mdOutput(b, "returned", c.Output)
		}
	}
	blank(b)
	b.WriteString("</details>\n")
}

// blank ends what b holds with an empty line, where a Markdown block
// starts.
func blank(b *mdWriter) {
	switch {
	case b.tail == [2]byte{'\n', '\n'}:
	case b.tail[1] == '\n':
		b.WriteString("\n")
	default:
		b.WriteString("\n\n")
	}
}

// mdOutput is a labelled output in a fence, with what was folded of it.
func mdOutput(b *mdWriter, label string, o output) {
	blank(b)
	b.WriteString(label + ":\n")
	mdFence(b, o.Text, "")
	if o.Folded > 0 {
		blank(b)
		b.WriteString("*" + num(o.Folded) + " more bytes are not shown: the whole is `" + mdLine(o.From) + "`*\n")
	}
}

// mdDetails is a folded block: its summary, then its text in a fence (or
// quoted, when lang is "" and the text is prose).
func mdDetails(b *mdWriter, summary, hint, text, lang string) {
	s := html.EscapeString(summary)
	if hint != "" {
		s += ": <code>" + html.EscapeString(hint) + "</code>"
	}
	blank(b)
	b.WriteString("<details><summary>" + s + "</summary>\n")
	if lang == "" {
		blank(b)
		b.WriteString(mdQuote(text) + "\n")
	} else {
		mdFence(b, text, lang)
	}
	blank(b)
	b.WriteString("</details>\n")
}

// mdFence writes text in a code fence longer than any run of backticks
// in it, so that nothing inside can close it.
func mdFence(b *mdWriter, text, lang string) {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	blank(b)
	b.WriteString(fence + lang + "\n")
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence + "\n")
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// mdText is a message's text as Markdown: written as the agent wrote it
// (Markdown, usually), but with what would start an HTML tag outside its
// code fences escaped, so that a transcript cannot open a <details> or a
// <script> of its own in the file.
func mdText(text string) string {
	lines := strings.Split(text, "\n")
	var fence string // the open fence's run of ` or ~, "" outside one
	for i, l := range lines {
		if fence != "" {
			if closesFence(l, fence) {
				fence = ""
			}
			continue
		}
		if f := opensFence(l); f != "" {
			fence = f
			continue
		}
		lines[i] = escapeTags(l)
	}
	out := strings.Join(lines, "\n")
	if fence != "" {
		out += "\n" + fence // a fence the text left open is closed
	}
	return out
}

// opensFence is the run of backticks or tildes that opens a code fence on
// line, as CommonMark reads one: at most three spaces in, three or more of
// one of them, and no backtick after a backtick fence; "" for none.
func opensFence(line string) string {
	t, ok := fenceIndent(line)
	if !ok || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return ""
	}
	return t[:n]
}

// closesFence reports whether line closes a fence opened by fence: at
// most three spaces in, as many of its character or more, then blanks.
func closesFence(line, fence string) bool {
	t, ok := fenceIndent(line)
	if !ok {
		return false
	}
	n := len(t) - len(strings.TrimLeft(t, fence[:1]))
	return n >= len(fence) && strings.TrimSpace(t[n:]) == ""
}

// fenceIndent is line after at most three spaces; false for more.
func fenceIndent(line string) (string, bool) {
	t := strings.TrimLeft(line, " ")
	return t, len(line)-len(t) <= 3
}

// escapeTags escapes < where it would start a tag, a comment or a
// declaration.
func escapeTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && i+1 < len(s) && (isLetter(s[i+1]) || strings.IndexByte("/!?", s[i+1]) >= 0) {
			b.WriteString("&lt;")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// mdQuote is prose in a block quote, its tags escaped.
func mdQuote(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "> " + escapeTags(l)
	}
	return strings.Join(lines, "\n")
}

// mdLine is a name or a label on one line: newlines folded, tags escaped.
func mdLine(s string) string {
	return escapeTags(strings.Join(strings.Fields(s), " "))
}

// printCSS is what an export adds to the page's style sheet: on paper,
// folded blocks print open.
const printCSS = `@media print {
  details::details-content { content-visibility: visible; display: block; }
  details > summary { list-style: none; }
  header.top, .pager { display: none; }
}`

// ExportHTML writes entries of a tape as one HTML page that needs
// nothing else: the page tape serve shows, with its style sheet inline,
// no script (calls and thinking fold with <details>), links within the
// page, and a content security policy that lets it load nothing.
func ExportHTML(w io.Writer, head ExportHead, entries []tapelog.Entry) error {
	t, err := template.New("export.html").Funcs(funcs).ParseFS(templateFiles, "templates/chat.html", "templates/export.html")
	if err != nil {
		return fmt.Errorf("parse the export page: %w", err)
	}
	css, err := staticFiles.ReadFile("static/style.css")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16) // the template writes a piece at a time
	err = t.Execute(bw, struct {
		Head           ExportHead
		Heading, Facts string
		CSS, PrintCSS  template.CSS
		Items          []*item
	}{head, head.heading(), head.facts(), template.CSS(css), template.CSS(printCSS), exportItems(head.Tape, entries)})
	if err != nil {
		return err
	}
	return bw.Flush()
}
