package log

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/fileutil"
)

// Names of a fork on disk (see docs/FORMAT.md, "Forks").
const (
	forksDir      = "forks"
	forkBase      = "000_fork" // the fork's first folder: entries that continue the parent's anchor
	forkFile      = "fork.json"
	mergeJournal  = "merge.json"
	mergedPrefix  = ".merged-" // a merged fork being removed
	forkFileLimit = 1 << 16
)

// ErrNoFork is wrapped by the errors about a fork that does not exist.
var ErrNoFork = errors.New("log: no such fork")

// ValidateForkID reports whether id can name a fork folder: the rules of
// tape names (no '/', no leading dot, so never "." or ".."), which keep
// every fork inside its tape's forks folder.
func ValidateForkID(id string) error {
	// The same rules, said of a fork id: "fork id "../x" contains a path separator".
	why, _ := tapeNameProblem(id)
	if why == "" {
		return nil
	}
	return fmt.Errorf("%w: fork id %s %s; give the id 'tape fork' printed", ErrBadName, quoteName(id), why)
}

func (t *Tape) forksPath() string { return t.dir + "/" + forksDir }

func (t *Tape) forkPath(id string) string { return t.forksPath() + "/" + id }

// forkInfo is fork.json: what the fork was started from, for people who
// inspect it with cat.
type forkInfo struct {
	ID     string `json:"id"`
	Tape   string `json:"tape"`
	Anchor string `json:"anchor"` // the parent's anchor folder when the fork started
	Date   string `json:"date"`
}

// Fork starts a fork of the tape and returns its id, a ULID. A fork is a
// tape of its own under tapes/<tape>/forks/<id>/, whose first folder,
// 000_fork, has no anchor.json: its entries continue the parent's current
// anchor when the fork is merged. The parent is created if it does not
// exist yet. Nothing the parent's readers see changes.
func (t *Tape) Fork(ctx context.Context) (string, error) {
	if _, err := t.ensure(ctx); err != nil {
		return "", err
	}
	refs, err := t.listFolders()
	if err != nil {
		return "", err
	}
	id, now := t.ws.ids.next(time.Now())
	info := forkInfo{ID: id, Tape: t.name, Date: FormatTime(now)}
	if len(refs) > 0 {
		info.Anchor = refs[len(refs)-1].folder
	}
	if err := t.ws.mkdirAll(t.forksPath()); err != nil {
		return "", err
	}
	if err := t.buildFork(id, info); err != nil {
		return "", err
	}
	return id, nil
}

// buildFork makes the fork folder under a temporary name and renames it
// into place, so a fork folder is never seen half made.
func (t *Tape) buildFork(id string, info forkInfo) error {
	root := t.ws.root
	tmp := fileutil.TempName(t.forksPath())
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	err = errors.Join(
		root.Mkdir(tmp, dirPerm),
		root.Mkdir(tmp+"/"+anchorsDir, dirPerm),
		root.Mkdir(tmp+"/"+anchorsDir+"/"+forkBase, dirPerm),
	)
	if err == nil {
		err = fileutil.WriteSynced(root, tmp+"/"+forkFile, append(data, '\n'), filePerm)
	}
	for _, dir := range []string{tmp + "/" + anchorsDir, tmp} {
		if err == nil {
			err = fileutil.SyncDir(root, dir)
		}
	}
	if err == nil {
		err = root.Rename(tmp, t.forkPath(id))
	}
	if err != nil {
		_ = root.RemoveAll(tmp)
		return fmt.Errorf("create fork of tape %s: %w", t.name, err)
	}
	return fileutil.SyncDir(root, t.forksPath())
}

// OpenFork returns the fork id of the tape as a Tape: Append and Handoff
// write into the fork, and its readers read it. Its entries carry the
// parent's tape name.
func (t *Tape) OpenFork(id string) (*Tape, error) {
	if err := ValidateForkID(id); err != nil {
		return nil, err
	}
	fi, err := t.ws.root.Stat(t.forkPath(id))
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
		return nil, t.noFork(id)
	}
	if err != nil {
		return nil, fmt.Errorf("open fork %s: %w", id, err)
	}
	return &Tape{ws: t.ws, name: t.name, dir: t.forkPath(id), Sync: t.Sync}, nil
}

func (t *Tape) noFork(id string) error {
	forks, _ := t.Forks()
	if len(forks) == 0 {
		return fmt.Errorf("%w %q on tape %s (no forks); start one with 'tape fork'", ErrNoFork, id, t.name)
	}
	return fmt.Errorf("%w %q on tape %s (forks: %s)", ErrNoFork, id, t.name, strings.Join(forks, ", "))
}

// ForkTape is the name of the tape that holds the fork id, or "" when
// none does: fork ids are unique in a workspace. It looks in every tape's
// forks folder, a stat each.
func (w *Workspace) ForkTape(id string) (string, error) {
	if err := ValidateForkID(id); err != nil {
		return "", err
	}
	names, err := w.Tapes()
	if err != nil {
		return "", err
	}
	for _, name := range names {
		t, err := w.Tape(name)
		if err != nil {
			continue // a folder whose name is not a tape's
		}
		fi, err := w.root.Stat(t.forkPath(id))
		if err == nil && fi.IsDir() {
			return name, nil
		}
	}
	return "", nil
}

// Forks lists the ids of the tape's forks, oldest first (ULIDs sort by time).
func (t *Tape) Forks() ([]string, error) {
	dirents, err := t.ws.readDir(t.forksPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list forks of tape %s: %w", t.name, err)
	}
	var ids []string
	for _, d := range dirents {
		if d.IsDir() && ValidateForkID(d.Name()) == nil {
			ids = append(ids, d.Name())
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// CountForks is how many forks the named tape has that are neither merged
// nor discarded: 0 when it has none, or cannot be read.
func (w *Workspace) CountForks(tape string) int {
	t, err := w.Tape(tape)
	if err != nil {
		return 0
	}
	defer t.Close()
	ids, _ := t.Forks()
	return len(ids)
}

// Discard throws the fork id away: its folder is renamed out of sight
// (atomically, so it is gone or whole) and then removed. It holds the
// tape's lock, so it never races a merge of the same fork.
func (t *Tape) Discard(ctx context.Context, id string) error {
	if err := ValidateForkID(id); err != nil {
		return err
	}
	// Checked before the lock too: taking it makes the tape's folder, and
	// a mistyped tape or fork must leave nothing behind.
	if _, err := t.ws.root.Stat(t.forkPath(id)); errors.Is(err, fs.ErrNotExist) {
		return t.noFork(id)
	}
	return t.withLock(ctx, func() error {
		if _, err := t.ws.root.Stat(t.forkPath(id)); errors.Is(err, fs.ErrNotExist) {
			return t.noFork(id)
		}
		return t.removeFork(id, ".discarded-", func() {})
	})
}

// removeFork renames the fork folder to prefix+id, fsyncs the forks folder,
// calls renamed, and removes it. A crash in between leaves a dot folder that readers skip
// and the next merge or discard of that id removes.
func (t *Tape) removeFork(id, prefix string, renamed func()) error {
	root := t.ws.root
	gone := t.forksPath() + "/" + prefix + id
	if err := root.Rename(t.forkPath(id), gone); err != nil {
		return fmt.Errorf("remove fork %s: %w", id, err)
	}
	if err := fileutil.SyncDir(root, t.forksPath()); err != nil {
		return err
	}
	renamed()
	if err := root.RemoveAll(gone); err != nil {
		return fmt.Errorf("remove fork %s: %w", id, err)
	}
	return fileutil.SyncDir(root, t.forksPath())
}
