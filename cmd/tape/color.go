package main

import (
	"os"
	"strings"

	"github.com/tape-dev/tape/internal/searchlang"
)

// Color on a terminal, as ripgrep and git do it: --color=auto (the
// default) colors only when stdout is a terminal, TERM is not "dumb" and
// NO_COLOR is unset or empty (https://no-color.org); always and never
// override all of that. JSON output is never colored.

// palette colors human output; its zero value colors nothing.
type palette struct{ on bool }

// newPalette decides whether to color output written to w.
func newPalette(mode string, w any) palette {
	switch mode {
	case "always":
		return palette{on: true}
	case "never":
		return palette{}
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return palette{}
	}
	return palette{on: isTerminal(w)}
}

const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrMatch  = "\x1b[1;31m"
	sgrAnchor = "\x1b[1;33m"
)

// kindColors are the colors of entry kinds in `tape log` and `tape search`.
var kindColors = map[string]string{
	"message":     "\x1b[32m",
	"tool_call":   "\x1b[36m",
	"tool_result": "\x1b[34m",
	"event":       "\x1b[35m",
	"error":       "\x1b[31m",
	"system":      sgrDim,
}

func (p palette) paint(sgr, s string) string {
	if !p.on || sgr == "" || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

// cell is c with each span painted.
func (p palette) cell(c cell) string {
	var b strings.Builder
	for _, s := range c {
		b.WriteString(p.paint(s.sgr, s.text))
	}
	return b.String()
}

// kind colors an entry kind, padded to width first so columns stay
// aligned.
func (p palette) kind(kind string, width int) string {
	padded := kind
	if n := width - len(kind); n > 0 {
		padded += strings.Repeat(" ", n)
	}
	return p.paint(kindColors[kind], padded)
}

// snippetCell is a search snippet with its matches painted when color is
// on, and shown unmarked when it is off, as grep --color=never shows them
// (searchlang.SnippetSpans reads the marks).
func snippetCell(s string) cell {
	var c cell
	for _, sp := range searchlang.SnippetSpans(s) {
		if sp.Match {
			c = append(c, span{text: sp.Text, sgr: sgrMatch})
		} else {
			c = append(c, span{text: sp.Text})
		}
	}
	return c
}
