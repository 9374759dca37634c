package projector

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
	"github.com/tape-dev/tape/testkit/short"
)

func sameAsRebuild(t *testing.T, ws *tapelog.Workspace, p *Projector, words ...string) {
	t.Helper()
	if got, want := dump(t, p, words), rebuiltDump(t, ws, words); got != want {
		t.Fatalf("incremental index differs from a rebuild:\n%s\n---\n%s", got, want)
	}
}

// A file that cannot be read loses its rows, as in a rebuild, and is read
// whole once it can be read again.
func TestFileUnreadableThenReadable(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "narwhal one")
	appendMsg(t, ws, "main", "narwhal two")
	p := openProjector(t, ws)
	catchUp(t, p)
	file := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start/messages.jsonl")
	kept := file + ".kept"
	if err := os.Rename(file, kept); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside.jsonl")
	os.WriteFile(outside, []byte(`{"role":"user","content":"secret"}`+"\n"), 0o600)
	if err := os.Symlink(outside, file); err != nil { // unreadable: it leads out of the workspace
		t.Fatal(err)
	}
	catchUp(t, p)
	sameAsRebuild(t, ws, p, "narwhal", "secret")
	os.Remove(file)
	if err := os.Rename(kept, file); err != nil {
		t.Fatal(err)
	}
	catchUp(t, p)
	hits, err := p.Search(context.Background(), SearchQuery{Text: "narwhal"})
	if err != nil || len(hits) != 2 {
		t.Errorf("after the file is readable again, search finds %d entries (%v), want 2", len(hits), err)
	}
	sameAsRebuild(t, ws, p, "narwhal", "secret")
}

// An anchor.json that could not be read is read again every pass: fixing it
// may change neither its size, nor its mtime, nor its inode.
func TestBadAnchorFixedInPlace(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	dir := filepath.Join(ws.Dir(), "tapes/main/anchors/002_plan")
	bad := `{"kind":"anchor","payload":{"name":"plan","state":{"goal":"armadillo"}}` // one brace short
	good := bad + "}"
	writeFileAt(t, filepath.Join(dir, "anchor.json"), bad+" ")
	p := openProjector(t, ws)
	catchUp(t, p)
	fi, _ := os.Stat(filepath.Join(dir, "anchor.json"))
	f, err := os.OpenFile(filepath.Join(dir, "anchor.json"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte(good), 0) // same size, in place
	f.Close()
	os.Chtimes(filepath.Join(dir, "anchor.json"), fi.ModTime(), fi.ModTime())
	catchUp(t, p)
	if !found(t, p, "armadillo") {
		t.Error("the fixed anchor's state is not searchable")
	}
	sameAsRebuild(t, ws, p, "armadillo")
}

// An edit in place that keeps the file's size and its mtime too (touch
// -r, a restore, a sync tool) is seen without a watcher: its ctime,
// which no one can set, changed. Issue 29 found it never indexed.
func TestEditInPlaceKeepingMtimeIsSeen(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsgs(t, ws, "main", []string{"the walrus said hello", "and the carpenter"})
	p := openProjector(t, ws)
	catchUp(t, p)
	file := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start/messages.jsonl")
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(data), "walrus")
	copy(data[i:], "zebras")
	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if now, err := os.Stat(file); err != nil || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("the edit changed the size or mtime: %v", err)
	}
	catchUp(t, p)
	if found(t, p, "walrus") || !found(t, p, "zebras") {
		t.Error("an edit in place that kept size and mtime is not in the index")
	}
	sameAsRebuild(t, ws, p, "walrus", "zebras")
}

// An edit in place in the middle of a file, keeping its size, is seen.
func TestEditInPlaceIsSeen(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	for i := range 60 {
		appendMsg(t, ws, "main", "filler "+strings.Repeat("x", 200)+itoa(i))
	}
	appendMsg(t, ws, "main", "the walrus said hello")
	for i := range 60 {
		appendMsg(t, ws, "main", "filler "+strings.Repeat("y", 200)+itoa(i))
	}
	p := openProjector(t, ws)
	catchUp(t, p)
	file := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start/messages.jsonl")
	data, _ := os.ReadFile(file)
	i := strings.Index(string(data), "walrus")
	if i < 8192 || i > len(data)-8192 {
		t.Fatalf("the edit at %d of %d is not in the middle of the file", i, len(data))
	}
	copy(data[i:], "zebras")
	os.WriteFile(file, data, 0o600)
	catchUp(t, p)
	if found(t, p, "walrus") || !found(t, p, "zebras") {
		t.Error("the edit in place is not in the index")
	}
	sameAsRebuild(t, ws, p, "walrus", "zebras")
}

// Dates beyond what nanoseconds in an int64 hold (after 2262) sort the same
// incrementally and in a rebuild.
func TestFarDates(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	dir := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start")
	appendRaw(t, filepath.Join(dir, "a.jsonl"), `{"id":"A1","kind":"note","payload":{},"date":"2300-01-01T00:00:00Z"}`+"\n")
	p := openProjector(t, ws)
	catchUp(t, p)
	appendRaw(t, filepath.Join(dir, "b.jsonl"), `{"id":"B1","kind":"note","payload":{},"date":"2000-01-01T00:00:00Z"}`+"\n")
	appendRaw(t, filepath.Join(dir, "a.jsonl"), `{"id":"A2","kind":"note","payload":{},"date":"2026-01-01T00:00:00Z"}`+"\n"+
		`{"id":"A3","kind":"note","payload":{},"date":"1500-01-01T00:00:00Z"}`+"\n")
	catchUp(t, p)
	sameAsRebuild(t, ws, p)
	entries, _, err := p.Entries(context.Background(), EntryFilter{Tape: "main"})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range entries {
		order = append(order, e.ID)
	}
	if got := strings.Join(order[1:], " "); got != "B1 A1 A2 A3" {
		t.Errorf("order = %s, want B1 A1 A2 A3", got)
	}
}

// A pass that is cancelled, or fails, returns at once and lets go of the
// index lock.
func TestCancelledPassReturns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/.tape"
	if _, err := corpus.Generate(dir, corpus.Options{Entries: short.Sized(2000, 600), PerAnchor: 2, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	ws, err := tapelog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	p := openProjector(t, ws)
	for _, after := range []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond, 80 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), after)
		done := make(chan error, 1)
		go func() { _, err := p.Rebuild(ctx); done <- err }()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("cancelled after %s: %v", after, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("a pass cancelled after %s did not return", after)
		}
		cancel()
	}
	catchUp(t, p) // the lock is free again
}

func writeFileAt(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A file named with a tab or a newline is tracked, and dropped when it is
// deleted, like any other.
func TestOddFileNames(t *testing.T) {
	t.Parallel() // long, on a workspace of its own (0074)
	for _, name := range []string{"a\tb.jsonl", "a\nb.jsonl", `a"b\c.jsonl`} {
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			ws := newWorkspace(t)
			appendMsg(t, ws, "main", "narwhal one")
			dir := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start")
			writeFileAt(t, filepath.Join(dir, name), `{"kind":"message","payload":{"role":"user","content":"walrus"}}`+"\n")
			p := openProjector(t, ws)
			catchUp(t, p)
			sameAsRebuild(t, ws, p, "narwhal", "walrus")
			os.Remove(filepath.Join(dir, name))
			catchUp(t, p)
			sameAsRebuild(t, ws, p, "narwhal", "walrus")
		})
	}
}

// A workspace whose path holds characters that mean something in a file:
// URI ('#' ends the path, '?' starts the query, '%' an escape) keeps its
// index, and the build beside it, inside it: a folder named "C#" had its
// index opened at "C".
func TestWorkspacePathWithURICharacters(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "C# 100%25?_txlock=immediate&x#y")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ws, _, err := tapelog.Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	appendMsg(t, ws, "main", "escaped words")
	p := openProjector(t, ws)
	for _, pass := range []func(context.Context) (Stats, error){p.CatchUp, p.Rebuild} {
		if _, err := pass(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !found(t, p, "escaped") {
			t.Fatal("the entry is not searchable")
		}
	}
	names, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 {
		t.Errorf("files beside the workspace: %v; want only the workspace", names)
	}
	if _, err := os.Stat(ws.Abs(IndexFile)); err != nil {
		t.Errorf("no index in the workspace: %v", err)
	}
}
