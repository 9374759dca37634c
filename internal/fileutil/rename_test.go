package fileutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRenameNoReplace: a folder is renamed to a free name, and refused,
// with nothing moved, when the name is a folder (even an empty one,
// which rename(2) would replace), a file or a symlink.
func TestRenameNoReplace(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	mk("src/inside")
	mk("empty")
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, taken := range []string{"empty", "file", "link"} {
		err := RenameNoReplace(d, "src", taken)
		if errors.Is(err, ErrNoReplaceUnsupported) {
			t.Fatalf("this system cannot refuse to replace: %v", err)
		}
		if !errors.Is(err, fs.ErrExist) {
			t.Errorf("rename onto %s: %v; want an error matching fs.ErrExist", taken, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "src", "inside")); err != nil {
		t.Fatalf("the source moved: %v", err)
	}
	if err := RenameNoReplace(d, "src", "free"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "free", "inside")); err != nil {
		t.Errorf("after the rename: %v", err)
	}
}
