package importer

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/tape-dev/tape/importer/mirrorfile/mirrortest"

	"github.com/fsnotify/fsnotify"

	"github.com/tape-dev/tape/importer/aider"
	"github.com/tape-dev/tape/importer/source"
)

// A source.Pruner's folders are left out of the walk for its transcripts
// and of the follower's watches: Aider's histories under .git and
// node_modules are not looked for, those deeper in a project are.
func TestWalkAndWatchLeavePrunedFoldersOut(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	touch := func(rel string) string { return mirrortest.Touch(t, root, rel) }
	want := []string{touch("app/" + aider.ChatHistory), touch("app/" + aider.InputHistory), touch("org/team/a/b/svc/" + aider.ChatHistory)}
	touch("app/node_modules/pkg/" + aider.ChatHistory)
	touch("app/.git/x/" + aider.ChatHistory)
	touch("node_modules/" + aider.ChatHistory)
	slices.Sort(want)
	im := New(newWorkspace(t, t.TempDir()), aider.Source{})
	got, err := im.find([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}

	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	st := &followState{watcher: w, watched: map[string]bool{}, owner: map[string]source.Source{root: aider.Source{}}}
	f := &Follower{Warn: func(err error) { t.Errorf("follower: %v", err) }}
	f.watchTree(st, root, root, nil)
	for dir := range st.watched {
		if base := filepath.Base(dir); base == "node_modules" || base == ".git" {
			t.Errorf("a watch on %s", dir)
		}
	}
	if !st.watched[filepath.Join(root, "org/team/a/b/svc")] {
		t.Errorf("no watch on a project's folder: %v", st.watched)
	}
}
