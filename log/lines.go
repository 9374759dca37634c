package log

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// DefaultMaxLineBytes is the longest line a reader parses. A longer line is
// reported as a bad line and skipped, without holding it in memory.
const DefaultMaxLineBytes = 64 << 20

// lineReader splits a tape file into lines, tracking line numbers and byte
// offsets. A last line without a newline is in progress: it is not returned.
type lineReader struct {
	r      *bufio.Reader
	max    int
	lineNo int   // of the line last returned
	offset int64 // where the next line starts
	buf    []byte
	torn   int64 // the length of the tail next left unread at io.EOF
}

func newLineReader(r io.Reader, max int) *lineReader {
	return new(lineReader).reset(r, max)
}

// reset makes lr read r from its start, with the buffers it has.
func (lr *lineReader) reset(r io.Reader, max int) *lineReader {
	if lr.r == nil {
		lr.r = bufio.NewReaderSize(r, 64<<10)
	} else {
		lr.r.Reset(r)
	}
	if cap(lr.buf) > keptLineBytes {
		lr.buf = nil // a long line's room is not kept for the next file
	}
	lr.max, lr.lineNo, lr.offset, lr.buf = max, 0, 0, lr.buf[:0]
	return lr
}

// keptLineBytes is the most room for a line a reset reader keeps.
const keptLineBytes = 1 << 20

// rawLine is one complete line, without its newline.
type rawLine struct {
	data    []byte // valid until the next call to next
	no      int
	offset  int64
	tooLong int64 // the line's length when it is over max (data is nil then)
}

// next returns the next complete line, or io.EOF at the end of the complete
// lines (a torn tail is left unread). Blank lines are returned too; the
// caller skips them.
func (lr *lineReader) next() (rawLine, error) {
	lr.buf = lr.buf[:0]
	var n int64
	over := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		n += int64(len(chunk))
		if !over {
			if need := len(lr.buf) + len(chunk); need > lr.max+1 {
				over, lr.buf = true, lr.buf[:0]
			} else {
				if need > cap(lr.buf) {
					// Twice the room: append grows a large slice by a
					// quarter, which copied a line of megabytes (a
					// whole JSON document, importer/cline) many times.
					lr.buf = append(make([]byte, 0, min(2*need, lr.max+1)), lr.buf...)
				}
				lr.buf = append(lr.buf, chunk...)
			}
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			lr.torn = n
			if over {
				lr.buf = lr.buf[:0]
			}
			return rawLine{}, io.EOF // a torn tail, or the end
		}
		return rawLine{}, err
	}
	lr.lineNo++
	line := rawLine{no: lr.lineNo, offset: lr.offset}
	lr.offset += n
	if over {
		line.tooLong = n - 1
		return line, nil
	}
	line.data = bytes.TrimSuffix(lr.buf[:len(lr.buf)-1], []byte{'\r'})
	return line, nil
}

// LineReader splits a JSONL file into its complete lines, for readers of
// other formats (an import's transcripts): the line numbers and offsets
// that errors name, the cap on a line's length, and the rule that a last
// line without a newline is still being written and is not returned.
type LineReader struct{ lr *lineReader }

// RawLine is one complete line, without its newline (and a '\r' before
// it). Data is valid until the next call to Next, and nil when the line is
// longer than the cap: TooLong is then its length.
type RawLine struct {
	Data    []byte
	No      int   // 1-based
	Offset  int64 // of the line's start
	TooLong int64
}

// Blank reports whether the line holds nothing but white space: readers
// skip it, as tape's own readers do.
func (l RawLine) Blank() bool { return l.TooLong == 0 && isBlank(l.Data) }

// NewLineReader reads r, whose first byte is at offset in its file and
// whose first line is line firstLine+1, with lines capped at max bytes.
func NewLineReader(r io.Reader, max int, offset int64, firstLine int) *LineReader {
	lr := newLineReader(r, max)
	lr.offset, lr.lineNo = offset, firstLine
	return &LineReader{lr: lr}
}

// Next returns the next complete line, or io.EOF after the last one: a
// torn tail is left for a later read.
func (r *LineReader) Next() (RawLine, error) {
	l, err := r.lr.next()
	return RawLine{Data: l.data, No: l.no, Offset: l.offset, TooLong: l.tooLong}, err
}

// Offset is where the next line starts: after the last complete line.
func (r *LineReader) Offset() int64 { return r.lr.offset }

// Tail is what follows the last complete line, once Next has returned
// io.EOF: a line still being written, which readers leave for later, or
// the last line of a file that ends without a newline (a JSON document
// an agent writes over whole: the importer's source.LastLineReader). n
// is its length; data is nil when n is over the cap. data is valid until
// the next call to Next.
func (r *LineReader) Tail() (data []byte, n int64) {
	if r.lr.torn == 0 || int64(len(r.lr.buf)) != r.lr.torn {
		return nil, r.lr.torn
	}
	return r.lr.buf, r.lr.torn
}
