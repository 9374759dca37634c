package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/sys/unix"
	"golang.org/x/text/width"

	"github.com/tape-dev/tape/internal/wording"
)

// Tables for a person: tape tapes, calls, usage, anchors and the lines of
// tape search. A column is as wide as its widest cell, measured in the
// columns a terminal gives it (a Chinese character takes two). On a
// terminal, the columns that may give way (titles, arguments, folders)
// are cut until the table fits, those that give most first; names a
// person pastes into --tape or a script never are. Written to a file or a
// pipe, nothing is cut, as ls and git print (docs/decisions/0059).

// span is text painted with one SGR sequence ("" for none).
type span struct{ text, sgr string }

// cell is what a table shows in one place: spans of text on one line.
type cell []span

// text is a cell of s folded onto one line and made printable: never cut
// here, only by the table, to fit.
func text(s string) cell { return cell{{text: flat(s)}} }

// counted is a count with its noun, for a column aligned to the right:
// "1 run " is as wide as "2 runs", so that its number stands under the
// others'.
func counted(n int, one, many string) cell {
	s := wording.Plural(n, one, many)
	if n == 1 {
		s += strings.Repeat(" ", max(0, len(many)-len(one)))
	}
	return cell{{text: s}}
}

// painted is text painted with sgr when color is on.
func painted(sgr, s string) cell { return cell{{text: flat(s), sgr: sgr}} }

func (c cell) width() int {
	n := 0
	for _, s := range c {
		n += displayWidth(s.text)
	}
	return n
}

// column is how a table lays out one of its columns.
type column struct {
	title string // its header
	right bool   // aligned to the right, as numbers are
	// give is how readily the column is cut to fit a terminal: 0 never,
	// else the higher first, down to min.
	give int
	min  int
	// drop is how readily the column is left out when the table does
	// not fit a terminal even with every column cut: 0 never, else the
	// higher first.
	drop  int
	head  bool // cut at its start, keeping the end: a path's last folders say most
	tight bool // one space before it instead of two: it reads with the column before
}

// table is rows of cells under a header.
type table struct {
	columns []column
	header  bool // print the titles as a first row
	cells   [][]cell
}

// add appends a row: one cell per column.
func (t *table) add(cells ...cell) { t.cells = append(t.cells, cells) }

// dropped is the width fit gives a column it leaves out.
const dropped = -1

// write prints the table to w, fitted to limit terminal columns (0: no
// limit), painted by p.
func (t *table) write(w io.Writer, limit int, p palette) error {
	rows := t.cells
	if len(rows) == 0 {
		return nil // no header over nothing: an empty answer prints nothing, as ls does
	}
	if t.header {
		head := make([]cell, len(t.columns))
		for i, c := range t.columns {
			head[i] = cell{{text: c.title}}
		}
		rows = append([][]cell{head}, rows...)
	}
	widths := t.fit(rows, limit)
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		for i, c := range r {
			col := t.columns[i]
			if widths[i] == dropped {
				continue
			}
			if b.Len() > 0 {
				b.WriteString(gap(col))
			}
			c = cut(c, widths[i], col.head)
			pad := strings.Repeat(" ", widths[i]-c.width())
			if col.right {
				b.WriteString(pad)
			}
			b.WriteString(p.cell(c))
			if !col.right {
				b.WriteString(pad)
			}
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	return nil
}

func gap(c column) string {
	if c.tight {
		return " "
	}
	return "  "
}

// fit returns the width of each column: that of its widest cell, less
// what the columns that give way lose for the table to fit in limit
// terminal columns, or dropped for those left out: columns are left out
// first, until the others fit when cut to their least, so that the cut
// ones keep what room there is. A table that does not fit even so is
// printed wider, and the terminal wraps it.
func (t *table) fit(rows [][]cell, limit int) []int {
	widths := make([]int, len(t.columns))
	for i := range t.columns {
		for _, r := range rows {
			widths[i] = max(widths[i], r[i].width())
		}
	}
	if limit <= 0 {
		return widths
	}
	least := make([]int, len(widths))
	for i, c := range t.columns {
		least[i] = widths[i]
		if c.give > 0 {
			least[i] = min(widths[i], c.min)
		}
	}
	for t.total(least) > limit {
		i := t.first(least, func(c column) int { return c.drop }, func(int) bool { return true })
		if i < 0 {
			break
		}
		least[i], widths[i] = dropped, dropped
	}
	t.give(widths, least, limit)
	for i := range least { // still too wide: below their least, to a few columns
		if least[i] != dropped && t.columns[i].give > 0 {
			least[i] = min(least[i], leastOfAll)
		}
	}
	t.give(widths, least, limit)
	return widths
}

// leastOfAll is the fewest terminal columns a column is cut to when the
// table fits no other way.
const leastOfAll = 8

// give cuts the columns that give way, most giving first, down to least,
// until the table fits limit.
func (t *table) give(widths, least []int, limit int) {
	for excess := t.total(widths) - limit; excess > 0; {
		i := t.first(widths, func(c column) int { return c.give }, func(i int) bool { return widths[i] > least[i] })
		if i < 0 {
			return
		}
		cut := min(excess, widths[i]-least[i])
		widths[i] -= cut
		excess -= cut
	}
}

// total is how wide the table is with these widths.
func (t *table) total(widths []int) int {
	n := 0
	for i, w := range widths {
		if w == dropped {
			continue
		}
		if n > 0 {
			n += len(gap(t.columns[i]))
		}
		n += w
	}
	return n
}

// first is the column shown with the highest rank, among those of rank
// above 0 that can (-1 if none).
func (t *table) first(widths []int, rank func(column) int, can func(int) bool) int {
	best := -1
	for i, c := range t.columns {
		if widths[i] != dropped && rank(c) > 0 && can(i) && (best < 0 || rank(c) > rank(t.columns[best])) {
			best = i
		}
	}
	return best
}

// cut shortens c to n terminal columns, marking the cut with "…" at its
// end, or at its start when head is set.
func cut(c cell, n int, head bool) cell {
	if c.width() <= n {
		return c
	}
	if n <= 0 {
		return nil
	}
	if head {
		return append(cell{{text: "…"}}, keepEnd(c, n-1)...)
	}
	return append(keepStart(c, n-1), span{text: "…"})
}

// keepStart is the first n terminal columns of c.
func keepStart(c cell, n int) cell {
	var out cell
	for _, s := range c {
		var b strings.Builder
		for _, r := range s.text {
			w := runeWidth(r)
			if w > n {
				n = 0
				break
			}
			n -= w
			b.WriteRune(r)
		}
		if b.Len() > 0 {
			out = append(out, span{text: b.String(), sgr: s.sgr})
		}
		if n == 0 {
			break
		}
	}
	return out
}

// keepEnd is the last n terminal columns of c.
func keepEnd(c cell, n int) cell {
	var out cell
	for i := len(c) - 1; i >= 0 && n > 0; i-- {
		runes := []rune(c[i].text)
		j := len(runes)
		for j > 0 && runeWidth(runes[j-1]) <= n {
			n -= runeWidth(runes[j-1])
			j--
		}
		if j < len(runes) {
			out = append(cell{{text: string(runes[j:]), sgr: c[i].sgr}}, out...)
		}
		if j > 0 {
			break
		}
	}
	return out
}

// displayWidth is how many terminal columns s takes.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// runeWidth is how many terminal columns r takes, as Unicode's East Asian
// Width says (UAX #11): two for wide and fullwidth characters (Chinese,
// Japanese and Korean characters and punctuation, most emoji), none for
// the marks that combine with the rune before and for format characters
// (a zero-width joiner, a variation selector), one for the rest, the
// ambiguous ones among them, as terminals outside East Asia show them.
func runeWidth(r rune) int {
	if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) {
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// terminalColumns is how many columns the terminal w writes to has, or 0
// when w is no terminal: what is written to a file or a pipe is never cut
// to fit. $COLUMNS, when set, overrides what the terminal says, as it does
// for ls.
func terminalColumns(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
		return int(ws.Col)
	}
	return 80
}

// flat folds s onto one line (every run of white space one space) and
// makes it printable.
func flat(s string) string { return wording.Printable(strings.Join(strings.Fields(s), " ")) }
