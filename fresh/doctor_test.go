package fresh

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsnotify/fsnotify"

	"github.com/tape-dev/tape/internal/fileutil"
	"github.com/tape-dev/tape/internal/fts5"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// lyingWatcher holds watch.lock and answers every reader's barrier at
// once, without catching anything up: a watcher of another index, as
// issue 29 found one (its generation check is what it lacks).
func lyingWatcher(t *testing.T, ws *tapelog.Workspace) {
	t.Helper()
	lock, err := ws.OpenPrivate(watchLockFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := fileutil.Lock(lock); err != nil {
		t.Fatal(err)
	}
	if err := ws.MkdirPrivate(syncDir); err != nil {
		t.Fatal(err)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Add(ws.Abs(syncDir)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range fw.Events {
			if ev.Has(fsnotify.Create) {
				os.Remove(ev.Name)
			}
		}
	}()
	t.Cleanup(func() {
		fw.Close()
		<-done
		lock.Close()
	})
}

// Doctor reports an index a running watcher said was caught up and is
// not; without a watcher, lag is no problem, only counted.
func TestDoctorReportsLagAWatcherLeft(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsgs(t, ws, "main", []string{"okapi", "zebra"})
	p := openProjector(t, ws)
	catchUp(t, p)
	if d := diagnose(t, p); len(d.Problems) != 0 || d.Lag.LagBytes != 0 {
		t.Fatalf("a caught-up index: problems %v, lag %+v; want none", d.Problems, d.Lag)
	}

	e := appendMsg(t, ws, "main", "quokka")
	d := diagnose(t, p)
	if len(d.Problems) != 0 {
		t.Errorf("lag without a watcher: problems %v; want none (the next read catches up)", d.Problems)
	}
	if d.Lag.Files != 1 || d.Lag.LagBytes <= int64(len(e.ID)) {
		t.Errorf("lag after one append = %+v; want one file's new line", d.Lag)
	}

	lyingWatcher(t, ws)
	lagged := problemsOf(diagnose(t, p), CheckIndexLag)
	if len(lagged) != 1 || !strings.Contains(lagged[0].Problem, "has not read") || !strings.Contains(lagged[0].Fix, "tape reindex") {
		t.Fatalf("index_lag problems with a watcher that answers without catching up = %+v; want one, with the fix", lagged)
	}

	removeIndex(t, ws.Dir())
	empty := openProjector(t, ws)
	lagged = problemsOf(diagnose(t, empty), CheckIndexLag)
	if len(lagged) != 1 || !strings.Contains(lagged[0].Problem, "the index is empty") {
		t.Errorf("index_lag problems of an empty index such a watcher answers for = %+v; want one saying it is empty", lagged)
	}
}

// The index_lag problem names the watcher's pid when watch.lock does.
func TestLagProblemNamesTheWatcher(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "okapi")
	p := openProjector(t, ws)
	catchUp(t, p)
	appendMsg(t, ws, "main", "zebra")
	tests := []struct {
		w    watcherAnswer
		want string // in the problem; "" for no problem
	}{
		{watcherAnswer{}, ""},
		{watcherAnswer{pid: 4242}, ""},
		{watcherAnswer{synced: true}, "though a tape watch runs and answered"},
		{watcherAnswer{synced: true, pid: 4242}, "though a tape watch (pid 4242) runs and answered"},
	}
	for _, tt := range tests {
		d, err := examine(context.Background(), p, tt.w)
		if err != nil {
			t.Fatal(err)
		}
		lagged := problemsOf(d, CheckIndexLag)
		switch {
		case tt.want == "" && len(lagged) != 0:
			t.Errorf("%+v: index_lag problems %+v; want none", tt.w, lagged)
		case tt.want != "" && (len(lagged) != 1 || !strings.Contains(lagged[0].Problem, tt.want) || lagged[0].Path != projector.IndexFile):
			t.Errorf("%+v: index_lag problems %+v; want one at %s holding %q", tt.w, lagged, projector.IndexFile, tt.want)
		}
	}
}

// Doctor names the files a killed build left (projector's
// TestKilledBuildsNamesWhatAKilledPassLeft checks that it names none
// while a pass runs).
func TestDoctorReportsAKilledBuild(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "okapi")
	p := openProjector(t, ws)
	catchUp(t, p)
	if err := os.WriteFile(ws.Abs(fts5.BuildFile(1)), []byte("words"), 0o600); err != nil {
		t.Fatal(err)
	}
	left := problemsOf(diagnose(t, p), tapelog.CheckTempFile)
	if len(left) != 1 || left[0].Path != fts5.BuildFile(1) || !strings.Contains(left[0].Fix, "tape reindex") {
		t.Errorf("temp_file problems = %+v; want %s", left, fts5.BuildFile(1))
	}
}

// Doctor reports the anchor folders the index holds and the disk no
// longer does, in tape order: by sequence number, not by name.
func TestDoctorReportsGoneFoldersInTapeOrder(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "okapi")
	anchors := filepath.Join(ws.Dir(), "tapes/main/anchors")
	for _, folder := range []string{"9_nine", "10_ten"} {
		if err := os.Mkdir(filepath.Join(anchors, folder), 0o700); err != nil {
			t.Fatal(err)
		}
		appendRaw(t, filepath.Join(anchors, folder, "messages.jsonl"), rawLine)
	}
	p := openProjector(t, ws)
	catchUp(t, p)
	if d := diagnose(t, p); len(d.Problems) != 0 {
		t.Fatalf("a caught-up index: problems %v; want none", d.Problems)
	}
	for _, folder := range []string{"10_ten", "9_nine"} {
		if err := os.RemoveAll(filepath.Join(anchors, folder)); err != nil {
			t.Fatal(err)
		}
	}
	var gone []string
	for _, pr := range problemsOf(diagnose(t, p), tapelog.CheckIndexDrift) {
		if strings.HasSuffix(pr.Problem, "anchor folder, which is gone") {
			gone = append(gone, pr.Path)
		}
	}
	want := []string{"tapes/main/anchors/9_nine", "tapes/main/anchors/10_ten"}
	if !slices.Equal(gone, want) {
		t.Errorf("gone folders = %q; want %q", gone, want)
	}
}

func diagnose(t *testing.T, p *projector.Projector) *Diagnosis {
	t.Helper()
	d, err := Doctor(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func problemsOf(d *Diagnosis, check string) []tapelog.Problem {
	var found []tapelog.Problem
	for _, p := range d.Problems {
		if p.Check == check {
			found = append(found, p)
		}
	}
	return found
}
