package fts5

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxParts bounds the parts a build is split into, and so the scratch
// files RemoveBuilds and BuildsLeft look for.
const MaxParts = 4

// BuildFile is the name of part k's scratch database, in the folder a
// build is made in (NewBuild): index-build.db for part 0, so that a build
// of one part keeps the name it always had, index-build-k.db for the
// others. Only the holder of the index lock uses them.
func BuildFile(k int) string {
	if k == 0 {
		return "index-build.db"
	}
	return fmt.Sprintf("index-build-%d.db", k)
}

// BuildsLeft names the scratch files of a build in dir, in part order:
// those a killed pass left, or those of a build that runs. A symbolic
// link at one of the names counts; it is not followed.
func BuildsLeft(dir string) []string {
	var left []string
	for k := range MaxParts {
		if _, err := os.Lstat(filepath.Join(dir, BuildFile(k))); err == nil {
			left = append(left, BuildFile(k))
		}
	}
	return left
}

// RemoveBuilds removes the scratch files in dir that a killed pass may
// have left. The caller holds the index lock, so no build is using them:
// they hold the tapes' words, and one a kill left behind stayed until the
// next rebuild.
func RemoveBuilds(dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("remove old search index build: %w", err)
	}
	defer root.Close()
	for k := range MaxParts {
		if err := root.Remove(BuildFile(k)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove old search index build: remove %s: %w", BuildFile(k), err)
		}
	}
	return nil
}

// createPrivate creates the file name in dir with mode 0600, empty, and
// returns its path; it fails if the file exists. Through an os.Root, as
// the workspace opens its files: a name in dir never leads out of it.
func createPrivate(dir, name string) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", fmt.Errorf("create %s: %w", name, err)
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("create %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		root.Remove(name) //nolint:errcheck // the close's error is the one to report
		return "", fmt.Errorf("create %s: %w", name, err)
	}
	return filepath.Join(dir, name), nil
}

// removeFile removes the scratch file at path, if it is there.
func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove search index build: %w", err)
	}
	return nil
}
