package tui

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tape-dev/tape/internal/wording"
)

// theme is how the screens color what they show. Every style that must be
// seen without color (the selected row, a match, a heading) has an
// attribute too, reverse or bold: with NO_COLOR, bubbletea keeps the
// attributes and drops the colors.
type theme struct {
	title, dim, accent, selected, mark, ok, failed, pending, bar lipgloss.Style
}

// newTheme is the theme for a dark background or a light one.
func newTheme(dark bool) theme {
	pick := lipgloss.LightDark(dark)
	c := func(light, darkColor string) color.Color {
		return pick(lipgloss.Color(light), lipgloss.Color(darkColor))
	}
	s := lipgloss.NewStyle
	return theme{
		title:    s().Bold(true),
		dim:      s().Faint(true),
		accent:   s().Foreground(c("#005f87", "#5fafff")).Bold(true),
		selected: s().Reverse(true),
		mark:     s().Foreground(c("#af0000", "#ff5f5f")).Bold(true),
		ok:       s().Foreground(c("#008700", "#87d787")),
		failed:   s().Foreground(c("#af0000", "#ff5f5f")).Bold(true),
		pending:  s().Foreground(c("#af8700", "#ffd75f")),
		bar:      s().Faint(true),
	}
}

// fit is s cut to w columns of the terminal (a CJK character takes two),
// with … where it was cut, and padded with spaces to w.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(s, w, "…")
	if pad := w - lipgloss.Width(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// oneLine is text on one line: its line breaks and tabs made spaces, runs
// of spaces one, printable (flat).
func oneLine(text string) string {
	return strings.Join(strings.Fields(flat(text)), " ")
}

// flat is text on one line, its line breaks and tabs spaces, made
// printable as the CLI prints a transcript's text (wording.Printable):
// what a terminal would act on (escape sequences, control characters,
// bidi overrides) shown as visible escapes. Everything a transcript holds
// is untrusted.
func flat(text string) string {
	return wording.Printable(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, text))
}

// wrap is text broken into lines of at most w columns, each line of it
// printable; tabs are four spaces.
func wrap(text string, w int) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = wording.Printable(strings.ReplaceAll(strings.TrimSuffix(line, "\r"), "\t", "    "))
		if line == "" {
			out = append(out, "")
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(line, max(w, 1), ""), "\n")...)
	}
	return out
}

// widthOf is how many columns s takes on a terminal.
func widthOf(s string) int { return lipgloss.Width(s) }
