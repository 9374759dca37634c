package log

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Tape is one tape of a workspace: the anchor folders under
// .tape/tapes/<name>/anchors. A Tape is safe for use by several goroutines,
// and any number of processes may append to the same tape at once.
type Tape struct {
	ws   *Workspace
	name string
	dir  string // "tapes/<name>", relative to the workspace

	// Sync is the durability of Append; it starts as the workspace's
	// configured setting.
	Sync Sync

	mu sync.Mutex
	// guarded by mu:
	current folderCache
}

// Name is the tape's name.
func (t *Tape) Name() string { return t.name }

// Workspace is the workspace the tape belongs to.
func (t *Tape) Workspace() *Workspace { return t.ws }

func (t *Tape) anchorsPath() string { return t.dir + "/" + anchorsDir }

func (t *Tape) folderPath(folder string) string { return t.anchorsPath() + "/" + folder }

// Exists reports whether the tape's folder exists.
func (t *Tape) Exists() (bool, error) {
	if err := t.notSymlink(); err != nil {
		return false, err
	}
	_, err := t.ws.root.Stat(t.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat tape %s: %w", t.name, err)
	}
	return true, nil
}

// Anchor is one phase of a tape: an anchor folder and the anchor entry that
// opens it.
type Anchor struct {
	Seq    int64
	Folder string          // "002_plan"
	Name   string          // the full name; the slug when there is no anchor.json
	State  json.RawMessage // nil when the anchor has no state
	Entry  Entry           // the anchor entry; synthesized when there is no anchor.json
	// Unanchored marks a folder of seq 0 without anchor.json: it holds
	// entries written before the tape's first anchor (a Bub store's
	// 000_bub, a fork's 000_fork), and has no anchor entry and no name.
	// Entries and followers yield none for it; its Entry has no ID.
	Unanchored bool
	// Err is set when anchor.json exists but cannot be read; the anchor is
	// then named by its slug, as if the file were missing.
	Err *LineError
}

// folderRef is an anchor folder found by listing, before anchor.json is read.
type folderRef struct {
	seq    int64
	folder string
}

// listFolders lists the tape's anchor folders in tape order: by seq, then by
// folder name for the rare hand-made folders that share a seq. Names that do
// not parse as "<seq>_<slug>", files, and names starting with a dot
// (temporary folders) are left out. A tape without an anchors folder has none.
func (t *Tape) listFolders() ([]folderRef, error) {
	dirents, err := t.ws.readDir(t.anchorsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		if lerr := t.notSymlink(); lerr != nil {
			return nil, lerr
		}
		return nil, fmt.Errorf("list anchors of tape %s: %w", t.name, err)
	}
	return t.folderRefs(dirents), nil
}

// folderRefs picks the anchor folders out of a listing of the anchors
// folder, in tape order.
func (t *Tape) folderRefs(dirents []fs.DirEntry) []folderRef {
	refs := make([]folderRef, 0, len(dirents))
	for _, d := range dirents {
		if hasDotPrefix(d.Name()) || !t.isDir(d) {
			continue
		}
		if seq, _, ok := ParseFolderName(d.Name()); ok {
			refs = append(refs, folderRef{seq: seq, folder: d.Name()})
		}
	}
	slices.SortFunc(refs, func(a, b folderRef) int {
		return cmp.Or(cmp.Compare(a.seq, b.seq), cmp.Compare(a.folder, b.folder))
	})
	return refs
}

// isDir reports whether d is a folder, following a symlink only if it stays
// inside the workspace.
func (t *Tape) isDir(d fs.DirEntry) bool {
	if d.IsDir() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err := t.ws.root.Stat(t.folderPath(d.Name()))
	return err == nil && fi.IsDir()
}

// Anchors reads the tape's anchors in order. A tape that does not exist has
// none.
func (t *Tape) Anchors() ([]Anchor, error) {
	refs, err := t.listFolders()
	if err != nil {
		return nil, err
	}
	anchors := make([]Anchor, len(refs))
	for i, ref := range refs {
		anchors[i] = t.readAnchor(ref)
	}
	return anchors, nil
}

// Started is when the tape started: the date of its first anchor, as its
// anchor.json holds it. It is the zero Time when the tape has no anchor
// folder, or its first one has no anchor.json or no date; an error when
// the anchors folder cannot be listed, the first anchor.json cannot be
// read (a *LineError), or its date does not parse.
func (t *Tape) Started() (time.Time, error) {
	refs, err := t.listFolders()
	if err != nil || len(refs) == 0 {
		return time.Time{}, err
	}
	a := t.readAnchor(refs[0])
	switch {
	case a.Err != nil:
		return time.Time{}, a.Err
	case a.Entry.Date == "":
		return time.Time{}, nil
	}
	at, err := ParseTime(a.Entry.Date)
	if err != nil {
		return time.Time{}, fmt.Errorf("start of tape %s: %w", t.name, err)
	}
	return at, nil
}

// readAnchor reads a folder's anchor.json. A missing file gives an anchor
// named by the slug; an unreadable one the same, with Err set.
func (t *Tape) readAnchor(ref folderRef) Anchor {
	_, slug, _ := ParseFolderName(ref.folder)
	if slug == "" {
		slug = ref.folder
	}
	a := Anchor{Seq: ref.seq, Folder: ref.folder, Name: slug}
	a.Entry = Entry{
		ID:   ref.folder,
		Kind: KindAnchor,
		Pos:  Position{Tape: t.name, AnchorSeq: ref.seq, Folder: ref.folder, File: AnchorFile},
	}
	rel := path.Join(t.folderPath(ref.folder), AnchorFile)
	data, err := t.ws.root.ReadFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		if ref.seq == 0 {
			a.Name, a.Entry.ID, a.Unanchored = "", "", true
		}
		a.Entry.Payload = anchorPayload(a.Name, nil)
		a.Entry.Pos.Anchor = a.Name
		return a
	}
	if err != nil {
		a.Err = &LineError{Path: rel, Reason: "cannot read: " + err.Error()}
	} else if p, reason := parseLine(trimNewline(data)); reason != "" {
		a.Err = &LineError{Path: rel, Line: 1, Reason: reason}
	} else if p.kind != KindAnchor {
		a.Err = &LineError{Path: rel, Line: 1, Reason: fmt.Sprintf(`anchor.json holds a %q entry; want kind "anchor"`, p.kind)}
	} else if name, state, reason := anchorFields(p.payload); reason != "" {
		a.Err = &LineError{Path: rel, Line: 1, Reason: reason}
	} else {
		a.Name, a.State = name, state
		a.Entry.Kind, a.Entry.Payload, a.Entry.Meta, a.Entry.Date = p.kind, p.payload, p.meta, p.date
		a.Entry.Pos.Time, a.Entry.Pos.Line = p.time, 1
		a.Entry.ID = cmp.Or(p.id, DerivedID(ref.folder, AnchorFile, 1))
	}
	if a.Err != nil {
		a.Entry.Payload = anchorPayload(a.Name, nil)
	}
	a.Entry.Pos.Anchor = a.Name
	return a
}

// anchorFields takes the name and state out of an anchor payload.
func anchorFields(payload json.RawMessage) (name string, state json.RawMessage, reason string) {
	var p struct {
		Name  *string         `json:"name"`
		State json.RawMessage `json:"state"`
	}
	if json.Unmarshal(payload, &p) != nil || p.Name == nil {
		return "", nil, `anchor payload has no string "name"`
	}
	if string(p.State) == "null" {
		p.State = nil
	}
	return *p.Name, p.State, ""
}

func anchorPayload(name string, state json.RawMessage) json.RawMessage {
	if state == nil {
		state = jsonEmptyObject
	}
	b, _ := json.Marshal(struct {
		Name  string          `json:"name"`
		State json.RawMessage `json:"state"`
	}{name, state})
	return b
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// folderCache remembers the tape's last anchor folder between appends, so an
// append costs one stat of the anchors folder instead of a listing.
//
// The cache is trusted only while the anchors folder's mtime, inode and
// link count are unchanged AND that mtime is older than the listing by more
// than racyWindow. File system timestamps are coarse (a jiffy on ext4, a
// whole second on ext3, some network file systems and ext4 with small
// inodes), so a folder changed just after it was listed can keep its mtime;
// an mtime well before the listing cannot hide such a change (git calls the
// other case "racily clean"). The link count of a folder counts its
// subfolders, so a new anchor folder changes it whatever the clock does.
// Handoff through the same Tape drops the cache outright.
type folderCache struct {
	folder   string   // "" when the tape has no anchor folder
	dir      *os.Root // the folder, open, so an append opens its file with one openat
	seq      int64
	anchor   string // the anchor's name, from anchor.json
	mtime    time.Time
	ino      uint64
	nlink    uint64
	listedAt time.Time
}

// racyWindow covers file systems whose timestamps have whole seconds.
const racyWindow = 2 * time.Second

func (c folderCache) fresh(fi fs.FileInfo) bool {
	ino, nlink := inode(fi)
	return c.folder != "" && fi.ModTime().Equal(c.mtime) && ino == c.ino && nlink == c.nlink &&
		c.mtime.Before(c.listedAt.Add(-racyWindow))
}

// currentFolder returns the tape's last anchor folder; its folder is "" if
// the tape has none. Callers hold t.mu.
func (t *Tape) currentFolder() (folderCache, error) {
	// A stat by absolute path costs one system call where the Root would walk
	// every component; it reads no content, so it cannot leak anything even
	// through a symlink. The folder itself is opened through the Root.
	fi, err := os.Stat(t.ws.Abs(t.anchorsPath()))
	if errors.Is(err, fs.ErrNotExist) {
		t.forgetLocked()
		return folderCache{}, nil
	}
	if err != nil {
		return folderCache{}, fmt.Errorf("stat anchors of tape %s: %w", t.name, err)
	}
	if t.current.fresh(fi) {
		return t.current, nil
	}
	t.forgetLocked()
	if err := t.notSymlink(); err != nil { // an append would go to another tape's folder
		return folderCache{}, err
	}
	listedAt := time.Now()
	refs, err := t.listFolders()
	if err != nil || len(refs) == 0 {
		return folderCache{}, err
	}
	last := refs[len(refs)-1]
	dir, err := t.ws.root.OpenRoot(t.folderPath(last.folder))
	if err != nil {
		return folderCache{}, fmt.Errorf("open anchor folder %s: %w", last.folder, err)
	}
	ino, nlink := inode(fi)
	t.current = folderCache{folder: last.folder, dir: dir, seq: last.seq, anchor: t.readAnchor(last).Name,
		mtime: fi.ModTime(), ino: ino, nlink: nlink, listedAt: listedAt}
	return t.current, nil
}

// forgetLocked drops the cached folder. Callers hold t.mu.
func (t *Tape) forgetLocked() {
	if t.current.dir != nil {
		t.current.dir.Close()
	}
	t.current = folderCache{}
}

// Close releases the folder handle the tape keeps between appends. The tape
// can still be used; it opens the folder again.
func (t *Tape) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.forgetLocked()
	return nil
}

// inode returns a file's inode number and link count.
func inode(fi fs.FileInfo) (ino, nlink uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, uint64(st.Nlink)
	}
	return 0, 0
}
