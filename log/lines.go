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
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

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
			if len(lr.buf)+len(chunk) > lr.max+1 {
				over, lr.buf = true, lr.buf[:0]
			} else {
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
