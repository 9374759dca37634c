package log

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/fileutil"
)

// Builder makes a tape that does not exist yet whole: a first import of
// thousands of small sessions spent most of its time making each tape
// one handoff and one append at a time, each a lock, a listing of the
// anchors folder and a walk of its path from .tape (about 120 system
// calls a tape). A Builder takes the same handoffs and appends, checks
// them as the Tape would, and holds them; Place writes the whole tape
// into a temporary folder of the tapes folder and renames it into place
// in one step that fails if the tape has appeared meanwhile (renameat2's
// RENAME_NOREPLACE). Then, and where the system has no such rename, it
// writes what it holds through the Tape as handoffs and appends would
// have: the files are the same either way (TestBuilderWritesWhatTheTapeWould).
//
// A reader sees the tape whole or not at all. A process killed while it
// builds leaves a temporary folder (.tmp-…, locked while it is built),
// which the next Builder of the workspace to place a tape removes, and
// tape doctor reports until then.
type Builder struct {
	t      *Tape
	phases []builtPhase
	size   int64
	whole  bool // the last Place put the tape in place whole (for tests)
}

// builtPhase is an anchor and the entries after it; anchor.ID is empty
// for the entries appended before any handoff, which go after the
// bootstrap anchor an append would make.
type builtPhase struct {
	name    string
	anchor  lineFields
	entries []Entry
	lines   [][]byte
}

// NewBuilder starts a Builder of the tape, which must not exist yet for
// Place to write it whole.
func (t *Tape) NewBuilder() *Builder { return &Builder{t: t} }

// Size is the bytes of the lines held.
func (b *Builder) Size() int64 { return b.size }

// HandoffRecorded starts a phase with an anchor recorded elsewhere, as
// Tape.HandoffRecorded does; an anchor the tape refuses is an error that
// Refused reports, and nothing is held.
func (b *Builder) HandoffRecorded(e Entry) error {
	name, f, err := b.t.prepareAnchor(e, false)
	if err != nil {
		return err
	}
	b.phases = append(b.phases, builtPhase{name: name, anchor: f})
	b.size += int64(len(f.Payload) + len(f.Meta))
	return nil
}

// AppendRecordedEach holds entries recorded elsewhere as
// Tape.AppendRecordedEach writes them: a refused entry is handed to
// refused and left out. It returns how many it holds.
func (b *Builder) AppendRecordedEach(entries []Entry, refused func(i int, err error) error) (int, error) {
	n := 0
	for i, e := range entries {
		out, line, err := b.t.prepare(e, false)
		if err != nil {
			if err := refused(i, err); err != nil {
				return n, err
			}
			continue
		}
		if len(b.phases) == 0 { // as an append makes the bootstrap anchor: for an entry it writes
			b.phases = append(b.phases, builtPhase{name: BootstrapName})
		}
		p := &b.phases[len(b.phases)-1]
		p.entries, p.lines = append(p.entries, out), append(p.lines, line)
		b.size += int64(len(line))
		n++
	}
	return n, nil
}

// Place writes what the Builder holds: the whole tape at once if it does
// not exist, else (or where that cannot be done) through the Tape, as
// the handoffs and appends it was given. It then holds nothing.
func (b *Builder) Place(ctx context.Context) error {
	if len(b.phases) == 0 {
		return nil
	}
	defer func() { b.phases, b.size = nil, 0 }()
	if err := ctx.Err(); err != nil {
		return err
	}
	err := b.placeWhole()
	b.whole = err == nil
	if err == nil {
		b.t.mu.Lock()
		b.t.forgetLocked()
		b.t.mu.Unlock()
		return nil
	}
	if !errors.Is(err, errNotWhole) {
		return err
	}
	return b.writeThrough(ctx)
}

// errNotWhole says the tape cannot be placed whole: it exists, or the
// system has no rename that refuses to replace.
var errNotWhole = errors.New("log: the tape cannot be placed whole")

// placeWhole builds the tape in a temporary folder and renames it into
// place; errNotWhole if it exists.
func (b *Builder) placeWhole() error {
	ws := b.t.ws
	if err := b.t.notSymlink(); err != nil {
		return err
	}
	if _, err := ws.root.Lstat(b.t.dir); err == nil {
		return errNotWhole
	}
	if err := ws.mkdirAll(tapesDir); err != nil {
		return err
	}
	ws.sweepTapeTemps()
	tmp := fileutil.TempName(tapesDir)
	if err := ws.root.Mkdir(tmp, dirPerm); err != nil {
		return fmt.Errorf("create tape %s: %w", b.t.name, err)
	}
	lock, err := ws.root.Open(tmp)
	if err == nil {
		err = fileutil.LockContext(context.Background(), lock)
	}
	if err != nil {
		_ = ws.root.RemoveAll(tmp)
		return fmt.Errorf("create tape %s: %w", b.t.name, err)
	}
	defer lock.Close() // after the rename: the lock marks the folder as being built
	if err := b.writeFolders(tmp); err != nil {
		// Nothing is placed: write through the Tape, which reports a
		// failure of the disk itself (the folder could also have been
		// swept between its mkdir and its lock by a Builder of another
		// process: imports take the workspace's import lock, but a
		// Builder does not rely on it).
		_ = ws.root.RemoveAll(tmp)
		return errNotWhole
	}
	if err := ws.renameNoReplace(tmp, b.t.dir); err != nil {
		_ = ws.root.RemoveAll(tmp)
		return err
	}
	return ws.syncDir(tapesDir)
}

// writeFolders writes the anchor folders into the tape folder tmp.
func (b *Builder) writeFolders(tmp string) error {
	ws := b.t.ws
	dir, err := ws.root.OpenRoot(tmp)
	if err != nil {
		return err
	}
	defer dir.Close()
	if err := dir.Mkdir(anchorsDir, dirPerm); err != nil {
		return err
	}
	sync := !ws.deferring()
	for i, p := range b.phases {
		folder := anchorsDir + "/" + FolderName(int64(i+1), p.name)
		if err := dir.Mkdir(folder, dirPerm); err != nil {
			return err
		}
		if err := b.writePhase(dir, folder, p, sync); err != nil {
			return err
		}
	}
	if sync {
		if err := fileutil.SyncDir(dir, anchorsDir); err != nil {
			return err
		}
		return fileutil.SyncDir(dir, ".")
	}
	return nil
}

// writePhase writes a phase's anchor.json and files into its folder, of
// the tape folder dir.
func (b *Builder) writePhase(dir *os.Root, folder string, p builtPhase, sync bool) error {
	ws := b.t.ws
	fdir, err := dir.OpenRoot(folder)
	if err != nil {
		return err
	}
	defer fdir.Close()
	anchor := p.anchor
	if anchor.ID == "" { // entries before any handoff: after the anchor an append would make
		id, now := ws.ids.next(time.Now())
		anchor = lineFields{ID: id, Kind: KindAnchor, Payload: anchorPayload(BootstrapName, json.RawMessage(bootstrapState)),
			Meta: jsonEmptyObject, Date: FormatTime(now)}
	}
	line, err := encodeLine(anchor)
	if err != nil {
		return err
	}
	if err := fileutil.WriteNew(fdir, AnchorFile, line, filePerm, sync); err != nil {
		return err
	}
	for _, file := range filesOf(p.entries) {
		if err := fileutil.WriteNew(fdir, file, linesOf(p, file), filePerm, sync); err != nil {
			return err
		}
	}
	if sync {
		return fileutil.SyncDir(fdir, ".")
	}
	return nil
}

// filesOf are the files entries go to, in the order they first appear.
func filesOf(entries []Entry) []string {
	var files []string
	for _, e := range entries {
		if !slices.Contains(files, e.Pos.File) {
			files = append(files, e.Pos.File)
		}
	}
	return files
}

// linesOf are the lines of p's entries that go to file, in order.
func linesOf(p builtPhase, file string) []byte {
	var out []byte
	for i, e := range p.entries {
		if e.Pos.File == file {
			out = append(out, p.lines[i]...)
		}
	}
	return out
}

// writeThrough writes the phases through the Tape: each anchor as a
// handoff, each phase's entries as one append (listed again once if its
// folder went away, as Tape.Append does).
func (b *Builder) writeThrough(ctx context.Context) error {
	t := b.t
	for _, p := range b.phases {
		if p.anchor.ID != "" {
			err := t.withFoldersLock(ctx, func() error {
				_, err := t.createAnchorEntryLocked(p.name, p.anchor)
				return err
			})
			if err != nil {
				return err
			}
		}
		if len(p.entries) == 0 {
			continue
		}
		t.mu.Lock()
		err := t.writeLocked(ctx, p.entries, p.lines)
		if errors.Is(err, fs.ErrNotExist) {
			t.forgetLocked()
			err = t.writeLocked(ctx, p.entries, p.lines)
		}
		t.mu.Unlock()
		if err != nil {
			return fmt.Errorf("append to tape %s: %w", t.name, err)
		}
	}
	return nil
}

// renameNoReplace renames the workspace folder from to to, which must
// not exist: errNotWhole if it does, or if the system cannot refuse.
func (w *Workspace) renameNoReplace(from, to string) error {
	d, err := w.root.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	err = fileutil.RenameNoReplace(d, from, to)
	if errors.Is(err, fs.ErrExist) || errors.Is(err, fileutil.ErrNoReplaceUnsupported) {
		return errNotWhole
	}
	if err != nil {
		return fmt.Errorf("place tape %s: %w", path.Base(to), err)
	}
	return nil
}

// sweepTapeTemps removes, once a Workspace, the temporary tape folders
// that Builders killed while building left: those whose lock it can take.
func (w *Workspace) sweepTapeTemps() {
	if w.sweptTapeTemps.Swap(true) {
		return
	}
	dirents, err := w.readDir(tapesDir)
	if err != nil {
		return
	}
	for _, d := range dirents {
		if !d.IsDir() || !strings.HasPrefix(d.Name(), fileutil.TempPrefix) {
			continue
		}
		rel := path.Join(tapesDir, d.Name())
		f, err := w.root.Open(rel)
		if err != nil {
			continue
		}
		if ok, err := fileutil.TryLock(f); ok && err == nil {
			_ = w.root.RemoveAll(rel)
		}
		f.Close()
	}
}
