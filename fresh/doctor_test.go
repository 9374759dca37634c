package fresh

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/fsnotify/fsnotify"

	"github.com/tape-dev/tape/internal/fileutil"
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
	lagged := problemsOf(diagnose(t, p), projector.CheckIndexLag)
	if len(lagged) != 1 || !strings.Contains(lagged[0].Problem, "has not read") || !strings.Contains(lagged[0].Fix, "tape reindex") {
		t.Fatalf("index_lag problems with a watcher that answers without catching up = %+v; want one, with the fix", lagged)
	}

	removeIndex(t, ws.Dir())
	empty := openProjector(t, ws)
	lagged = problemsOf(diagnose(t, empty), projector.CheckIndexLag)
	if len(lagged) != 1 || !strings.Contains(lagged[0].Problem, "the index is empty") {
		t.Errorf("index_lag problems of an empty index such a watcher answers for = %+v; want one saying it is empty", lagged)
	}
}

func diagnose(t *testing.T, p *projector.Projector) *projector.Diagnosis {
	t.Helper()
	d, err := Doctor(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func problemsOf(d *projector.Diagnosis, check string) []tapelog.Problem {
	var found []tapelog.Problem
	for _, p := range d.Problems {
		if p.Check == check {
			found = append(found, p)
		}
	}
	return found
}
