package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/read/records"
)

// jsonLines writes values as JSON, one per line, with non-ASCII text and
// HTML characters kept as they are.
type jsonLines struct {
	w   io.Writer
	enc *json.Encoder
	buf []byte // writeRecord's line, kept for the next
}

func newJSONLines(w io.Writer) *jsonLines {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonLines{w: w, enc: enc}
}

func (j *jsonLines) write(v any) error {
	if err := j.enc.Encode(v); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// writeRecord writes an entry's record as write would, several times
// faster (records.Entry.AppendJSON): the log and search commands print
// little else.
func (j *jsonLines) writeRecord(r records.Entry) error {
	return j.writeWith(r.AppendJSON)
}

// writeWith writes the line appendLine appends to an empty slice, which
// reuses the one of the line before.
func (j *jsonLines) writeWith(appendLine func([]byte) []byte) error {
	j.buf = appendLine(j.buf[:0])
	if _, err := j.w.Write(j.buf); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// errUnreadable ends a read command whose output misses files that could
// not be read (exit status 3), after it printed all it could.
var errUnreadable = errors.New("some tape files could not be read; see the warnings above")

// warnLine prints a line that could not be read, on stderr. It returns
// errUnreadable for a whole file that could not be read, an I/O problem
// rather than a bad line, and any error that is not a *LineError.
func warnLine(w io.Writer, err error) error {
	var le *tapelog.LineError
	if !errors.As(err, &le) {
		return err
	}
	fmt.Fprintf(w, "tape: warning: %s; skipped\n", wording.Printable(le.Error()))
	if le.Line == 0 || le.Err != nil {
		return errUnreadable
	}
	return nil
}

// summaryWidth is how many runes of an entry's text a line of human output
// shows.
const summaryWidth = 100

// humanEntry renders an entry as one line for a person: time, kind, and a
// one-line summary of the payload.
func humanEntry(e tapelog.Entry, p palette) string {
	if e.Kind == tapelog.KindAnchor {
		return p.paint(sgrAnchor, humanAnchorLine(e))
	}
	return fmt.Sprintf("  %s  %s  %s", p.paint(sgrDim, fmt.Sprintf("%-8s", clock(e))), p.kind(e.Kind, 11), oneLine(read.Summary(e), summaryWidth))
}

func humanAnchorLine(e tapelog.Entry) string {
	var p struct {
		Name  string          `json:"name"`
		State json.RawMessage `json:"state"`
	}
	_ = json.Unmarshal(e.Payload, &p)
	line := fmt.Sprintf("── %03d %s", e.Pos.AnchorSeq, oneLine(p.Name, summaryWidth))
	if e.Date != "" {
		line += "  " + shortDate(e.Date)
	}
	if s := read.CompactJSON(p.State); s != "" && s != "{}" && s != "null" {
		line += "  " + oneLine(s, summaryWidth)
	}
	return line
}

// clock is the time of day of an entry, or "" when it has no date.
func clock(e tapelog.Entry) string {
	if e.Pos.Time.IsZero() || e.Date == "" {
		return ""
	}
	t, err := tapelog.ParseTime(e.Date)
	if err != nil {
		return ""
	}
	return t.Format("15:04:05")
}

func shortDate(date string) string {
	t, err := tapelog.ParseTime(date)
	if err != nil {
		return date
	}
	return t.Format("2006-01-02 15:04:05")
}

// oneLine is s as wording.OneLine folds and cuts it to width runes,
// made printable first: the escapes count in the width.
func oneLine(s string, width int) string { return wording.OneLine(flat(s), width) }
