package importer

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// run is one Import: the checkpoints it reads and updates.
type run struct {
	im       *Importer
	cp       *checkpoints
	marks    map[string]string // tape -> its mark now, as far as this run knows
	distrust map[string]bool   // tapes a transcript of this run is read again from the start for
	tapesDir *os.File          // .tape/tapes, held open for stats (dirIdentity)
	ahead    []*statted        // by the index of a transcript in the import's list, as statFiles found it
	dirs     map[string]string // tape -> dirIdentity, as statDirs found it
	savedAt  time.Time
	dirty    bool
	// lastIDs are the whole id sets of the tapes the file written last
	// wrote to, handed to the next file's writer: a session's second
	// file (Droid's settings, Kimi's context beside its wire) need not
	// read the tape the first just wrote. Only the last file's, so that
	// a run of thousands of tapes holds one tape's ids, not all.
	lastIDs map[string]map[string]bool
	flushes *flushJournal
}

func (im *Importer) newRun() (*run, error) {
	cp, err := loadCheckpoints(im.ws, im.src)
	if err != nil {
		return nil, err
	}
	if im.Full {
		clear(cp.Files)
	}
	// Checkpoints of version 2 are saved in version 3's form at the end,
	// even if nothing else changed.
	return &run{im: im, cp: cp, marks: map[string]string{}, distrust: map[string]bool{}, savedAt: time.Now(), dirty: cp.legacy,
		flushes: newFlushJournal(im.ws, im.src, !im.DeferSyncs)}, nil
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
	r.flushes.close()
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
	if err := r.cp.save(r.im.ws, r.im.src); err != nil {
		return err
	}
	return r.flushes.prune(r.cp)
}

// saveEvery saves the checkpoints when the last save is older than d, so
// that a long first import killed midway does not begin again.
func (r *run) saveEvery(d time.Duration) error {
	if !r.dirty || time.Since(r.savedAt) < d {
		return nil
	}
	return r.save()
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
		dir := r.dirIdentity(name)
		r.cp.Tapes[name] = tapeSeen{Mark: m, Dir: dir}
		if r.dirs != nil {
			r.dirs[name] = dir // what statDirs found is no longer so
		}
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
// --full reads every transcript again.) A tape that an earlier transcript
// of this run is read again for (distrust) is not as the import left it
// either, whatever its folder says now: that transcript made it anew, and
// this one's entries must be written again too.
func (r *run) tapesThere(cp *checkpoint) bool {
	for _, name := range cp.Tapes {
		if r.distrust[name] {
			return false
		}
		id, ok := r.dirs[name]
		if !ok {
			id = r.dirIdentity(name)
		}
		if id != r.cp.Tapes[name].Dir {
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
	if !r.openTapes() {
		return ""
	}
	var st unix.Stat_t
	if err := unix.Fstatat(int(r.tapesDir.Fd()), tape+"/anchors", &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return ""
	}
	return strconv.FormatUint(st.Ino, 10) + ":" + strconv.FormatInt(st.Mtim.Nano(), 10)
}

// openTapes opens the tapes folder for dirIdentity, once, and reports
// whether it is open.
func (r *run) openTapes() bool {
	if r.tapesDir == nil {
		d, err := os.Open(r.im.ws.Abs("tapes"))
		if err != nil {
			return false
		}
		r.tapesDir = d
	}
	return true
}

// forgetGone drops the checkpoints of transcripts under roots that the
// walk no longer finds (an agent deletes old sessions): they would be
// kept, and their tapes stat'ed by each import, for ever. Should one come
// back, it is read from its start, and what its tapes hold is skipped.
func (r *run) forgetGone(roots, found []string) {
	there := make(map[string]bool, len(found))
	for _, f := range found {
		there[f] = true
	}
	for path := range r.cp.Files {
		if under(path, roots) && !there[path] {
			delete(r.cp.Files, path)
			r.dirty = true
		}
	}
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
	if len(m) == 1 { // most transcripts: without the sort's allocations
		for _, name := range m {
			return []string{name}
		}
	}
	return slices.Compact(slices.Sorted(maps.Values(m)))
}

// firstTape is the tape of the file's session itself: the one whose key
// has no agent (it sorts before its subagents'), or the first.
func firstTape(m map[string]string) string {
	if len(m) == 1 {
		for _, name := range m {
			return name
		}
	}
	keys := slices.Sorted(maps.Keys(m))
	if len(keys) == 0 {
		return ""
	}
	return m[keys[0]]
}

// sessionState is what an import reads of a tape's first anchor to tell
// whose session it holds.
type sessionState struct {
	SessionID string `json:"session_id"`
	AgentID   string `json:"agent_id"`
}

func owns(s source.Session, a tapelog.Anchor) bool {
	var st sessionState
	if json.Unmarshal(a.State, &st) != nil {
		return false
	}
	return st.SessionID == s.ID && st.AgentID == s.Agent
}
