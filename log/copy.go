package log

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/tape-dev/tape/internal/fileutil"
)

// Copies of a tape kept elsewhere (a team's index on PostgreSQL) read an
// anchor folder as its bytes, and write one back whole.

// ReadAnchorRaw reads the anchor of one folder as ReadAnchor does, and the
// bytes of its anchor.json as the file holds them: nil when the folder
// has none.
func (t *Tape) ReadAnchorRaw(folder string) (Anchor, []byte, error) {
	seq, _, ok := ParseFolderName(folder)
	if !ok || !plainName(folder) {
		return Anchor{}, nil, fmt.Errorf("log: %q is not an anchor folder name", folder)
	}
	raw, err := t.ws.root.ReadFile(path.Join(t.folderPath(folder), AnchorFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		raw = nil // readAnchor reports it in the anchor's Err
	}
	return t.readAnchor(folderRef{seq: seq, folder: folder}), raw, nil
}

// WriteFolder writes the anchor folder folder of the tape whole, as a
// copy of it elsewhere holds it (tape restore): anchor.json with the
// bytes anchor (none when nil), and a file of each name in files, whose
// bytes write writes. It builds the folder under a temporary name in the
// tape's folder, fsyncs it and renames it into place, so that a reader
// sees the whole folder or none of it. It takes no lock for as long as
// that lasts, so it builds outside the anchors folder, whose temporary
// folders a handoff removes as dead (removeDeadTempsLocked). A folder of that name already there is an error
// that wraps fs.ErrExist: nothing is overwritten. Names must be what
// readers read: an anchor folder name, and *.jsonl names.
func (t *Tape) WriteFolder(folder string, anchor []byte, files []string, write func(name string, w io.Writer) error) error {
	if _, _, ok := ParseFolderName(folder); !ok || !plainName(folder) {
		return fmt.Errorf("log: %q is not an anchor folder name", folder)
	}
	for _, name := range files {
		if !plainName(name) || !strings.HasSuffix(name, ".jsonl") {
			return fmt.Errorf("log: %q is not a tape file name (*.jsonl)", name)
		}
	}
	final := t.folderPath(folder)
	if _, err := t.ws.root.Lstat(final); err == nil {
		return fmt.Errorf("write %s: %w", t.ws.Abs(final), fs.ErrExist)
	}
	if err := t.ws.mkdirAll(t.anchorsPath()); err != nil {
		return err
	}
	root := t.ws.root
	tmp := fileutil.TempName(t.dir)
	if err := root.Mkdir(tmp, dirPerm); err != nil {
		return fmt.Errorf("create anchor folder: %w", err)
	}
	err := t.fillFolder(tmp, anchor, files, write)
	if err == nil {
		err = t.ws.syncDir(tmp)
	}
	if err == nil {
		if _, statErr := root.Lstat(final); statErr == nil {
			err = fmt.Errorf("write %s: %w", t.ws.Abs(final), fs.ErrExist)
		}
	}
	if err == nil {
		err = root.Rename(tmp, final)
	}
	if err != nil {
		_ = root.RemoveAll(tmp)
		return err
	}
	if err := t.ws.syncDir(t.anchorsPath()); err != nil {
		return err
	}
	return t.ws.syncDir(t.dir)
}

// fillFolder writes the files of a new anchor folder, fsynced.
func (t *Tape) fillFolder(dir string, anchor []byte, files []string, write func(name string, w io.Writer) error) error {
	root := t.ws.root
	if anchor != nil {
		if err := fileutil.WriteNew(root, path.Join(dir, AnchorFile), anchor, filePerm, true); err != nil {
			return err
		}
	}
	for _, name := range files {
		rel := path.Join(dir, name)
		f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, filePerm)
		if err != nil {
			return fmt.Errorf("create %s: %w", t.ws.Abs(rel), err)
		}
		err = write(name, f)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", t.ws.Abs(rel), err)
		}
	}
	return nil
}

// plainName reports whether name is one path element that readers list:
// no slash, not "." or "..", not hidden.
func plainName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/\\\x00") && !strings.HasPrefix(name, ".")
}
