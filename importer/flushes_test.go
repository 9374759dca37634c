package importer

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tape-dev/tape/importer/claude"
)

func TestFlushJournalKeepsWhatACheckpointDoesNotCover(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws := newWorkspace(t, dir)
	gone := filepath.Join(dir, "gone.jsonl")
	kept := filepath.Join(dir, "kept.jsonl")
	if err := os.WriteFile(kept, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	a, b, c := "/t/a.jsonl", "/t/b \"odd\"\nname.jsonl", "/t/c.jsonl"
	j := newFlushJournal(ws, claude.Source{}, false)
	for _, p := range []struct {
		path string
		ino  uint64
		line int
	}{{a, 7, 3}, {a, 7, 9}, {a, 7, 20}, {a, 7, 30}, {b, 8, 5}, {c, 9, 4}, {gone, 1, 2}, {kept, 2, 2}, {a, 7, 9}} {
		if err := j.record(p.path, p.ino, p.line); err != nil {
			t.Fatal(err)
		}
	}
	j.close()
	cp := emptyCheckpoints()
	cp.Files[a] = &checkpoint{Ino: 7, Line: 25} // past 3, 9 and 20: 20 stays, 30 is after it
	cp.Files[b] = &checkpoint{Ino: 8, Line: 1}  // 5 is after it
	cp.Files[c] = &checkpoint{Ino: 10, Line: 1} // another file now
	if err := j.prune(cp); err != nil {
		t.Fatal(err)
	}
	read := newFlushJournal(ws, claude.Source{}, false)
	for _, tc := range []struct {
		path string
		ino  uint64
		from int
		want []int
	}{
		{a, 7, 0, []int{20, 30}},
		{a, 7, 20, []int{30}},
		{a, 6, 0, nil},
		{b, 8, 0, []int{5}},
		{c, 9, 0, nil},
		{gone, 1, 0, nil},
		{kept, 2, 0, []int{2}},
	} {
		got, err := read.after(tc.path, tc.ino, tc.from)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q inode %d after line %d: %v; want %v", tc.path, tc.ino, tc.from, got, tc.want)
		}
	}
	if err := read.forget(a); err != nil {
		t.Fatal(err)
	}
	cp = emptyCheckpoints()
	if err := read.prune(cp); err != nil {
		t.Fatal(err)
	}
	if got, _ := newFlushJournal(ws, claude.Source{}, false).after(a, 7, 0); got != nil {
		t.Errorf("a transcript forgotten keeps its flushes: %v", got)
	}
	fi, err := os.Stat(ws.Abs(flushesPath(claude.Source{})))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the journal is %v; want private to its owner", fi.Mode().Perm())
	}
}

func TestFlushJournalSkipsLinesItCannotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws := newWorkspace(t, dir)
	body := "1 2 \"/a\"\nnot a line\n3 0 \"/a\"\n4 x \"/a\"\n5 6 /unquoted\n1 4 \"/a\"\n1 4 \"/a\""
	if err := ws.WritePrivate(flushesPath(claude.Source{}), []byte(body)); err != nil {
		t.Fatal(err)
	}
	j := newFlushJournal(ws, claude.Source{}, false)
	got, err := j.after("/a", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []int{2, 4}) || !j.stale {
		t.Fatalf("read %v (stale %v); want [2 4], and the journal marked to be written again", got, j.stale)
	}
}

func FuzzFlushLine(f *testing.F) {
	f.Add("1 2 \"/a b\"\n")
	f.Add("18446744073709551615 9 \"\\u00e9\"")
	f.Add("1 -2 \"x\"")
	f.Fuzz(func(t *testing.T, line string) {
		path, p, ok := parseFlushLine([]byte(line))
		if !ok {
			return
		}
		if p.line <= 0 {
			t.Fatalf("%q read as line %d", line, p.line)
		}
		again, q, ok := parseFlushLine([]byte(formatFlushLine(path, p)))
		if !ok || again != path || q != p {
			t.Fatalf("%q: %q %+v written and read back as %q %+v (%v)", line, path, p, again, q, ok)
		}
	})
}

// A transcript forgotten before anything read the journal (the first of a
// run) loses its lines all the same.
func TestFlushJournalForgetsBeforeItIsRead(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, t.TempDir())
	j := newFlushJournal(ws, claude.Source{}, false)
	if err := j.record("/t/a.jsonl", 7, 3); err != nil {
		t.Fatal(err)
	}
	j.close()
	fresh := newFlushJournal(ws, claude.Source{}, false)
	if err := fresh.forget("/t/a.jsonl"); err != nil {
		t.Fatal(err)
	}
	if got, _ := fresh.after("/t/a.jsonl", 7, 0); got != nil {
		t.Errorf("forgotten, and still %v", got)
	}
}
