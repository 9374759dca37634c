package importer

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tape-dev/tape/importer/claude"
)

// find lists every transcript under the folders given once, sorted, at
// any depth and in more project folders than walk walks at once; it
// follows a folder given that is a symbolic link, and no link inside.
func TestFindListsEveryTranscriptOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "projects")
	var want []string
	touch := func(rel string, transcript bool) {
		t.Helper()
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if transcript {
			want = append(want, filepath.Join(dir, "linked", rel))
		}
	}
	touch("top.jsonl", true)
	touch("notes.txt", false)
	for _, project := range []string{"-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-i"} {
		touch(project+"/s1.jsonl", true)
		touch(project+"/s2.jsonl", true)
		touch(project+"/s1/subagents/agent-1.jsonl", true)
		touch(project+"/s1/subagents/agent-1.meta.json", false)
	}
	outside := filepath.Join(dir, "outside")
	if err := os.MkdirAll(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "x.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(src, "-a", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)

	im := New(newWorkspace(t, t.TempDir()), claude.Source{})
	im.Warn = func(err error) { t.Errorf("warning: %v", err) }
	linked := filepath.Join(dir, "linked")
	got, err := im.find([]string{linked, linked + "/-b"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("found %d transcripts:\n%q\nwant %d:\n%q", len(got), got, len(want), want)
	}
}
