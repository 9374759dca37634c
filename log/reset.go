package log

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/fileutil"
)

// ArchiveDir is the workspace folder that `tape reset --archive` moves old
// anchors into. It is outside tapes/, so no reader or index sees it.
const ArchiveDir = "archive"

// resetPrefix names the anchors folder of a reset without --archive while
// it is being deleted: a dot name, skipped by readers, that the next reset
// removes if a crash left it.
const resetPrefix = ".reset-"

// ResetResult says what Reset did.
type ResetResult struct {
	Anchors  []string // the old anchor folders
	Archived string   // where they went, relative to the workspace's project folder (".tape/archive/..."); "" when deleted
	Anchor   Anchor   // the new bootstrap anchor
}

// Reset starts the tape over. Its anchors folder is moved away by one
// rename(2), into ArchiveDir/<tape>-<UTC time> when archive is true, or
// under a dot name inside the tape folder to be deleted; then a new
// bootstrap anchor is created, whose state is {"owner":"human"}, with
// "archived" naming the archive. It holds the tape's lock, so it never
// races a handoff or a merge; appends that race it land in the old folders
// or the new one, whole. The tape's forks are left as they are.
func (t *Tape) Reset(ctx context.Context, archive bool) (ResetResult, error) {
	var res ResetResult
	err := t.withLock(ctx, func() error {
		refs, err := t.listFolders()
		if err != nil {
			return err
		}
		for _, r := range refs {
			res.Anchors = append(res.Anchors, r.folder)
		}
		if err := t.clearResetLeftovers(); err != nil {
			return err
		}
		moved, err := t.moveAnchors(archive)
		if err != nil {
			return err
		}
		state := json.RawMessage(bootstrapState)
		if archive {
			res.Archived = path.Join(DirName, moved)
			state, _ = json.Marshal(map[string]string{"owner": "human", "archived": res.Archived})
		}
		if err := t.ws.mkdirAll(t.anchorsPath()); err != nil {
			return err
		}
		if res.Anchor, err = t.createAnchorLocked(BootstrapName, state); err != nil {
			return err
		}
		if !archive {
			if err := t.ws.root.RemoveAll(moved); err != nil {
				return fmt.Errorf("delete old anchors of tape %s: %w", t.name, err)
			}
			return fileutil.SyncDir(t.ws.root, t.dir)
		}
		return nil
	})
	t.mu.Lock()
	t.forgetLocked()
	t.mu.Unlock()
	return res, err
}

// moveAnchors renames the tape's anchors folder away and returns where it
// went, relative to the workspace; both parents are fsynced.
func (t *Tape) moveAnchors(archive bool) (string, error) {
	root := t.ws.root
	dest := path.Join(t.dir, resetPrefix+strings.TrimPrefix(fileutil.TempName("."), fileutil.TempPrefix))
	if archive {
		if err := t.ws.mkdirAll(ArchiveDir); err != nil {
			return "", err
		}
		var err error
		if dest, err = t.archiveName(time.Now()); err != nil {
			return "", err
		}
	}
	if err := root.Rename(t.anchorsPath(), dest); err != nil {
		return "", fmt.Errorf("move anchors of tape %s to %s: %w", t.name, dest, err)
	}
	for _, dir := range []string{path.Dir(dest), t.dir} {
		if err := fileutil.SyncDir(root, dir); err != nil {
			return "", err
		}
	}
	return dest, nil
}

// archiveName picks a free archive/<tape>-<time> name.
func (t *Tape) archiveName(now time.Time) (string, error) {
	base := path.Join(ArchiveDir, t.name+"-"+now.UTC().Format("20060102T150405Z"))
	name := base
	for i := 2; ; i++ {
		_, err := t.ws.root.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
		if err != nil {
			return "", fmt.Errorf("archive tape %s: %w", t.name, err)
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
}

// clearResetLeftovers removes the anchors a reset killed before it could
// delete them left under a dot name.
func (t *Tape) clearResetLeftovers() error {
	dirents, err := t.ws.readDir(t.dir)
	if err != nil {
		return fmt.Errorf("list tape %s: %w", t.name, err)
	}
	for _, d := range dirents {
		if strings.HasPrefix(d.Name(), resetPrefix) {
			if err := t.ws.root.RemoveAll(path.Join(t.dir, d.Name())); err != nil {
				return fmt.Errorf("delete old anchors of tape %s: %w", t.name, err)
			}
		}
	}
	return nil
}
