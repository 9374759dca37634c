package log

import (
	"cmp"
	"context"
	"errors"
	"io"
	"io/fs"
	"slices"
)

// Follower reads what is written to a tape after it started, as tail -f
// does: new lines of the newest anchor folder's files, and the anchors and
// lines of folders made after it. It does not wait; the caller polls it
// when something changed (an fsnotify event, a timer).
type Follower struct {
	t      *Tape
	anchor Anchor             // the newest folder read; Folder "" before the first
	pos    map[string]FilePos // how far each of its files was read
	// The inodes of the anchors folder and of the folder read: tape reset
	// replaces the anchors folder, and its new first folder may have the
	// name of the one followed.
	anchorsIno, folderIno uint64
	// listed, if set, runs right after Poll lists the folders: tests
	// replace the anchors folder there.
	listed func()
}

// Follow starts following t at its end as it stands now: Poll returns only
// what is written after.
func (t *Tape) Follow(ctx context.Context) (*Follower, error) {
	f := &Follower{t: t, pos: map[string]FilePos{}, anchorsIno: t.anchorsInode()}
	folders, err := t.Folders()
	if err != nil || len(folders) == 0 {
		return f, err // no tape yet: its first folder is new
	}
	f.enter(t.ReadAnchor(folders[len(folders)-1]))
	_, err = f.readFolder(ctx, func(Entry) {}, func(error) {}) // to the end
	return f, err
}

// Poll returns the entries written since Follow or the last Poll, in tape
// order, and the lines it could not read.
func (f *Follower) Poll(ctx context.Context) (entries []Entry, bad []error, err error) {
	add := func(e Entry) { entries = append(entries, e) }
	warn := func(err error) { bad = append(bad, err) }
	ino, folders, err := f.listFolders()
	if err != nil {
		return nil, nil, err
	}
	newer := folders
	if ino != f.anchorsIno {
		// The anchors folder was replaced (tape reset): all it holds is new.
		f.anchorsIno, f.anchor = ino, Anchor{}
	}
	if f.anchor.Folder != "" {
		after := f.anchor.Folder
		if f.folderInode() == f.folderIno {
			if _, err := f.readFolder(ctx, add, warn); err != nil {
				return entries, bad, err
			}
		} else {
			after = "" // replaced or removed: a folder of its seq may be its successor
		}
		// Folders sort by seq, then name: the new ones sort after ours.
		newer = slices.DeleteFunc(folders, func(fo Folder) bool {
			return cmp.Or(cmp.Compare(fo.Seq, f.anchor.Seq), cmp.Compare(fo.Name, after)) <= 0
		})
	}
	for _, fo := range newer {
		f.enter(f.t.ReadAnchor(fo))
		if f.anchor.Err != nil {
			warn(f.anchor.Err)
		}
		if !f.anchor.Unanchored {
			add(f.anchor.Entry)
		}
		if _, err := f.readFolder(ctx, add, warn); err != nil {
			return entries, bad, err
		}
	}
	return entries, bad, nil
}

// listFolders lists the tape's folders, and returns the inode of the
// anchors folder they are in. A listing of an anchors folder that a reset
// replaced while it was listed is made again: its folders read by name
// from the new one were folders of no anchor, and tape log -f printed an
// anchor named for a folder's slug, with no date, that the tape never had.
// It narrows that window, not closes it: a reset between this listing and
// Poll's ReadAnchor of a new folder still reads a folder that is gone.
// Closing it means Poll reading each new anchor and giving up the rest of
// the listing when the anchors folder changed meanwhile, keeping the
// anchor it followed before (TestFollowerOfAResetUnderWay covers the
// listing's window only).
func (f *Follower) listFolders() (uint64, []Folder, error) {
	for try := 1; ; try++ {
		ino := f.t.anchorsInode()
		folders, err := f.t.Folders()
		if f.listed != nil {
			f.listed()
		}
		if err != nil || f.t.anchorsInode() == ino {
			return ino, folders, err
		}
		if try == 10 { // reset after reset: the next poll reads what stays
			return f.anchorsIno, nil, nil
		}
	}
}

func (f *Follower) enter(a Anchor) {
	f.anchor = a
	f.folderIno = f.folderInode()
	clear(f.pos)
}

// folderInode is the inode of the folder followed, 0 if it is gone.
func (f *Follower) folderInode() uint64 {
	fi, err := f.t.QuickStat(f.anchor.Folder, "")
	if err != nil {
		return 0
	}
	return fi.Ino
}

// anchorsInode is the inode of the tape's anchors folder, 0 if it has none.
func (t *Tape) anchorsInode() uint64 {
	fi, err := t.ws.root.Stat(t.anchorsPath())
	if err != nil {
		return 0
	}
	ino, _ := inode(fi)
	return ino
}

// readFolder reads the new lines of the current folder's files and passes
// them to add, sorted as the folder's entries are (effective time, file,
// line), and what it cannot read to warn.
func (f *Follower) readFolder(ctx context.Context, add func(Entry), warn func(error)) (int, error) {
	_, files, _, err := f.t.FolderFiles(f.anchor.Folder)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil // removed while we followed: the next Poll moves on
	}
	if err != nil {
		return 0, err
	}
	var got []Entry
	for _, fi := range files {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if fi.Err != nil {
			continue // a file that cannot be read: tape log says so; following, stay quiet
		}
		es, err := f.readFile(fi.Name, warn)
		if err != nil {
			return 0, err
		}
		got = append(got, es...)
	}
	slices.SortStableFunc(got, func(a, b Entry) int {
		return cmp.Or(a.Pos.Time.Compare(b.Pos.Time), cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line))
	})
	for _, e := range got {
		add(e)
	}
	return len(got), nil
}

// readFile reads one file's lines after its position; a file rewritten
// under it (shorter, or other bytes before the position) is read again
// from the start.
func (f *Follower) readFile(name string, warn func(error)) ([]Entry, error) {
	s, err := f.t.ScanFile(f.anchor, name, f.pos[name])
	var le *LineError
	if err != nil && !errors.As(err, &le) && f.pos[name].Offset > 0 {
		// Other bytes before the position (ErrFileChanged), or fewer
		// (EOF in the fingerprint): a rewritten file.
		s, err = f.t.ScanFile(f.anchor, name, FilePos{})
	}
	if err != nil {
		if errors.As(err, &le) {
			warn(err)
			return nil, nil
		}
		return nil, err
	}
	defer s.Close()
	var out []Entry
	for {
		e, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.As(err, &le) {
			warn(err)
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	pos, err := s.Pos()
	if err != nil {
		return nil, err
	}
	f.pos[name] = pos
	return out, nil
}
