package fts5

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A build is made of 1 to MaxParts parts, in runs of at least one rowid.
func TestNewBuildOutOfRange(t *testing.T) {
	for _, tc := range []struct {
		name  string
		parts int
		block int64
	}{
		{"no part", 0, 1},
		{"too many parts", MaxParts + 1, 1},
		{"empty blocks", 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if b, err := NewBuild(dir, tc.parts, tc.block); err == nil || !strings.Contains(err.Error(), "out of range") {
				t.Fatalf("NewBuild(%d parts, blocks of %d) = %v, %v; want an error saying out of range", tc.parts, tc.block, b, err)
			}
			if left := BuildsLeft(dir); len(left) != 0 {
				t.Fatalf("scratch files after a refused build: %v", left)
			}
		})
	}
}

// A build's scratch files are private while it lasts and gone after
// Close; one that finds a file in its way fails and leaves none of its
// own.
func TestBuildScratchFiles(t *testing.T) {
	dir := t.TempDir()
	b, err := NewBuild(dir, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{BuildFile(0), BuildFile(1), BuildFile(2)}
	if got := BuildsLeft(dir); !slices.Equal(got, want) {
		t.Fatalf("BuildsLeft = %v; want %v", got, want)
	}
	for _, name := range want {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v; want 0600", name, fi.Mode().Perm())
		}
	}
	if _, err := NewBuild(dir, 2, 1); err == nil {
		t.Fatal("a second build over the first's files did not fail")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if left := BuildsLeft(dir); len(left) != 0 {
		t.Fatalf("scratch files after Close: %v", left)
	}
	if err := os.WriteFile(filepath.Join(dir, BuildFile(1)), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewBuild(dir, 2, 1); err == nil {
		t.Fatal("a build with a file in the way of its part 1 did not fail")
	}
	if got := BuildsLeft(dir); !slices.Equal(got, []string{BuildFile(1)}) {
		t.Fatalf("after a failed build, BuildsLeft = %v; want only the file in the way", got)
	}
}

// RemoveBuilds removes every part's scratch file, however many parts the
// killed build had, and nothing else.
func TestRemoveBuilds(t *testing.T) {
	dir := t.TempDir()
	names := []string{"index.db", "index-build-9.db"}
	for k := range MaxParts {
		names = append(names, BuildFile(k))
	}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("left by a killed pass"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveBuilds(dir); err != nil {
		t.Fatal(err)
	}
	if left := BuildsLeft(dir); len(left) != 0 {
		t.Fatalf("scratch files after RemoveBuilds: %v", left)
	}
	for _, name := range names[:2] {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("RemoveBuilds removed %s: %v", name, err)
		}
	}
	if err := RemoveBuilds(dir); err != nil {
		t.Fatalf("RemoveBuilds with nothing to remove: %v", err)
	}
}
