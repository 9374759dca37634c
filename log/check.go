package log

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/fileutil"
	"github.com/tape-dev/tape/internal/wording"
)

// Checking a workspace's files, for `tape doctor`.
//
// Check only reads: it reports what readers skip or stumble on (bad lines,
// torn tails, folders they ignore, leftovers of crashed writers) and says
// what would fix each, but never changes a file.

// The checks a Problem can come from; their names are part of
// `tape doctor --json`.
const (
	CheckBadLine      = "bad_line"      // a line that is not an entry
	CheckTornTail     = "torn_tail"     // a last line without its newline
	CheckFolderName   = "folder_name"   // a name under anchors/ or tapes/ that does not parse
	CheckDuplicateSeq = "duplicate_seq" // two anchor folders with one seq
	CheckTempFile     = "temp_file"     // a .tmp- file or folder a crashed writer left
	CheckUnreadable   = "unreadable"    // a tape file that cannot be opened or is not a regular file
	CheckAnchorFile   = "anchor_file"   // an anchor.json that cannot be read
	CheckIndexDrift   = "index_drift"   // the index disagrees with the files (projector)
	CheckForkMerge    = "fork_merge"    // a merge or removal of a fork that did not finish
	CheckAckFile      = "ack_file"      // a line of AckFile that is not an acknowledgement
)

// StaleTemp is the age past which a temporary file or folder is surely
// left by a crashed writer: a handoff holds one for milliseconds.
const StaleTemp = time.Minute

// Problem is one thing wrong with the files of a workspace.
type Problem struct {
	Check   string // one of the Check* names
	Path    string // relative to the workspace (the .tape folder)
	Line    int    // 1-based; 0 when the problem is not about one line
	Problem string // what is wrong
	Fix     string // the command or action that fixes it
}

// FileKey names one tape file.
type FileKey struct{ Tape, Folder, Name string }

// FileCount is what Check read in one tape file.
type FileCount struct {
	Key      FileKey
	Entries  int   // entries in its complete lines
	Complete int64 // where its complete lines end
	// EntriesUpTo is the number of entries that start before the offset
	// CheckFiles was given for this file, or -1 if it was given none.
	EntriesUpTo int
}

// CheckResult is what CheckFiles found.
type CheckResult struct {
	Problems []Problem
	Files    []FileCount
	// Acknowledged is the number of bad lines found that AckFile
	// acknowledges: not problems.
	Acknowledged int
}

// CheckFiles reads every tape of the workspace and reports its problems.
// upTo, which may be nil, names offsets at which to count entries too (an
// index's checkpoints), so the caller can compare what it read with the
// files.
func (w *Workspace) CheckFiles(ctx context.Context, upTo map[FileKey]int64) (*CheckResult, error) {
	acks, err := w.ReadAcks()
	c := &checker{ws: w, upTo: upTo, now: time.Now(), res: &CheckResult{}, acks: acks}
	if err != nil {
		c.add(CheckAckFile, AckFile, 0, "cannot read: "+ackReadReason(err)+"; no bad line is acknowledged",
			"make it a readable regular file (chmod u+r), or remove it")
	}
	for _, n := range acks.Unreadable {
		c.add(CheckAckFile, AckFile, n, `not "PATH:LINE sha256:HEX"; doctor ignores it`,
			"correct it to the line tape doctor printed to acknowledge a bad line, or delete it")
	}
	dirents, err := w.readDir(tapesDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list tapes: %w", err)
	}
	c.temps(".", nil)
	for _, d := range dirents {
		rel := path.Join(tapesDir, d.Name())
		if c.temp(rel, d) {
			continue
		}
		if p, unread := w.unreadTape(d); unread {
			c.res.Problems = append(c.res.Problems, p)
			continue
		}
		if d.IsDir() && !hasDotPrefix(d.Name()) {
			if err := c.tape(ctx, d.Name()); err != nil {
				return nil, err
			}
		}
	}
	return c.res, nil
}

// ackReadReason says why AckFile could not be read, without its name,
// which the problem's path gives.
func ackReadReason(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, ErrNotRegular):
		return "not a regular file"
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return err.Error()
}

// checker holds one CheckFiles run.
type checker struct {
	ws     *Workspace
	upTo   map[FileKey]int64
	now    time.Time
	res    *CheckResult
	acks   *Acks
	inFork bool // checking a fork: its files are not the index's, so not counted
}

func (c *checker) add(check, rel string, line int, problem, fix string) {
	c.res.Problems = append(c.res.Problems, Problem{Check: check, Path: rel, Line: line, Problem: problem, Fix: fix})
}

// temp reports d (in the folder of rel) if it is a stale temporary name,
// and whether it is a temporary name at all.
func (c *checker) temp(rel string, d fs.DirEntry) bool {
	if !strings.HasPrefix(d.Name(), fileutil.TempPrefix) {
		return false
	}
	fi, err := d.Info()
	if err != nil || c.now.Sub(fi.ModTime()) < StaleTemp {
		return true // gone, or maybe a writer's at work
	}
	what, fix := "file", "remove it: rm "
	if d.IsDir() {
		what, fix = "folder", "remove it: rm -r "
	}
	c.add(CheckTempFile, rel, 0, fmt.Sprintf("temporary %s left by a crashed writer (%s old)", what, c.now.Sub(fi.ModTime()).Round(time.Second)),
		fix+"'"+c.ws.Abs(rel)+"'")
	return true
}

// temps reports the stale temporary names in the folder rel (dirents, or
// read when nil).
func (c *checker) temps(rel string, dirents []fs.DirEntry) {
	if dirents == nil {
		dirents, _ = c.ws.readDir(rel)
	}
	for _, d := range dirents {
		c.temp(path.Join(rel, d.Name()), d)
	}
}

func (c *checker) tape(ctx context.Context, name string) error {
	t := &Tape{ws: c.ws, name: name, dir: tapesDir + "/" + name}
	if err := c.tapeDir(ctx, t); err != nil {
		return err
	}
	return c.forks(ctx, t)
}

// forks checks the forks of a tape as tapes of their own (a bad line there
// stops its merge), and says which merges or removals did not finish.
func (c *checker) forks(ctx context.Context, t *Tape) error {
	dirents, err := c.ws.readDir(t.forksPath())
	if err != nil {
		return nil // no forks (or none readable: the tape's own check says so)
	}
	for _, d := range dirents {
		rel := path.Join(t.forksPath(), d.Name())
		if c.temp(rel, d) || !d.IsDir() {
			continue
		}
		for _, prefix := range []string{mergedPrefix, ".discarded-"} {
			if id, ok := strings.CutPrefix(d.Name(), prefix); ok {
				verb := strings.Trim(prefix, ".-")
				c.add(CheckForkMerge, rel, 0, "a fork "+verb+" but not yet removed (the command was interrupted)",
					"tape --tape "+t.name+" "+map[string]string{"merged": "merge", "discarded": "discard"}[verb]+" "+id)
			}
		}
		if hasDotPrefix(d.Name()) {
			continue
		}
		if journal := path.Join(rel, mergeJournal); c.exists(journal) {
			problem, fix := c.unfinishedMerge(t, d.Name(), journal)
			c.add(CheckForkMerge, journal, 0, problem, fix)
		}
		c.inFork = true
		err := c.tapeDir(ctx, &Tape{ws: c.ws, name: t.name, dir: rel})
		c.inFork = false
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) exists(rel string) bool {
	_, err := c.ws.root.Stat(rel)
	return err == nil
}

func isNoAnchor(_ Anchor, err error) bool { return errors.Is(err, ErrNoAnchor) }

// unfinishedMerge says what is wrong with the fork id of tape t, whose
// merge left its journal, and the fix: the merge run again, unless the
// journal names an anchor that is gone (a reset moved it away since the
// merge began), into which tape merge refuses to go on (mergeBase). Then
// the journal is to be removed, so that the merge starts again into the
// current anchor, or the fork discarded.
func (c *checker) unfinishedMerge(t *Tape, id, journal string) (problem, fix string) {
	again := "tape --tape " + t.name + " merge " + id
	data, err := c.ws.ReadPrivate(journal, forkFileLimit)
	if err == nil {
		var st mergeState
		if st, err = parseMergeState(data); err == nil && isNoAnchor(t.mergeBase(st)) {
			return "a merge of this fork started into anchor folder " + st.Base + ", which is gone (the tape was reset since), and did not finish; tape merge refuses to go on",
				"rm " + wording.ShellQuote(c.ws.Abs(journal)) + ", then " + again + " to merge the fork into the current anchor (what the merge wrote into " + st.Base +
					" is written again), or tape --tape " + t.name + " discard " + id
		}
	}
	return "a merge of this fork started and did not finish", again + " (it finishes it, writing no entry twice)"
}

// tapeDir checks a tape's folder (or a fork's) and its anchor folders.
func (c *checker) tapeDir(ctx context.Context, t *Tape) error {
	c.temps(t.dir, nil)
	dirents, err := c.ws.readDir(t.anchorsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		c.add(CheckUnreadable, t.anchorsPath(), 0, "cannot list: "+IOReason(err), c.unreadableFix(t.anchorsPath(), "u+rwx"))
		return nil
	}
	for _, d := range dirents {
		rel := path.Join(t.anchorsPath(), d.Name())
		if c.temp(rel, d) || hasDotPrefix(d.Name()) {
			continue
		}
		_, _, named := ParseFolderName(d.Name())
		switch {
		case named && d.Type()&fs.ModeSymlink != 0 && !t.isDir(d):
			// Named as one, but a link out of the workspace or to nothing:
			// renaming it would not help.
			c.add(CheckFolderName, rel, 0, "a symlink to no folder inside the workspace; tape ignores it", c.unreadableFix(rel, "u+rwx"))
		case !named || !t.isDir(d):
			c.add(CheckFolderName, rel, 0, "not an anchor folder (NNN_slug); tape ignores it",
				"rename it to <next seq>_<slug> if it holds entries, else move it out of anchors/")
		}
	}
	folders, err := t.Folders()
	if err != nil {
		return err
	}
	for i, f := range folders {
		if err := ctx.Err(); err != nil {
			return err
		}
		if (i > 0 && folders[i-1].Seq == f.Seq) || (i+1 < len(folders) && folders[i+1].Seq == f.Seq) {
			c.add(CheckDuplicateSeq, t.folderPath(f.Name), 0, fmt.Sprintf("another anchor folder has seq %d too; readers order them by name", f.Seq),
				"rename one to the next free seq (mv), then run 'tape reindex'")
		}
		c.folder(t, f)
	}
	return nil
}

// unreadableFix says how to make the folder at rel readable: a symlink is
// never followed out of the workspace, which no chmod changes.
func (c *checker) unreadableFix(rel, mode string) string {
	fi, err := c.ws.root.Lstat(rel)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return "it is a symlink, and tape reads nothing outside the workspace: replace the link with the folder itself (rm the link, then mv the folder here)"
	case err == nil && !fi.IsDir():
		return "it is not a folder (" + fi.Mode().Type().String() + "): move it away, and make a folder of that name"
	}
	return "make it readable: chmod " + mode
}

// folder checks the files of one anchor folder.
func (c *checker) folder(t *Tape, f Folder) {
	dir := t.folderPath(f.Name)
	dirents, err := c.ws.readDir(dir)
	if err != nil {
		c.add(CheckUnreadable, dir, 0, "cannot list: "+IOReason(err), c.unreadableFix(dir, "u+rwx"))
		return
	}
	for _, d := range dirents {
		rel := path.Join(dir, d.Name())
		if c.temp(rel, d) || hasDotPrefix(d.Name()) || !strings.HasSuffix(d.Name(), ".jsonl") {
			continue
		}
		if _, err := t.Stat(f.Name, d.Name()); errors.Is(err, ErrNotRegular) {
			c.add(CheckUnreadable, rel, 0, "not a regular file; readers skip it", "move it out of the anchor folder")
		}
	}
	a := t.ReadAnchor(f)
	if a.Err != nil {
		c.add(CheckAnchorFile, a.Err.Path, a.Err.Line, a.Err.Reason, "rewrite anchor.json as one anchor entry, or remove it (the folder's slug then names the anchor)")
	}
	_, files, _, err := t.FolderFiles(f.Name)
	if err != nil {
		c.add(CheckUnreadable, dir, 0, err.Error(), c.unreadableFix(dir, "u+rwx"))
		return
	}
	for _, fi := range files {
		if fi.Err != nil {
			c.add(CheckUnreadable, fi.Err.Path, 0, fi.Err.Reason, "make it a readable regular file inside the workspace (chmod u+r)")
			continue
		}
		c.file(t, a, fi.Name)
	}
}

// file reads one tape file to its end.
func (c *checker) file(t *Tape, a Anchor, name string) {
	key := FileKey{Tape: t.name, Folder: a.Folder, Name: name}
	upTo, counting := c.upTo[key]
	count := FileCount{Key: key, EntriesUpTo: -1}
	if counting {
		count.EntriesUpTo = 0
	}
	s, err := t.ScanFile(a, name, FilePos{})
	if err != nil {
		c.add(CheckUnreadable, path.Join(t.folderPath(a.Folder), name), 0, err.Error(), "make it readable: chmod u+r")
		return
	}
	defer s.Close()
	for {
		e, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			if le.Err != nil || le.Line == 0 {
				c.add(CheckBadLine, le.Path, le.Line, le.Reason+"; readers skip the rest of the file",
					"check the file system (dmesg), then run 'tape doctor' again")
				break
			}
			c.badLine(t, le, s.f)
			continue
		}
		count.Entries++
		if counting && e.Pos.Offset < upTo {
			count.EntriesUpTo++
		}
	}
	count.Complete = s.lr.offset
	if !c.inFork {
		c.res.Files = append(c.res.Files, count)
	}
	if torn := tornTail(s.f, count.Complete); torn > 0 {
		c.add(CheckTornTail, path.Join(t.folderPath(a.Folder), name), s.lr.lineNo+1,
			fmt.Sprintf("last line (%d bytes) has no newline: a writer in the middle of a write, or one that crashed; readers skip it until it ends", torn),
			"if no writer is at work, end the line as the next append to the file does: echo "+wording.ShellQuote(TornMark)+" >> "+
				wording.ShellQuote(c.ws.Abs(path.Join(t.folderPath(a.Folder), name)))+" (readers then skip it if it is a torn write, and read it if it is a whole entry)")
	}
}

// badLine reports a bad line of a tape, unless AckFile acknowledges it,
// with the fix that clears it: tape never edits the file, so the line
// stays, and a person keeps its content by appending a fixed copy and
// acknowledges it. A fork's bad line stops its merge, which no
// acknowledgement changes: the fork's files are the person's to correct.
func (c *checker) badLine(t *Tape, le *LineError, f io.ReaderAt) {
	problem := le.Reason + "; readers skip it"
	if c.inFork {
		c.add(CheckBadLine, le.Path, le.Line, problem+", and a merge of the fork stops at it",
			"correct or delete the line in the fork's file (it is not the tape's until merged), or throw the fork away: tape --tape "+t.name+" discard "+path.Base(t.dir))
		return
	}
	if c.acks.Covers(le, f) {
		c.res.Acknowledged++
		return
	}
	fix := "if its content matters, append a fixed copy with 'tape --tape " + t.name + " append --jsonl'; then acknowledge the line: "
	ack, err := c.ws.AckLine(le, f)
	if err != nil {
		fix += "it could not be read again (" + err.Error() + "): run 'tape doctor' again"
	} else {
		fix += "echo " + wording.ShellQuote(ack) + " >> " + wording.ShellQuote(c.ws.Abs(AckFile))
	}
	c.add(CheckBadLine, le.Path, le.Line, problem, fix)
}

// tornTail is the length of the bytes after complete that hold no newline,
// 0 if there are none or a newline came. Reading them, not comparing the
// file's size after the scan, keeps a line a writer completed meanwhile
// from passing for a torn one.
func tornTail(f *os.File, complete int64) int64 {
	fi, err := f.Stat()
	if err != nil || fi.Size() <= complete {
		return 0
	}
	n := min(fi.Size()-complete, 1<<20)
	buf := make([]byte, n)
	got, _ := f.ReadAt(buf, complete)
	if bytes.IndexByte(buf[:got], '\n') >= 0 {
		return 0
	}
	return fi.Size() - complete
}
