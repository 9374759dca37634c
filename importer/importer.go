package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	tapelog "github.com/tape-dev/tape/log"
)

// DefaultSettle is how long a transcript must have been quiet before the
// lines a converter holds back are imported: long enough that the model
// has finished writing a turn's calls, short enough that a follower shows
// a running tool's call within about a second.
const DefaultSettle = time.Second

// Importer imports the transcripts of one format into a workspace's tapes.
type Importer struct {
	ws     *tapelog.Workspace
	format *Format
	// Settle is how long a transcript must have been quiet before what a
	// converter holds back is imported (DefaultSettle when zero).
	Settle time.Duration
	// Now is the clock the settle rule reads (time.Now when nil).
	Now func() time.Time
	// Warn receives each line that could not be imported (a *BadLine),
	// each line imported with a value not read as written (a *Warning),
	// and each transcript or folder that could not be read; nil drops
	// them.
	Warn func(error)
	// Progress is told, after each transcript, how many of how many are
	// done; nil tells nobody.
	Progress func(done, total int)
	// DeferSyncs makes the import sync the file system once at its end
	// (and before each save of its checkpoints) instead of five times for
	// each tape it creates (log.Workspace.DeferSyncs): for a first import
	// of many sessions. Only one writer of the Workspace may ask for it.
	DeferSyncs bool
	// Full reads every transcript from its start, whatever its checkpoint
	// says, and skips the entries its tapes hold: it repairs a tape that
	// lost entries while its transcript did not change.
	Full bool
}

// New returns an importer of format into ws.
func New(ws *tapelog.Workspace, format *Format) *Importer {
	return &Importer{ws: ws, format: format}
}

// FileStats is what an import did with one transcript file. Its JSON
// field names are a contract (tape import --json).
type FileStats struct {
	File      string   `json:"file"`
	Tape      string   `json:"tape"`  // the tape of the file's first session; "" when it has none yet
	Tapes     []string `json:"tapes"` // every tape it wrote to or would have
	Lines     int      `json:"lines"` // lines read this time
	Imported  int      `json:"imported"`
	Anchors   int      `json:"anchors"`   // of the imported entries, anchors
	Skipped   int      `json:"skipped"`   // entries a tape held already
	BadLines  int      `json:"bad_lines"` // lines that could not be imported
	Held      int      `json:"held"`      // lines held back: the record they belong to is still being written
	Unchanged bool     `json:"unchanged"` // the file had nothing new
}

// Import imports the transcripts at paths: files, and folders searched for
// the format's transcripts. It holds the workspace's import lock
// throughout, so imports and followers take turns. A transcript that
// cannot be read is reported through Warn and skipped; a failure to write
// the workspace ends the import. What was imported before an error or a
// cancellation stays imported, and the next import goes on from there.
func (im *Importer) Import(ctx context.Context, paths []string) ([]FileStats, error) {
	files, err := im.find(paths)
	if err != nil {
		return nil, err
	}
	unlock, err := im.ws.LockImports(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	r, err := im.newRun()
	if err != nil {
		return nil, err
	}
	defer r.close()
	synced := func() error { return nil }
	if im.DeferSyncs {
		// One sync at the end, not five for each new tape; the
		// checkpoints are saved after a sync, so they never claim more
		// than a crash leaves.
		synced = im.ws.DeferSyncs()
	}
	all, err := r.pipeline(ctx, files)
	return all, joinErrors(err, synced(), r.save()) // in this order
}

// pipeline imports files in order. This goroutine prepares each file
// (where its reading starts) and writes what it made, in order, and alone
// touches the run's state and the tapes; reading and converting run on
// other goroutines, as many at once as there are cores, a few files ahead
// of the writing.
//
// BenchmarkImportClaude: converting is most of an import's CPU, and a file
// converted on the other core while this one writes the file before made
// a first import 1.2 times as fast on two cores.
func (r *run) pipeline(ctx context.Context, files []string) ([]FileStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := max(1, runtime.GOMAXPROCS(0))
	type slot struct {
		fr   *fileRun
		st   FileStats
		done chan struct{}
	}
	var queue []*slot
	var all []FileStats
	next := 0
	defer func() { // no reader outlives the import
		cancel()
		for _, s := range queue {
			<-s.done
		}
	}()
	for len(all) < len(files) {
		for len(queue) <= workers && next < len(files) {
			s := &slot{done: make(chan struct{})}
			var err error
			if s.fr, s.st, err = r.prepare(files[next]); err != nil {
				close(s.done)
				return all, err
			}
			next++
			queue = append(queue, s)
			if s.fr == nil {
				close(s.done)
				continue
			}
			go func() {
				defer close(s.done)
				s.fr.read(ctx)
			}()
		}
		s := queue[0]
		queue = queue[1:]
		<-s.done
		st := s.st
		if s.fr != nil {
			var err error
			if st, err = r.write(ctx, s.fr); err != nil {
				return all, err
			}
		}
		if err := ctx.Err(); err != nil {
			return all, err
		}
		all = append(all, st)
		if r.im.Progress != nil {
			r.im.Progress(len(all), len(files))
		}
		if err := r.saveEvery(5 * time.Second); err != nil {
			return all, err
		}
	}
	return all, nil
}

// find lists the transcripts at paths, each once, in the order given and
// sorted within a folder.
func (im *Importer) find(paths []string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", p, unwrapPath(err))
		}
		if !fi.IsDir() {
			add(abs)
			continue
		}
		found, err := im.walk(abs)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			add(f)
		}
	}
	return files, nil
}

// walk lists the format's transcripts under dir, sorted. Folders that
// cannot be read are reported and skipped.
func (im *Importer) walk(dir string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			im.warn(fmt.Errorf("%s: %w; skipped", path, unwrapPath(err)))
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && im.format.IsTranscript(path) {
			found = append(found, path)
		}
		return nil
	})
	slices.Sort(found)
	return found, err
}

func (im *Importer) warn(err error) {
	if im.Warn != nil {
		im.Warn(err)
	}
}

func (im *Importer) now() time.Time {
	if im.Now != nil {
		return im.Now()
	}
	return time.Now()
}

func (im *Importer) settle() time.Duration {
	if im.Settle > 0 {
		return im.Settle
	}
	return DefaultSettle
}

// unwrapPath drops a *fs.PathError's path, which the caller's message
// names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// run is one Import: the checkpoints it reads and updates.
type run struct {
	im       *Importer
	cp       *checkpoints
	marks    map[string]string // tape -> its mark now, as far as this run knows
	distrust map[string]bool   // tapes a transcript of this run is read again from the start for
	tapesDir *os.File          // .tape/tapes, held open for stats (dirIdentity)
	savedAt  time.Time
	dirty    bool
}

func (im *Importer) newRun() (*run, error) {
	cp, err := loadCheckpoints(im.ws, im.format)
	if err != nil {
		return nil, err
	}
	if im.Full {
		clear(cp.Files)
	}
	return &run{im: im, cp: cp, marks: map[string]string{}, distrust: map[string]bool{}, savedAt: time.Now()}, nil
}

// mark is the tape's mark now.
func (r *run) mark(name string) (string, error) {
	if m, ok := r.marks[name]; ok {
		return m, nil
	}
	t, err := r.im.ws.Tape(name)
	if err != nil {
		return "", err
	}
	m, err := tapeMark(t)
	if err != nil {
		return "", fmt.Errorf("look at tape %s: %w", name, err)
	}
	r.marks[name] = m
	return m, nil
}

// trusts reports whether a checkpoint still describes its tapes: each is
// as the importer last left it.
func (r *run) trusts(cp *checkpoint) (bool, error) {
	for _, name := range cp.Tapes {
		recorded, ok := r.cp.Tapes[name]
		if !ok || r.distrust[name] {
			return false, nil
		}
		now, err := r.mark(name)
		if err != nil || now != recorded.Mark {
			return false, err
		}
	}
	return true, nil
}

func (r *run) close() {
	if r.tapesDir != nil {
		r.tapesDir.Close()
	}
}

func (r *run) save() error {
	if !r.dirty {
		return nil
	}
	r.dirty, r.savedAt = false, time.Now()
	if err := r.im.ws.SyncDeferred(); err != nil {
		return err
	}
	return r.cp.save(r.im.ws, r.im.format)
}

// saveEvery saves the checkpoints when the last save is older than d, so
// that a long first import killed midway does not begin again.
func (r *run) saveEvery(d time.Duration) error {
	if !r.dirty || time.Since(r.savedAt) < d {
		return nil
	}
	return r.save()
}

// prepare looks at a transcript before it is read: one with nothing new
// is done (nil job), one that can be read gets a job that says where its
// reading starts.
func (r *run) prepare(path string) (*fileRun, FileStats, error) {
	st := FileStats{File: path}
	// A stat first: most transcripts of an import again have nothing new,
	// and opening each cost a third of such an import.
	fi, err := os.Stat(path)
	if err != nil {
		r.im.warn(fmt.Errorf("stat %s: %w; skipped", path, unwrapPath(err)))
		return nil, st, nil
	}
	if !fi.Mode().IsRegular() {
		r.im.warn(fmt.Errorf("%s is not a file; skipped", path))
		return nil, st, nil
	}
	id := identityOf(fi)
	settled := r.im.now().Sub(fi.ModTime()) >= r.im.settle()
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
	conv    converter
	start   int64
	line    int
	st      FileStats
	// What read found.
	outs   []Output
	bad    []*BadLine
	warns  []*Warning // lines imported with a value not read as written
	err    error      // a readError, or the context's
	heldNo int        // lines held back
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
	resume := false
	if old != nil && old.Offset <= id.size && old.Ino == id.ino {
		ok, err := r.trusts(old)
		if err != nil {
			return nil, err
		}
		if ok {
			sum, err := tailSum(f, old.Offset)
			resume = err == nil && sum == old.Tail
		}
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
	conv, err := r.im.format.newConverter(path, state)
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", path, err)
	}
	fr.conv = conv
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
	}
	fr.cpOffset = lr.Offset()
	if fr.cpLine == 0 {
		fr.cpLine = fr.line
	}
	if held, heldOffset, ok := fr.conv.held(); ok {
		if fr.settled {
			fr.outs = append(fr.outs, fr.conv.flush()...)
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
	if fr.state, err = fr.conv.state(); err != nil {
		fr.err = fmt.Errorf("checkpoint %s: %w", fr.path, err)
	}
}

// convert converts one line.
func (fr *fileRun) convert(l tapelog.RawLine) {
	if l.TooLong > 0 {
		fr.bad = append(fr.bad, &BadLine{File: fr.path, Line: l.No, Reason: fmt.Sprintf("line is %d bytes, over the read limit of %d", l.TooLong, tapelog.DefaultMaxLineBytes)})
		return
	}
	if l.Blank() {
		return
	}
	outs, err := fr.conv.line(l)
	var w lineWarning
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
	err := fr.w.add(ctx, fr.outs)
	if err == nil {
		err = fr.w.flush(ctx)
	}
	if err != nil {
		r.forget(fr.w.written)
		return *st, err
	}
	return *st, r.commit(fr)
}

// commit records the transcript's checkpoint, and how it left the tapes
// it wrote.
func (r *run) commit(fr *fileRun) error {
	r.cp.Files[fr.path] = &checkpoint{Ino: fr.id.ino, Size: fr.id.size, MtimeNS: fr.id.mtimeNS, Offset: fr.cpOffset, Line: fr.cpLine,
		Tail: fr.tail, Held: fr.heldNo, Tapes: fr.w.tapes, State: fr.state}
	for _, name := range fr.w.tapes {
		if _, ok := r.cp.Tapes[name]; ok && !fr.w.written[name] {
			continue
		}
		delete(r.marks, name)
		m, err := r.mark(name)
		if err != nil {
			return err
		}
		r.cp.Tapes[name] = tapeSeen{Mark: m, Dir: r.dirIdentity(name)}
	}
	r.dirty = true
	fr.st.Held = fr.heldNo
	fr.st.Tapes = sortedTapes(fr.w.tapes)
	fr.st.Tape = firstTape(fr.w.tapes)
	return nil
}

// tapesThere reports whether every tape a transcript with nothing new
// wrote is still there as the import left it, as far as one stat of its
// anchors folder tells: deleted, replaced (a reset), or given a folder
// since, it makes the import read the transcript again, and trust its
// checkpoint only if the tape's mark says so. (A file of the tape
// truncated by hand is not seen without a stat of each of its files,
// which an import of thousands of unchanged transcripts cannot afford:
// --full reads every transcript again.)
func (r *run) tapesThere(cp *checkpoint) bool {
	for _, name := range cp.Tapes {
		if r.dirIdentity(name) != r.cp.Tapes[name].Dir {
			return false
		}
	}
	return true
}

// dirIdentity is a tape's anchors folder's inode and mtime, "" when it
// cannot be stat'ed. It reads metadata only, relative to the tapes folder
// held open: an import with nothing new makes one such stat per
// transcript, and the absolute path's nine names took a third of it.
func (r *run) dirIdentity(tape string) string {
	if r.tapesDir == nil {
		d, err := os.Open(r.im.ws.Abs("tapes"))
		if err != nil {
			return ""
		}
		r.tapesDir = d
	}
	var st unix.Stat_t
	if err := unix.Fstatat(int(r.tapesDir.Fd()), tape+"/anchors", &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return ""
	}
	return strconv.FormatUint(st.Ino, 10) + ":" + strconv.FormatInt(st.Mtim.Nano(), 10)
}

// forget drops the marks of tapes an import wrote to and could not finish:
// no checkpoint may be trusted for them until an import reads them again.
func (r *run) forget(written map[string]bool) {
	for name := range written {
		delete(r.cp.Tapes, name)
		delete(r.marks, name)
		r.dirty = true
	}
}

// sortedTapes are the tapes of a checkpoint's sessions, each once.
func sortedTapes(m map[string]string) []string {
	return slices.Compact(slices.Sorted(maps.Values(m)))
}

// firstTape is the tape of the file's session itself: the one whose key
// has no agent (it sorts before its subagents'), or the first.
func firstTape(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	if len(keys) == 0 {
		return ""
	}
	return m[keys[0]]
}

// sessionKey is a session's key in a checkpoint's Tapes.
func sessionKey(s Session) string {
	if s.Agent == "" {
		return s.Source + "/" + s.ID
	}
	return s.Source + "/" + s.ID + "/~agent/" + s.Agent
}

// sessionState is what an import reads of a tape's first anchor to tell
// whose session it holds.
type sessionState struct {
	SessionID string `json:"session_id"`
	AgentID   string `json:"agent_id"`
}

func (s Session) owns(a tapelog.Anchor) bool {
	var st sessionState
	if json.Unmarshal(a.State, &st) != nil {
		return false
	}
	return st.SessionID == s.ID && st.AgentID == s.Agent
}
