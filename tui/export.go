package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/tape-dev/tape/export"
	"github.com/tape-dev/tape/fresh"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/redact"
)

// Exporter writes a session as Markdown into a folder, its secrets
// redacted, as tape export does: e in the UI.
type Exporter struct {
	Served  *fresh.Served
	Dir     string // where the files go: the folder tape ui ran in
	Version string // tape's, in the file's footer

	once     sync.Once
	redactor *redact.Redactor
	err      error
}

// Export writes tape to <Dir>/<tape>.md, or <tape>-2.md... when that is
// taken (a file is never written over), and returns its path.
func (x *Exporter) Export(ctx context.Context, tape string) (string, error) {
	x.once.Do(func() { x.redactor, x.err = redact.New() })
	if x.err != nil {
		return "", x.err
	}
	path, err := newFile(x.Dir, tape, ".md")
	if err != nil {
		return "", err
	}
	_, err = fresh.ServedReadAsIs(ctx, x.Served, func(ix *projector.Projector) (export.Stats, error) {
		return export.File(ctx, path, ix, tape, export.Options{Format: "md", Redactor: x.redactor, Version: x.Version})
	})
	return path, err
}

// newFile creates the first of dir/name.ext, dir/name-2.ext... that no
// file has, empty and private, and returns its path: created, so that two
// exports at once never pick the same name.
func newFile(dir, name, ext string) (string, error) {
	for n := 1; n < 1000; n++ {
		path := filepath.Join(dir, name+ext)
		if n > 1 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d%s", name, n, ext))
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("export: %w", err)
		}
		return path, f.Close()
	}
	return "", fmt.Errorf("%s: %s%s and 998 more names are taken", dir, name, ext)
}
