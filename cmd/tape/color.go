package main

import (
	"os"
	"strings"
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

// kind colors an entry kind, padded to width first so columns stay
// aligned.
func (p palette) kind(kind string, width int) string {
	padded := kind
	if n := width - len(kind); n > 0 {
		padded += strings.Repeat(" ", n)
	}
	return p.paint(kindColors[kind], padded)
}

// highlight turns a snippet's **marks** into bold red, or leaves them as
// they are when color is off.
func (p palette) highlight(s string) string {
	if !p.on {
		return s
	}
	var b strings.Builder
	on := false
	for {
		i := strings.Index(s, "**")
		if i < 0 {
			b.WriteString(s)
			if on {
				b.WriteString(sgrReset)
			}
			return b.String()
		}
		b.WriteString(s[:i])
		if on {
			b.WriteString(sgrReset)
		} else {
			b.WriteString(sgrMatch)
		}
		on = !on
		s = s[i+2:]
	}
}
