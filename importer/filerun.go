package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// prepare looks at a transcript before it is read: one with nothing new
// is done (nil job), one that can be read gets a job that says where its
// reading starts.
func (r *run) prepare(i int, path string) (*fileRun, FileStats, error) {
	st := FileStats{File: path}
	// A stat first: most transcripts of an import again have nothing new,
	// and opening each cost a third of such an import.
	fi, err := r.stat(i, path)
	if err != nil {
		r.im.warn(fmt.Errorf("stat %s: %w; skipped", path, unwrapPath(err)))
		return nil, st, nil
	}
	if !fi.regular {
		r.im.warn(fmt.Errorf("%s is not a file; skipped", path))
		return nil, st, nil
	}
	id := fi.id
	settled := r.im.now().Sub(fi.modTime()) >= r.im.settle()
	old := r.cp.Files[path]
	if old != nil && old.unchanged(id) && (old.Held == 0 || !settled) && r.tapesThere(old) {
		st.Unchanged, st.Held = true, old.Held
		st.Tapes = sortedTapes(old.Tapes)
		st.Tape = firstTape(old.Tapes)
		return nil, st, nil
	}
	f, err := os.Open(path)
	if err != nil {
		r.im.warn(fmt.Errorf("open %s: %w; skipped", path, unwrapPath(err)))
		return nil, st, nil
	}
	fr, err := r.open(f, path, old, id)
	if err != nil {
		f.Close()
		return nil, st, err
	}
	fr.id, fr.settled, fr.st = id, settled, st
	return fr, st, nil
}

// readError is a failure to read the transcript itself, as opposed to a
// failure to write the workspace.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }

// fileRun is the import of one transcript: where its reading starts and
// its converter (prepare), what the converter made of it (read), and the
// writer that appends that to the tapes (write).
type fileRun struct {
	r       *run
	path    string
	f       *os.File // opened by prepare, read and closed by read: the file whose tail prepare checked
	id      fileIdentity
	settled bool // the file has been quiet for the settle time
	conv    source.Converter
	start   int64
	line    int
	st      FileStats
	// What read found.
	outs   []source.Output
	bad    []*BadLine
	warns  []*Warning // lines imported with a value not read as written
	err    error      // a readError, or the context's
	heldNo int        // lines held back
	// flushAt are the lines after which an earlier import flushed what
	// the converter held (flushes.go), still to come; flushed is the
	// line after which this one did, or 0.
	flushAt []int
	flushed int
	// Where the next import of the transcript starts: after the last
	// line read and not held, the lines before it, and the sum of its
	// last bytes there; and the converter's state.
	cpOffset int64
	cpLine   int
	tail     uint64
	state    []byte
	w        *writer
}

// open decides where the import of a transcript starts: at its checkpoint,
// when the file only grew since and every tape it wrote is as the
// importer left it; otherwise at the start, skipping what the tapes hold.
func (r *run) open(f *os.File, path string, old *checkpoint, id fileIdentity) (*fileRun, error) {
	fr := &fileRun{r: r, path: path, f: f}
	// A file that only grew since its checkpoint (the same inode, the
	// bytes before the offset unchanged) is resumed when its tapes are
	// as the import left them; one written over, replaced or cut short
	// loses the flushes written down of it.
	grown := false
	if old != nil && old.Offset <= id.size && old.Ino == id.ino {
		sum, err := tailSum(f, old.Offset)
		grown = err == nil && sum == old.Tail
	}
	if old != nil && !grown {
		if err := r.flushes.forget(path); err != nil {
			return nil, err
		}
	}
	resume := false
	if grown {
		ok, err := r.trusts(old)
		if err != nil {
			return nil, err
		}
		resume = ok
	}
	var state []byte
	tapes := map[string]string{}
	if !resume && old != nil {
		for _, name := range old.Tapes {
			// Read again from the start for this transcript: another
			// transcript of the tape, met later in this run, must not
			// trust the mark this one's writes will leave.
			r.distrust[name] = true
		}
	}
	trusted := map[string]bool{}
	if resume {
		fr.start, fr.line, state = old.Offset, old.Line, old.State
		maps.Copy(tapes, old.Tapes)
		for _, name := range old.Tapes {
			trusted[name] = true
		}
	}
	conv, err := r.im.src.NewConverter(path, state)
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", path, err)
	}
	fr.conv = conv
	if fr.flushAt, err = r.flushes.after(path, id.ino, fr.line); err != nil {
		return nil, err
	}
	fr.w = &writer{r: r, path: path, tapes: tapes, trusted: trusted, pending: map[string][]tapelog.Entry{}, written: map[string]bool{}}
	return fr, nil
}

// read converts the transcript's complete lines from the start chosen.
// It touches nothing but fr, so that files are read on other cores while
// the one before is written.
func (fr *fileRun) read(ctx context.Context) {
	f := fr.f
	defer f.Close()
	if _, err := f.Seek(fr.start, io.SeekStart); err != nil {
		fr.err = readError{err}
		return
	}
	lr := tapelog.NewLineReader(f, tapelog.DefaultMaxLineBytes, fr.start, fr.line)
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fr.err = readError{err}
			return
		}
		if fr.st.Lines++; fr.st.Lines%1024 == 0 && ctx.Err() != nil {
			fr.err = ctx.Err()
			return
		}
		fr.convert(l)
		fr.cpLine = l.No
		fr.flushAsBefore(l.No)
	}
	fr.cpOffset = lr.Offset()
	if fr.cpLine == 0 {
		fr.cpLine = fr.line
	}
	if last, ok := fr.conv.(source.LastLineReader); ok {
		fr.readLast(lr, last)
	}
	if held, heldOffset, ok := fr.conv.Held(); ok {
		if fr.settled {
			fr.outs = append(fr.outs, fr.conv.Flush()...)
			if _, ok := fr.conv.(source.LastLineReader); !ok {
				fr.flushed = fr.cpLine
			}
		} else {
			fr.heldNo = fr.cpLine - held
			fr.cpOffset, fr.cpLine = heldOffset, held
			// The held lines are read again, and warned of, by the import
			// that writes them.
			fr.warns = slices.DeleteFunc(fr.warns, func(w *Warning) bool { return w.Line > held })
		}
	}
	var err error
	if fr.tail, err = tailSum(f, fr.cpOffset); err != nil {
		fr.err = readError{err}
		return
	}
	if fr.state, err = fr.conv.State(); err != nil {
		fr.err = fmt.Errorf("checkpoint %s: %w", fr.path, err)
	}
}

// flushAsBefore flushes the converter after the line an earlier import
// flushed after, as that import did, if it holds lines there.
func (fr *fileRun) flushAsBefore(line int) {
	for len(fr.flushAt) > 0 && fr.flushAt[0] <= line {
		if fr.flushAt[0] == line {
			if _, _, held := fr.conv.Held(); held {
				fr.outs = append(fr.outs, fr.conv.Flush()...)
			}
		}
		fr.flushAt = fr.flushAt[1:]
	}
}

// readLast gives a LastLineReader the transcript's last line when it has
// no newline after it: the bytes after the last complete line, up to the
// end of the file as the reader found it.
func (fr *fileRun) readLast(lr *tapelog.LineReader, conv source.LastLineReader) {
	data, n := lr.Tail()
	if n == 0 {
		return
	}
	l := tapelog.RawLine{No: fr.cpLine + 1, Offset: fr.cpOffset, Data: data}
	if data == nil {
		l.TooLong = n
	}
	fr.st.Lines++
	fr.convertWith(l, conv.LastLine)
	fr.cpLine, fr.cpOffset = l.No, fr.cpOffset+n
}

// convert converts one line.
func (fr *fileRun) convert(l tapelog.RawLine) { fr.convertWith(l, fr.conv.Line) }

// convertWith converts one line with line, the converter's Line or
// LastLine.
func (fr *fileRun) convertWith(l tapelog.RawLine, line func(tapelog.RawLine) ([]source.Output, error)) {
	if l.TooLong > 0 {
		fr.bad = append(fr.bad, &BadLine{File: fr.path, Line: l.No, Reason: fmt.Sprintf("line is %d bytes, over the read limit of %d", l.TooLong, tapelog.DefaultMaxLineBytes)})
		return
	}
	if l.Blank() {
		return
	}
	outs, err := line(l)
	var w source.LineWarning
	switch {
	case errors.As(err, &w):
		fr.warns = append(fr.warns, &Warning{File: fr.path, Line: l.No, Reason: string(w)})
	case err != nil:
		fr.bad = append(fr.bad, &BadLine{File: fr.path, Line: l.No, Reason: err.Error()})
	}
	fr.outs = append(fr.outs, outs...)
}

// write appends what read made to the tapes, and records the checkpoint.
func (r *run) write(ctx context.Context, fr *fileRun) (FileStats, error) {
	st := &fr.st
	fr.w.st = st
	for _, b := range fr.bad {
		st.BadLines++
		r.im.warn(b)
	}
	for _, w := range fr.warns {
		r.im.warn(w)
	}
	if fr.err != nil {
		var rerr readError
		if errors.As(fr.err, &rerr) {
			r.im.warn(fmt.Errorf("read %s: %w; the rest of it is skipped", fr.path, rerr.err))
			return *st, nil
		}
		return *st, fr.err
	}
	defer fr.w.close()
	if fr.flushed > 0 {
		// Written down before the entries the flush made are.
		if err := r.flushes.record(fr.path, fr.id.ino, fr.flushed); err != nil {
			return *st, err
		}
	}
	err := fr.w.add(ctx, fr.outs)
	if err == nil {
		err = fr.w.flush(ctx)
	}
	if err != nil {
		r.lastIDs = nil
		r.forget(fr.w.written)
		return *st, err
	}
	fr.w.handOn()
	return *st, r.commit(fr)
}
