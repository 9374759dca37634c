package importer

import "fmt"

// BadLine is a transcript line that could not be imported; the lines
// around it were.
type BadLine struct {
	File   string
	Line   int // 1-based
	Reason string
}

func (e *BadLine) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

// A Warning is a transcript line that was imported with a value of it
// not read as written (a timestamp that is not a date); the Reason says
// what was done instead.
type Warning struct {
	File   string
	Line   int // 1-based
	Reason string
}

func (w *Warning) Error() string { return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Reason) }
