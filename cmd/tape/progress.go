package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progressBar draws one line of progress on stderr, redrawn in place, when
// stderr is a terminal; it draws nothing when stderr is a file or a pipe,
// so scripts and logs never see it. The zero value draws nothing.
type progressBar struct {
	w     io.Writer // nil: draw nothing
	label string
	total int64
	drawn time.Time
}

// progressRedraw is how often the bar is redrawn at most.
const progressRedraw = 100 * time.Millisecond

// newProgress returns a bar for total units on w, or one that draws
// nothing when w is not a terminal.
func newProgress(w io.Writer, label string, total int64) *progressBar {
	if !isTerminal(w) || total <= 0 {
		return &progressBar{}
	}
	return &progressBar{w: w, label: label, total: total}
}

// isTerminal reports whether w is a character device, a terminal: a test
// of the file's mode is enough here, as no terminal control is needed
// beyond a carriage return and an erase-line.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// set redraws the bar for done units, at most every progressRedraw.
func (p *progressBar) set(done int64) {
	if p.w == nil || time.Since(p.drawn) < progressRedraw {
		return
	}
	p.drawn = time.Now()
	done = min(max(done, 0), p.total)
	const width = 30
	filled := int(done * width / p.total)
	bar := make([]rune, width)
	for i := range bar {
		bar[i] = '-'
		if i < filled {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s [%s] %3d%%", printable(p.label), string(bar), done*100/p.total)
}

// done erases the bar, so the next line of output starts clean.
func (p *progressBar) done() {
	if p.w != nil && !p.drawn.IsZero() {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
