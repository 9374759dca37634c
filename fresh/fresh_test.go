package fresh

import (
	"context"
	"testing"
)

// A read asks Reading.StartWatcher for a watcher when none runs, before
// it catches up itself, whether it reads after the catch-up (Freshen) or
// beside it (Read); with a watcher running it syncs and asks for
// none.
func TestReadsStartAWatcherOnlyWhenNoneRuns(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	starts := 0
	r := Reading{StartWatcher: func() { starts++ }}
	read := func() (bool, error) { return true, nil }
	// A new index is built by the first read, which asks for a watcher too.
	if err := Freshen(context.Background(), openProjector(t, ws), r); err != nil {
		t.Fatal(err)
	}
	if starts != 1 {
		t.Fatalf("the read that built the index asked for %d watchers, want 1", starts)
	}
	starts = 0
	p := openProjector(t, ws) // an index that is not new: reads sync or catch up

	if err := Freshen(context.Background(), p, r); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(context.Background(), p, r, read); err != nil {
		t.Fatal(err)
	}
	if starts != 2 {
		t.Fatalf("with no watcher, two reads asked for %d watchers, want 2", starts)
	}

	stop := startWatcher(t, openProjector(t, ws))
	defer stop()
	appendMsg(t, ws, "main", "wombat")
	if err := Freshen(context.Background(), p, r); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(context.Background(), p, r, read); err != nil {
		t.Fatal(err)
	}
	if starts != 2 {
		t.Errorf("with a watcher running, reads asked for %d more", starts-2)
	}
	if !found(t, p, "wombat") {
		t.Error("a read synced with the watcher does not see what was written before it")
	}
}
