package log

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/tape-dev/tape/internal/fileutil"
)

// MergeOptions tune Merge.
type MergeOptions struct {
	// AfterWrite, when set, is called after each change the merge makes:
	// the journal, each line and each anchor folder written into the
	// parent, and the rename of the merged fork. Tests use it to kill the
	// merge at a chosen point.
	AfterWrite func()
}

func (o MergeOptions) afterWrite() {
	if o.AfterWrite != nil {
		o.AfterWrite()
	}
}

// MergeResult says what a merge did.
type MergeResult struct {
	Fork    string
	Base    string // the parent's anchor folder that got the fork's first entries
	Entries int    // entries written into the parent by this run
	Anchors int    // anchor folders created in the parent by this run
	Skipped int    // entries and anchors found already merged by an earlier, interrupted run
	// Finished is true when the fork had already been merged and only its
	// removal was left to do.
	Finished bool
}

// mergeState is merge.json, the journal of a merge in the fork folder.
type mergeState struct {
	Base string `json:"base"` // the parent's anchor folder the fork's 000_fork entries go to
	File string `json:"file"` // the file of Base they go to: the one holding its last entry
	// Offset is File's size when the merge began: only lines from there on
	// can be entries an earlier run merged. An entry the parent held
	// before, with the same id as a fork entry (Bub's integer ids repeat),
	// is not taken for a merged one. Journals without it (0) compare the
	// whole file, as the first version of merge did.
	Offset int64 `json:"offset,omitempty"`
	// BaseID is the id of Base's anchor entry when the merge began: a
	// reset makes a new folder of the same name (001_session-start),
	// which is not the one the merge wrote into, and whose lines before
	// Offset an earlier run may have written. Journals without it
	// compare the folder's name alone.
	BaseID string `json:"base_id,omitempty"`
}

// segment is one fork folder to merge: its anchor (nil for 000_fork) and
// its entries, in the fork's order.
type segment struct {
	anchor  *Anchor
	entries []Entry
}

// Merge appends the entries of the fork id to the tape, in the fork's
// order, keeping their ids and dates, then removes the fork. The entries of
// the fork's 000_fork folder go to the end of the parent's current anchor;
// each anchor of the fork becomes an anchor folder of the parent, keeping
// its id, date, name and state, followed by its entries.
//
// Merge is idempotent and crash-safe. It holds the tape's lock. Its first
// run records the parent's current anchor, the file the fork's first
// entries go to and its size in the fork's merge.json (atomically), so
// every later run writes to the same place. An anchor is found already
// merged by its id among the parent's anchors; an entry by its id among
// the lines written to its file since the merge began (the k-th fork
// entry with an id counts as merged when those lines hold at least k
// entries with that id). Entries written by hand into the fork, without
// an id, are given "fork-<fork id>/<folder>/<file>:<line>". Each line is one write(2), so a run killed at any point leaves every
// entry either written whole or not at all, and the next run writes exactly
// the missing ones. Only after every line is fsynced is the fork removed.
func (t *Tape) Merge(ctx context.Context, id string, opts MergeOptions) (MergeResult, error) {
	if err := ValidateForkID(id); err != nil {
		return MergeResult{}, err
	}
	res := MergeResult{Fork: id}
	err := t.withFoldersLock(ctx, func() error { // the merge may add anchor folders
		var err error
		res, err = t.mergeLocked(ctx, id, opts)
		return err
	})
	return res, err
}

func (t *Tape) mergeLocked(ctx context.Context, id string, opts MergeOptions) (MergeResult, error) {
	res := MergeResult{Fork: id}
	root := t.ws.root
	if _, err := root.Stat(t.forkPath(id)); errors.Is(err, fs.ErrNotExist) {
		// A run killed while removing the merged fork: finish the removal.
		gone := t.forksPath() + "/" + mergedPrefix + id
		if _, err := root.Stat(gone); err == nil {
			res.Finished = true
			if err := root.RemoveAll(gone); err != nil {
				return res, fmt.Errorf("remove merged fork %s: %w", id, err)
			}
			return res, fileutil.SyncDir(root, t.forksPath())
		}
		return res, t.noFork(id)
	}
	fork := &Tape{ws: t.ws, name: t.name, dir: t.forkPath(id), Sync: SyncAlways}
	segs, err := readSegments(ctx, fork)
	if err != nil {
		return res, err
	}
	if _, err := t.ensureLocked(); err != nil {
		return res, err
	}
	state, err := t.mergeJournal(ctx, id, opts)
	if err != nil {
		return res, err
	}
	res.Base = state.Base
	target, err := t.mergeBase(state)
	if err != nil {
		return res, err
	}
	for _, seg := range segs {
		file, since := state.File, state.Offset
		if seg.anchor != nil {
			if target, err = t.mergeAnchor(*seg.anchor, &res, opts); err != nil {
				return res, err
			}
			file, since = MessagesFile, 0 // a folder the merge made: everything in it is the merge's
		}
		if err := t.mergeEntries(ctx, target, file, since, forkIDs(id, seg.entries), &res, opts); err != nil {
			return res, err
		}
	}
	return res, t.removeFork(id, mergedPrefix, opts.afterWrite)
}

// readSegments reads the fork, folder by folder. A line that cannot be
// read stops the merge: merging without it would lose it silently.
func readSegments(ctx context.Context, fork *Tape) ([]segment, error) {
	anchors, err := fork.Anchors()
	if err != nil {
		return nil, err
	}
	segs := make([]segment, 0, len(anchors))
	for i := range anchors {
		a := &anchors[i]
		if a.Err != nil {
			return nil, fmt.Errorf("fork has an unreadable anchor: %w; fix or remove it, then merge again", a.Err)
		}
		seg := segment{anchor: a}
		if a.Seq == 0 {
			seg.anchor = nil // 000_fork continues the parent's anchor
		}
		for e, err := range fork.Entries(ctx, anchors[i:i+1]) {
			if err != nil {
				return nil, fmt.Errorf("read fork: %w; fix or remove the line, then merge again", err)
			}
			if e.Kind != KindAnchor || e.Pos.File != AnchorFile {
				seg.entries = append(seg.entries, e)
			}
		}
		segs = append(segs, seg)
	}
	return segs, nil
}

// mergeJournal reads the fork's merge.json, writing it first if this is
// the merge's first run.
func (t *Tape) mergeJournal(ctx context.Context, id string, opts MergeOptions) (mergeState, error) {
	rel := path.Join(t.forkPath(id), mergeJournal)
	var st mergeState
	data, err := t.ws.ReadPrivate(rel, forkFileLimit)
	if err == nil {
		if st, err = parseMergeState(data); err != nil {
			return st, fmt.Errorf("read %s: %w; remove it to merge the fork afresh", rel, err)
		}
		return st, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return st, err
	}
	refs, err := t.listFolders()
	if err != nil {
		return st, err
	}
	if len(refs) == 0 {
		return st, fmt.Errorf("tape %s has no anchor folder to merge into", t.name)
	}
	base := t.readAnchor(refs[len(refs)-1])
	st.Base, st.BaseID = base.Folder, base.Entry.ID
	if st.File, err = t.lastFile(ctx, base); err != nil {
		return st, err
	}
	if fi, err := t.ws.root.Stat(t.folderPath(st.Base) + "/" + st.File); err == nil {
		st.Offset = fi.Size()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return st, fmt.Errorf("merge into %s: %w", st.Base, err)
	}
	data, _ = json.Marshal(st)
	if err := t.ws.writeAtomic(rel, append(data, '\n')); err != nil {
		return st, err
	}
	opts.afterWrite()
	return st, nil
}

// parseMergeState reads merge.json. The journal is a file in the
// workspace that anyone can edit, so its names are checked like names
// typed by a user: an anchor folder name and a plain *.jsonl file name,
// neither of which can leave the anchors folder.
func parseMergeState(data []byte) (mergeState, error) {
	var st mergeState
	if err := json.Unmarshal(data, &st); err != nil {
		return mergeState{}, fmt.Errorf("not a merge journal: %w", err)
	}
	if _, _, ok := ParseFolderName(st.Base); !ok || ValidateTapeName(st.Base) != nil {
		return mergeState{}, fmt.Errorf("merge journal names no anchor folder (base %q)", st.Base)
	}
	if ValidateTapeName(st.File) != nil || !strings.HasSuffix(st.File, ".jsonl") {
		return mergeState{}, fmt.Errorf("merge journal names no *.jsonl file (file %q)", st.File)
	}
	if st.Offset < 0 {
		return mergeState{}, fmt.Errorf("merge journal has a negative offset %d", st.Offset)
	}
	return st, nil
}

// mergeBase is the parent's anchor the merge of the journal st began in,
// or ErrNoAnchor if it is gone (a reset moved it away, and may have made
// a new folder of its name).
func (t *Tape) mergeBase(st mergeState) (Anchor, error) {
	anchors, err := t.Anchors()
	if err != nil {
		return Anchor{}, err
	}
	for _, a := range anchors {
		if a.Folder == st.Base && (st.BaseID == "" || a.Entry.ID == st.BaseID) {
			return a, nil
		}
	}
	return Anchor{}, fmt.Errorf("%w: the merge started into anchor folder %s of tape %s, which is gone; discard the fork, or remove its %s to merge into the current anchor", ErrNoAnchor, st.Base, t.name, mergeJournal)
}

// lastFile is the file that holds the last entry of anchor a in tape
// order, or messages.jsonl when a has no entry. Merged entries appended to
// it have an effective time at least that entry's, so they read after
// every entry the folder held, whatever their own dates.
func (t *Tape) lastFile(ctx context.Context, a Anchor) (string, error) {
	file := MessagesFile
	for e, err := range t.Entries(ctx, []Anchor{a}) {
		var le *LineError
		if errors.As(err, &le) {
			continue
		}
		if err != nil {
			return "", err
		}
		if e.Pos.File != AnchorFile {
			file = e.Pos.File
		}
	}
	return file, nil
}

// mergeAnchor returns the parent's anchor folder for the fork's anchor a,
// creating it, with a's anchor.json line, unless an earlier run did.
func (t *Tape) mergeAnchor(a Anchor, res *MergeResult, opts MergeOptions) (Anchor, error) {
	anchors, err := t.Anchors()
	if err != nil {
		return Anchor{}, err
	}
	for i := len(anchors) - 1; i >= 0; i-- {
		if anchors[i].Entry.ID == a.Entry.ID {
			res.Skipped++
			return anchors[i], nil
		}
	}
	meta, err := normalizeObject(a.Entry.Meta, "meta", t.ws.config.MaxEntryBytes)
	if err != nil {
		return Anchor{}, err
	}
	line, err := encodeLine(lineFields{ID: a.Entry.ID, Kind: KindAnchor, Payload: anchorPayload(a.Name, a.State), Meta: meta, Date: a.Entry.Date})
	if err != nil {
		return Anchor{}, err
	}
	seq := int64(1)
	if len(anchors) > 0 {
		seq = anchors[len(anchors)-1].Seq + 1
	}
	made, err := t.placeAnchorLocked(seq, a.Name, line)
	if err != nil {
		return Anchor{}, err
	}
	res.Anchors++
	opts.afterWrite()
	return made, nil
}

// forkIDs gives the fork's entries that had no id of their own (a line
// written by hand gets one derived from its place, "000_fork/x.jsonl:1",
// which every fork has) an id that names the fork too, so that entries of
// two forks merged into one folder are never taken for each other.
func forkIDs(fork string, entries []Entry) []Entry {
	out := make([]Entry, len(entries))
	for i, e := range entries {
		if e.ID == DerivedID(e.Pos.Folder, e.Pos.File, e.Pos.Line) {
			e.ID = "fork-" + fork + "/" + e.ID
		}
		out[i] = e
	}
	return out
}

// mergeEntries appends to file of the parent's folder target the entries
// that an earlier run did not write: those whose ids are not among the
// file's lines from byte since on. They all go to one file, whatever
// their kinds: within a folder, entries of different files are read in
// the order of their dates, and the fork's dates may be older than the
// parent's last entries; in one file, lines keep their order.
func (t *Tape) mergeEntries(ctx context.Context, target Anchor, file string, since int64, entries []Entry, res *MergeResult, opts MergeOptions) error {
	have := map[string]int{}
	for e, err := range t.Entries(ctx, []Anchor{target}) {
		var le *LineError
		if errors.As(err, &le) {
			continue // a bad line of the parent is not a merged entry
		}
		if err != nil {
			return err
		}
		if e.Pos.File == file && e.Pos.Offset >= since {
			have[e.ID]++
		}
	}
	var lines [][]byte
	for _, e := range entries {
		if have[e.ID] > 0 {
			have[e.ID]--
			res.Skipped++
			continue
		}
		_, line, err := t.prepare(Entry{ID: e.ID, Kind: e.Kind, Payload: e.Payload, Meta: e.Meta, Date: e.Date}, false)
		if err != nil {
			return fmt.Errorf("merge entry %s of %s: %w", e.ID, e.Pos.Folder+"/"+e.Pos.File, err)
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil
	}
	return t.mergeLines(ctx, target.Folder, file, lines, res, opts)
}

// mergeLines appends lines to one file of the parent's folder, one write
// each, under the file's flock, and fsyncs the file (and the folder, for a
// new file) before returning: the fork is removed only after this.
func (t *Tape) mergeLines(ctx context.Context, folder, file string, lines [][]byte, res *MergeResult, opts MergeOptions) error {
	dir, err := t.ws.root.OpenRoot(t.folderPath(folder))
	if err != nil {
		return fmt.Errorf("open anchor folder %s: %w", folder, err)
	}
	defer dir.Close()
	rel := t.folderPath(folder) + "/" + file
	f, created, err := openAppend(dir, file, rel)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := fileutil.LockContext(ctx, f); err != nil {
		return err
	}
	if _, err := endLine(f); err != nil {
		return fmt.Errorf("append to %s: %w", rel, err)
	}
	for _, line := range lines {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := f.Write(line); err != nil {
			return fmt.Errorf("append to %s: %w", rel, err)
		}
		res.Entries++
		opts.afterWrite()
	}
	return syncAppended(f, dir, rel, created)
}

func syncAppended(f *os.File, dir *os.Root, rel string, created bool) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", rel, err)
	}
	if created {
		if err := fileutil.SyncDir(dir, "."); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", rel, err)
	}
	return nil
}
