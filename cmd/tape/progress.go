package main

import (
	"fmt"
	"io"
	"time"

	"github.com/tape-dev/tape/internal/wording"
	"github.com/tape-dev/tape/projector"
)

// progressBar draws one line of progress on stderr, redrawn in place, when
// stderr is a terminal; it draws nothing when stderr is a file or a pipe,
// so scripts and logs never see it. A bar with a total shows a percentage;
// one without counts. The zero value draws nothing.
type progressBar struct {
	w     io.Writer // nil: draw nothing
	label string
	total int64     // 0: count units instead of filling a bar
	unit  string    // what a counting bar counts
	after time.Time // draw nothing before: a short task shows no bar
	drawn time.Time
}

const (
	progressRedraw = 100 * time.Millisecond // how often the bar is redrawn at most
	progressDelay  = 500 * time.Millisecond // how long a task runs before it gets a bar
)

// newProgress returns a bar for total units (0: a counter of unit) on w, or
// one that draws nothing when w is not a terminal.
func newProgress(w io.Writer, label string, total int64, unit string) *progressBar {
	if !isTerminal(w) {
		return &progressBar{}
	}
	return &progressBar{w: w, label: label, total: total, unit: unit, after: time.Now().Add(progressDelay)}
}

// set redraws the bar for done units, at most every progressRedraw.
func (p *progressBar) set(done int64) {
	now := time.Now()
	if p.w == nil || now.Before(p.after) || now.Sub(p.drawn) < progressRedraw {
		return
	}
	p.drawn = now
	if p.total <= 0 {
		fmt.Fprintf(p.w, "\r\x1b[K%s: %d %s", wording.Printable(p.label), done, p.unit)
		return
	}
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
	fmt.Fprintf(p.w, "\r\x1b[K%s [%s] %3d%%", wording.Printable(p.label), string(bar), done*100/p.total)
}

// done erases the bar, so the next line of output starts clean.
func (p *progressBar) done() {
	if p.w != nil && !p.drawn.IsZero() {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// clear erases the bar for a line of other output; the next set draws it
// again below that line.
func (p *progressBar) clear() {
	p.done()
	p.drawn = time.Time{}
}

// Writer returns w, which shares the terminal with the bar, as a writer
// that erases the bar before each write: a warning then starts at the
// beginning of its own line instead of after the bar.
func (p *progressBar) Writer(w io.Writer) io.Writer {
	if p.w == nil {
		return w
	}
	return clearingWriter{bar: p, w: w}
}

type clearingWriter struct {
	bar *progressBar
	w   io.Writer
}

func (c clearingWriter) Write(b []byte) (int, error) {
	c.bar.clear()
	return c.w.Write(b)
}

// indexProgress counts an index pass's entries on a terminal: progress is
// the pass's progress callback (nil when there is no terminal to draw
// on), and done erases the bar when the pass is over.
func indexProgress(env *Env, label string) (progress func(projector.Stats), done func()) {
	bar := newProgress(env.Stderr, label, 0, "entries")
	if bar.w == nil {
		return nil, func() {}
	}
	return func(st projector.Stats) { bar.set(int64(st.Entries)) }, bar.done
}
