package log

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"
)

// FilePos is a place in a tape file between two complete lines: all a reader
// needs to go on from there, as if it had read the file from the start.
type FilePos struct {
	Offset      int64     // where the next line starts
	Line        int       // the number of lines before Offset
	Time        time.Time // the file's effective time at Offset
	Fingerprint uint64    // identifies the bytes before Offset; see ScanFile
}

// ErrFileChanged is returned by ScanFile when the bytes before the given
// position are not the ones read before: the file was rewritten or replaced,
// and must be read again from the start.
var ErrFileChanged = errors.New("log: file changed before the position read up to")

// FileScanner reads the entries of one tape file, line by line, from a
// FilePos. The projector uses it to read only what was appended since its
// last checkpoint.
type FileScanner struct {
	anchor  Anchor
	tape    string
	name    string
	rel     string
	f       *os.File
	lr      *lineReader
	buf     *ScanBuffer
	effTime time.Time
	done    bool   // after an I/O error: the rest of the file cannot be read
	raw     []byte // the line Next last returned, as the file holds it (Raw)
	stopAt  int64  // Next ends at the first line that starts here or later; 0 for the end of the file
}

// ScanFile opens the file name of anchor a's folder and positions it at
// from. When from is past the start, the file's fingerprint there must match
// from.Fingerprint, or ScanFile fails with ErrFileChanged.
func (t *Tape) ScanFile(a Anchor, name string, from FilePos) (*FileScanner, error) {
	return t.ScanFileWith(nil, a, name, from)
}

// ScanBuffer is the memory a FileScanner reads with: its read buffer
// (64 KiB), the line it assembles and the bytes it fingerprints. A
// reader of many files, one after the other, passes the same ScanBuffer
// to ScanFileWith so that each file does not allocate them anew: a
// rebuild of 10,000 small tapes allocated 1.8 GB of read buffers for
// their 30,000 files (BenchmarkRebuildManyTapes in package projector).
// The zero value is ready to use.
type ScanBuffer struct {
	lr lineReader
	fp []byte
}

// ScanFileWith is ScanFile reading with buf, if not nil. The scanner uses
// buf until it is closed: one ScanBuffer serves one open scanner at a
// time.
func (t *Tape) ScanFileWith(buf *ScanBuffer, a Anchor, name string, from FilePos) (*FileScanner, error) {
	rel := path.Join(t.folderPath(a.Folder), name)
	f, err := t.openRegular(rel)
	if err != nil {
		return nil, &LineError{Path: rel, Reason: "cannot open: " + IOReason(err), Err: err}
	}
	if buf == nil {
		buf = &ScanBuffer{}
	}
	s := &FileScanner{anchor: a, tape: t.name, name: name, rel: rel, f: f, effTime: from.Time, buf: buf}
	if from.Offset > 0 {
		fp, err := fingerprint(f, from.Offset, buf)
		if err == nil && fp != from.Fingerprint {
			err = ErrFileChanged
		}
		if err == nil {
			_, err = f.Seek(from.Offset, io.SeekStart)
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("scan %s: %w", rel, err)
		}
	}
	s.lr = buf.lr.reset(f, t.maxLineBytes())
	s.lr.lineNo, s.lr.offset = from.Line, from.Offset
	return s, nil
}

// Next returns the next entry, a *LineError for a line that cannot be read,
// or io.EOF after the last complete line.
func (s *FileScanner) Next() (Entry, error) {
	s.raw = nil
	for {
		if s.done || s.stopAt > 0 && s.lr.offset >= s.stopAt {
			return Entry{}, io.EOF
		}
		line, err := s.lr.next()
		if errors.Is(err, io.EOF) {
			return Entry{}, io.EOF
		}
		if err != nil {
			s.done = true
			return Entry{}, &LineError{Path: s.rel, Line: s.lr.lineNo + 1, Offset: s.lr.offset, Reason: "cannot read: " + err.Error(), Err: err}
		}
		if line.tooLong > 0 {
			reason := fmt.Sprintf("line is %d bytes, over the read limit of %d", line.tooLong, s.lr.max)
			return Entry{}, &LineError{Path: s.rel, Line: line.no, Offset: line.offset, Reason: reason}
		}
		// A line a later writer ended with TornMark is read as what came
		// before the mark, and skipped if that is a torn write.
		data, marked := cutTornMark(line.data)
		if isBlank(data) {
			continue
		}
		p, reason := parseLine(data)
		if reason != "" && marked && tornWrite(data) {
			continue
		}
		s.raw = s.lr.buf
		if reason != "" {
			return Entry{}, &LineError{Path: s.rel, Line: line.no, Offset: line.offset, Reason: reason}
		}
		if p.time.After(s.effTime) {
			s.effTime = p.time
		}
		id := p.id
		if id == "" {
			id = DerivedID(s.anchor.Folder, s.name, line.no)
		}
		return Entry{ID: id, Kind: p.kind, Payload: p.payload, Meta: p.meta, Date: p.date,
			Pos: Position{Tape: s.tape, AnchorSeq: s.anchor.Seq, Anchor: s.anchor.Name, Folder: s.anchor.Folder,
				File: s.name, Line: line.no, Offset: line.offset, Length: len(data), Time: s.effTime}}, nil
	}
}

// StopAt makes Next end (io.EOF) at the first line that starts at offset
// or after it, as if the file ended there: a reader that copies what
// another has read of the file (a checkpoint's offset) reads no further.
func (s *FileScanner) StopAt(offset int64) { s.stopAt = offset }

// Raw returns the bytes of the line Next last returned, an entry or a
// bad line, as the file holds them, its "\n" (or "\r\n") included: what a
// copy of the tape elsewhere keeps to write the line back byte for byte.
// It is nil after a line over the read limit, or an error that is not
// about a line. The bytes are valid until the next call to Next.
func (s *FileScanner) Raw() []byte { return s.raw }

// Pos is the position after the last complete line read.
func (s *FileScanner) Pos() (FilePos, error) {
	pos := FilePos{Offset: s.lr.offset, Line: s.lr.lineNo, Time: s.effTime}
	fp, err := fingerprint(s.f, pos.Offset, s.buf)
	if err != nil {
		return FilePos{}, fmt.Errorf("scan %s: %w", s.rel, err)
	}
	pos.Fingerprint = fp
	return pos, nil
}

// Close closes the file.
func (s *FileScanner) Close() error { return s.f.Close() }

// fingerprintSpan is how many bytes at each end of the read part of a file
// the fingerprint covers.
const fingerprintSpan = 4096

// fingerprint hashes the first and the last fingerprintSpan bytes before
// offset. A file that was truncated and written again, or replaced by
// another, almost surely differs there; reading only 8 KiB keeps a
// catch-up cheap however large the file.
func fingerprint(f *os.File, offset int64, sb *ScanBuffer) (uint64, error) {
	h := fnv.New64a()
	if len(sb.fp) < fingerprintSpan {
		sb.fp = make([]byte, fingerprintSpan)
	}
	buf := sb.fp
	head := min(offset, fingerprintSpan)
	if _, err := f.ReadAt(buf[:head], 0); err != nil {
		return 0, err
	}
	h.Write(buf[:head])
	tailStart := max(head, offset-fingerprintSpan)
	if n := offset - tailStart; n > 0 {
		if _, err := f.ReadAt(buf[:n], tailStart); err != nil {
			return 0, err
		}
		h.Write(buf[:n])
	}
	return h.Sum64(), nil
}

// FileInfo is what the projector compares to see whether a file changed.
type FileInfo struct {
	Name    string
	Size    int64
	ModTime time.Time
	// ChangeNS is the status change time (ctime), in ns: a chmod or
	// chown changes it, and nothing else a reader can see.
	ChangeNS int64
	Dev      uint64
	Ino      uint64
	Err      *LineError // set when the file cannot be read (a symlink out of the workspace)
}

// Files lists the *.jsonl files of an anchor folder, sorted by name, with
// their sizes and identities. A file that cannot be stat'ed is listed with
// Err set, except one deleted meanwhile.
func (t *Tape) Files(folder string) ([]FileInfo, error) {
	_, files, _, err := t.FolderFiles(folder)
	return files, err
}

// FolderFiles describes an anchor folder's anchor.json (nil when it has
// none) and its *.jsonl files, as Files does. It opens the folder once and
// stats its files relative to it: a catch-up with nothing to do is mostly
// this, for every folder of every tape. links reports whether the folder
// holds *.jsonl symlinks, whose targets can change without the folder.
func (t *Tape) FolderFiles(folder string) (anchor *FileInfo, files []FileInfo, links bool, err error) {
	dirPath := t.folderPath(folder)
	dir, err := t.ws.root.OpenRoot(dirPath)
	if err != nil {
		return nil, nil, false, fmt.Errorf("open %s: %w", dirPath, err)
	}
	defer dir.Close()
	dirents, err := fs.ReadDir(dir.FS(), ".")
	if err != nil {
		return nil, nil, false, fmt.Errorf("list %s: %w", dirPath, err)
	}
	for _, d := range dirents { // sorted by name
		name := d.Name()
		if name == AnchorFile {
			if fi, err := statIn(dir, name); err == nil {
				anchor = &fi
			}
			continue
		}
		if !strings.HasSuffix(name, ".jsonl") || hasDotPrefix(name) {
			continue
		}
		var fi FileInfo
		switch {
		case d.Type().IsRegular():
			fi, err = statIn(dir, name)
		case d.Type()&fs.ModeSymlink != 0:
			// A symlink may lead to another folder of the workspace, which
			// only the workspace's root can follow.
			links = true
			fi, err = t.Stat(folder, name)
			if errors.Is(err, ErrNotRegular) {
				continue
			}
		default:
			continue // a FIFO, a socket, a folder: not a tape file
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			fi = FileInfo{Name: name, Err: &LineError{Path: path.Join(dirPath, name), Reason: "cannot open: " + IOReason(err), Err: err}}
		}
		files = append(files, fi)
	}
	return anchor, files, links, nil
}

// QuickStat describes the file name of an anchor folder (or the folder
// itself, for name ""), with one stat(2) of its absolute path instead of a
// walk through the workspace's root. It reads metadata only, never
// content, so it can serve a reader that only wants to know whether a file
// changed; content is read through the root, which refuses what lies
// outside the workspace.
func (t *Tape) QuickStat(folder, name string) (FileInfo, error) {
	fi, err := os.Stat(t.ws.Abs(path.Join(t.folderPath(folder), name)))
	if err != nil {
		return FileInfo{}, err
	}
	if name == "" {
		info := FileInfo{Name: folder, ModTime: fi.ModTime()}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			info.Dev, info.Ino, info.ChangeNS = uint64(st.Dev), st.Ino, st.Ctim.Nano()
		}
		return info, nil
	}
	return fileInfo(name, fi)
}

// Stat describes the file name of an anchor folder, following a symlink
// inside the workspace.
func (t *Tape) Stat(folder, name string) (FileInfo, error) {
	fi, err := t.ws.root.Stat(path.Join(t.folderPath(folder), name))
	if err != nil {
		return FileInfo{}, err
	}
	return fileInfo(name, fi)
}

func statIn(dir *os.Root, name string) (FileInfo, error) {
	fi, err := dir.Stat(name)
	if err != nil {
		return FileInfo{}, err
	}
	return fileInfo(name, fi)
}

func fileInfo(name string, fi fs.FileInfo) (FileInfo, error) {
	if !fi.Mode().IsRegular() {
		return FileInfo{}, fmt.Errorf("%s: %w", name, ErrNotRegular)
	}
	info := FileInfo{Name: name, Size: fi.Size(), ModTime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		info.Dev, info.Ino, info.ChangeNS = uint64(st.Dev), st.Ino, st.Ctim.Nano()
	}
	return info, nil
}

// Folder is an anchor folder found by listing, before its anchor.json is
// read.
type Folder struct {
	Seq  int64
	Name string // "002_plan"
}

// Folders lists the tape's anchor folders in tape order, without reading
// their anchor.json.
func (t *Tape) Folders() ([]Folder, error) {
	refs, err := t.listFolders()
	return asFolders(refs), err
}

// folders lists the anchor folders in a listing of the anchors folder.
func (t *Tape) folders(dirents []fs.DirEntry) []Folder { return asFolders(t.folderRefs(dirents)) }

func asFolders(refs []folderRef) []Folder {
	folders := make([]Folder, len(refs))
	for i, r := range refs {
		folders[i] = Folder{Seq: r.seq, Name: r.folder}
	}
	return folders
}

// ReadAnchor reads the anchor of one folder (see Anchor for a folder without
// a readable anchor.json).
func (t *Tape) ReadAnchor(f Folder) Anchor {
	return t.readAnchor(folderRef{seq: f.Seq, folder: f.Name})
}

// OpenFile opens the file name of an anchor folder for reading, through the
// workspace's root: for a reader that already knows where a line is.
func (t *Tape) OpenFile(folder, name string) (*os.File, error) {
	return t.openRegular(path.Join(t.folderPath(folder), name))
}

// ErrNotRegular is wrapped by the error of opening a tape file that is not a
// regular file: a FIFO, a socket, a device.
var ErrNotRegular = errors.New("log: not a regular file")

// openRegular opens rel for reading without blocking on a FIFO, and makes
// sure it is a regular file.
func (t *Tape) openRegular(rel string) (*os.File, error) { return t.ws.openRegular(rel) }

// openRegular opens the workspace file rel for reading without blocking on
// a FIFO, and makes sure it is a regular file.
func (w *Workspace) openRegular(rel string) (*os.File, error) {
	f, err := w.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s: %w", rel, ErrNotRegular)
		}
		return nil, err
	}
	return f, nil
}

// EntryAt parses the line data read from the given place of a file of
// anchor a: what an index that recorded the place reads back. It gives an
// entry without an id the id a reader derives.
func EntryAt(a Anchor, file string, line int, data []byte) (Entry, error) {
	e, err := ParseEntry(data)
	if err != nil {
		return Entry{}, err
	}
	if e.ID == "" {
		e.ID = DerivedID(a.Folder, file, line)
	}
	e.Pos = Position{AnchorSeq: a.Seq, Anchor: a.Name, Folder: a.Folder, File: file, Line: line, Length: len(data)}
	return e, nil
}
