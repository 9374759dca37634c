package log

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/fileutil"
)

// Identity returns the workspace's identity (config.json's "workspace"),
// making one the first time it is asked: a new ULID, and a name of the
// folder that holds .tape and the host ("proj@laptop"). Two processes
// that ask at once get the same one: the first makes it under an flock
// of the .tape folder, and the second reads it from the file.
//
// A workspace copied with cp -r keeps its identity, as a git clone keeps
// its remotes: to sync the copy as a second workspace, delete its
// "workspace" key.
func (w *Workspace) Identity() (Identity, error) {
	id, saved := w.ProposedIdentity()
	if saved {
		return id, nil
	}
	return w.SaveIdentity(id)
}

// ProposedIdentity is the identity config.json holds (saved), else a new
// one that is not written yet: for one who writes it only once it is
// used (tape sync, once the server took the workspace), by SaveIdentity.
func (w *Workspace) ProposedIdentity() (id Identity, saved bool) {
	if id := w.config.Workspace; id != nil {
		return *id, true
	}
	ulid, _ := w.ids.next(time.Now())
	return Identity{ID: ulid, Name: defaultName(w.dir)}, false
}

// SaveIdentity writes id into config.json, unless it holds one already
// (another process made it meanwhile), and returns the one it then
// holds.
func (w *Workspace) SaveIdentity(id Identity) (Identity, error) {
	dir, err := w.root.Open(".")
	if err != nil {
		return Identity{}, fmt.Errorf("workspace identity: %w", err)
	}
	defer dir.Close()
	if err := fileutil.Lock(dir); err != nil {
		return Identity{}, fmt.Errorf("workspace identity: lock %s: %w", w.dir, err)
	}
	defer fileutil.Unlock(dir)
	cfg, err := w.loadConfig() // another process may have made it meanwhile
	if err != nil {
		return Identity{}, err
	}
	if cfg.Workspace == nil {
		cfg.Workspace = &id
		if err := w.SaveConfig(cfg); err != nil {
			return Identity{}, err
		}
	}
	w.config = cfg
	return *cfg.Workspace, nil
}

// defaultName names the workspace whose .tape folder is tapeDir after the
// folder that holds it and the host, without its domain.
func defaultName(tapeDir string) string {
	name := filepath.Base(filepath.Dir(tapeDir))
	if host, err := os.Hostname(); err == nil && host != "" {
		host, _, _ = strings.Cut(host, ".")
		name += "@" + host
	}
	return name
}
