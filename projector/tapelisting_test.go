package projector

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A tape's anchors folder that did not change since it was listed is not
// listed again: a pass takes its folders from the listing it kept. A new,
// renamed or removed folder changes it, as does a chmod, and a change whose
// mtime was set back (its ctime still moves); a symlink among its folders,
// or a change within racyWindow, makes it listed every time, and then no
// listing is kept, so a pass with nothing new still writes nothing.
func TestCatchUpSkipsUnchangedAnchorsFolders(t *testing.T) {
	t.Parallel() // long, on a workspace of its own (0074)
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "one")
	anchors := filepath.Join(ws.Dir(), "tapes/main/anchors")
	old := time.Now().Add(-time.Hour)
	p := openProjector(t, ws)
	// backdate sets the times of the anchors folder, and of the anchor
	// folders in it, an hour back: always the same, so that only their
	// ctimes tell a change made since.
	backdate := func() {
		t.Helper()
		folders, _ := filepath.Glob(filepath.Join(anchors, "*"))
		for _, d := range append(folders, anchors) {
			if fi, err := os.Lstat(d); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				continue // its target's times are not the anchors folder's business
			}
			if err := os.Chtimes(d, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	kept := func() int {
		t.Helper()
		var n int
		if err := p.db.QueryRow(`SELECT count(*) FROM tape_listings`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	catchUp(t, p)
	// Both folders changed just now: their listings cannot be trusted yet
	// (racyWindow), so both are listed again.
	if st := catchUp(t, p); st.TapesListed != 1 || st.Listed != 1 || kept() != 0 {
		t.Fatalf("catch-up of folders changed just now: %+v, %d listings kept; want the anchors folder and the anchor folder listed, and no listing kept", st, kept())
	}

	backdate()
	if st := catchUp(t, p); st.TapesListed != 1 {
		t.Fatalf("first catch-up of the settled folder: %+v; want it listed", st)
	}
	if st := catchUp(t, p); st.TapesListed != 0 || st.ops != 0 || kept() != 1 {
		t.Fatalf("catch-up with nothing new: %+v, %d listings kept; want no listing, nothing written, and the listing kept", st, kept())
	}
	check := func(what string, wantEntries, wantRemoved int) {
		t.Helper()
		st := catchUp(t, p)
		if st.TapesListed != 1 || st.Entries != wantEntries || st.Removed != wantRemoved {
			t.Errorf("catch-up after %s: %+v; want the anchors folder listed, %d entries added and %d removed", what, st, wantEntries, wantRemoved)
		}
		if got, want := dump(t, p, []string{"one", "two"}), rebuiltDump(t, ws, []string{"one", "two"}); got != want {
			t.Errorf("after %s the index differs from a rebuild:\n%s\n---\n%s", what, got, want)
		}
		backdate()
		catchUp(t, p) // keeps the listing of the settled folder
	}

	// A folder made by hand, with the anchors folder's times set back.
	folder := filepath.Join(anchors, "002_by-hand")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, filepath.Join(folder, "messages.jsonl"), `{"role":"user","content":"two"}`+"\n")
	backdate()
	check("a new folder, the anchors folder's mtime set back", 2, 0) // the anchor entry, and the message

	if err := os.Rename(folder, filepath.Join(anchors, "003_renamed")); err != nil {
		t.Fatal(err)
	}
	check("a renamed folder", 2, 2)

	if err := os.RemoveAll(filepath.Join(anchors, "003_renamed")); err != nil {
		t.Fatal(err)
	}
	check("a removed folder", 0, 2)

	if err := os.Chmod(anchors, 0o750); err != nil {
		t.Fatal(err)
	}
	check("a chmod", 0, 0)
	if st := catchUp(t, p); st.TapesListed != 0 {
		t.Errorf("catch-up after that: %+v; want no listing", st)
	}

	if err := os.Symlink("001_session-start", filepath.Join(anchors, "004_link")); err != nil {
		t.Fatal(err)
	}
	backdate()
	st := catchUp(t, p)
	if st.TapesListed != 1 || st.Entries == 0 {
		t.Fatalf("catch-up after a symlinked folder: %+v; want it listed and its entries added", st)
	}
	if st := catchUp(t, p); st.TapesListed != 1 || st.ops != 0 || kept() != 0 {
		t.Errorf("catch-up with a symlinked folder and nothing new: %+v, %d listings kept; want the anchors folder listed again, nothing written, and no listing kept", st, kept())
	}
	// A symlink whose target is not a folder yet: when it becomes one, the
	// anchors folder does not change, but a rebuild would index it.
	if err := os.Symlink("../../../later", filepath.Join(anchors, "005_later")); err != nil {
		t.Fatal(err)
	}
	backdate()
	catchUp(t, p)
	later := filepath.Join(ws.Dir(), "later")
	if err := os.Mkdir(later, 0o700); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, filepath.Join(later, "messages.jsonl"), `{"role":"user","content":"two, later"}`+"\n")
	if st := catchUp(t, p); st.Entries != 2 {
		t.Errorf("catch-up after a symlink's target became a folder: %+v; want its 2 entries", st)
	}
	if got, want := dump(t, p, []string{"one", "two"}), rebuiltDump(t, ws, []string{"one", "two"}); got != want {
		t.Errorf("with symlinked folders the index differs from a rebuild:\n%s\n---\n%s", got, want)
	}
}

// A deleted tape takes its kept listing with it, in a catch-up and in a
// rebuild: a listing left behind would name a tape that no longer is, and
// every later pass would drop it again, so none would find nothing new.
func TestDeletedTapeForgetsItsListing(t *testing.T) {
	t.Parallel()
	for _, rebuild := range []bool{false, true} {
		t.Run(fmt.Sprintf("rebuild=%v", rebuild), func(t *testing.T) {
			ws := newWorkspace(t)
			appendMsg(t, ws, "main", "kept")
			appendMsg(t, ws, "side", "gone")
			p := openProjector(t, ws)
			var s settler
			s.settle(ws)
			catchUp(t, p)
			if n := countRows(t, p, "tape_listings"); n != 2 {
				t.Fatalf("%d listings kept, want 2", n)
			}
			if err := os.RemoveAll(filepath.Join(ws.Dir(), "tapes/side")); err != nil {
				t.Fatal(err)
			}
			s.settle(ws)
			if rebuild {
				if _, err := p.Rebuild(context.Background()); err != nil {
					t.Fatal(err)
				}
			} else {
				catchUp(t, p)
			}
			if n := countRows(t, p, "tape_listings"); n != 1 {
				t.Errorf("%d listings kept after the tape was deleted, want 1", n)
			}
			catchUp(t, p) // finds nothing new, and writes the state record
			if st := catchUp(t, p); st.ops != 0 || p.ReadStateRecord(context.Background()) == nil {
				t.Errorf("catch-up with nothing new: %+v, %d ops; want none, and a state record", st, st.ops)
			}
		})
	}
}

func countRows(t *testing.T, p *Projector, table string) int {
	t.Helper()
	var n int
	if err := p.db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A FIFO where a tape's anchors folder should be is a tape that cannot be
// read, recorded as one; it must not block the catch-up, which opened it
// for reading and waited for a writer that never came.
func TestAnchorsFIFODoesNotBlock(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "kept")
	fifo := filepath.Join(ws.Dir(), "tapes/pipe/anchors")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	p := openProjector(t, ws)
	done := make(chan error, 1)
	go func() { _, err := p.CatchUp(context.Background()); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("catch-up: %v", err)
		}
	case <-time.After(10 * time.Second):
		// Open it for writing, so the blocked open returns and the test ends.
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("the catch-up blocked on a FIFO named anchors")
	}
	bad, err := p.BadLines(context.Background(), "pipe", nil)
	if err != nil || len(bad) != 1 || bad[0].Path != "tapes/pipe/anchors" {
		t.Errorf("bad lines of the tape: %v, %v; want its anchors folder, which cannot be listed", bad, err)
	}
	if hits, err := p.Search(context.Background(), SearchQuery{Text: "kept"}); err != nil || len(hits) != 1 {
		t.Errorf("search of the other tape: %d hits, %v", len(hits), err)
	}
}
