package fileutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func openRoot(t *testing.T) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

func TestWriteFileReplacesAtomically(t *testing.T) {
	root, dir := openRoot(t)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, content := range []string{"first\n", "second, longer\n", "3\n"} {
		if err := WriteFile(root, "sub/config.json", []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "sub/config.json"))
		if err != nil || string(got) != content {
			t.Errorf("after WriteFile(%q) the file holds %q, %v", content, got, err)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "sub/config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
	if len(entries) != 1 {
		t.Errorf("folder holds %d files after three rewrites, want 1 (no temp files left)", len(entries))
	}
}

func TestWriteFileFailureLeavesOldContent(t *testing.T) {
	root, dir := openRoot(t)
	if err := WriteFile(root, "f", []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A folder where the file should go makes the rename fail.
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d", "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(root, "d", []byte("new"), 0o600); err == nil {
		t.Fatal("WriteFile over a non-empty folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			t.Errorf("temp file %s left after a failed write", e.Name())
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f")); string(got) != "old" {
		t.Errorf("f = %q, want old", got)
	}
}

func TestWriteFileStaysInRoot(t *testing.T) {
	root, _ := openRoot(t)
	if err := WriteFile(root, "../escape", []byte("x"), 0o600); err == nil {
		t.Error("WriteFile(../escape) succeeded; names must not leave the root")
	}
}

func TestLockExcludesOtherDescriptors(t *testing.T) {
	root, dir := openRoot(t)
	name := "locked"
	if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := root.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := root.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := Lock(a); err != nil {
		t.Fatal(err)
	}
	if ok, err := TryLock(b); ok || err != nil {
		t.Fatalf("TryLock of a second descriptor = %v, %v while the first holds the lock; want false, nil", ok, err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if ok, err := TryLock(b); !ok || err != nil {
		t.Fatalf("TryLock after Unlock = %v, %v; want true", ok, err)
	}
	if ok, _ := TryLock(a); ok {
		t.Fatal("the first descriptor took the lock the second holds")
	}
	if ok, err := TryLockShared(a); ok || err != nil {
		t.Fatalf("TryLockShared while another descriptor holds the lock = %v, %v; want false, nil", ok, err)
	}
	if err := Unlock(b); err != nil {
		t.Fatal(err)
	}
	if ok, err := TryLockShared(a); !ok || err != nil {
		t.Fatalf("TryLockShared of a free lock = %v, %v; want true", ok, err)
	}
	if ok, _ := TryLock(b); ok {
		t.Fatal("an exclusive lock was taken while a shared one is held")
	}
}
