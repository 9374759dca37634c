package projector

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

func TestCatchUpReadsOnlyWhatIsNew(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "first message about flush")
	p := openProjector(t, ws)
	st := catchUp(t, p)
	if st.Entries != 2 || st.FilesRead != 1 {
		t.Errorf("first catch-up: %+v; want 2 entries (anchor and message) from 1 file", st)
	}
	if st = catchUp(t, p); st.Entries != 0 || st.FilesRead != 0 {
		t.Errorf("catch-up with no change: %+v; want nothing read", st)
	}
	appendMsg(t, ws, "main", "second")
	st = catchUp(t, p)
	if st.Entries != 1 || st.FilesRead != 1 || st.Removed != 0 || st.Bytes > 300 {
		t.Errorf("catch-up after one append: %+v; want 1 entry and only its bytes read", st)
	}
	// A torn tail waits; once complete, it is read.
	file := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start/messages.jsonl")
	appendRaw(t, file, `{"role":"user","content":"ha`)
	if st = catchUp(t, p); st.Entries != 0 || st.BadLines != 0 {
		t.Errorf("catch-up with a torn tail: %+v; want it to wait", st)
	}
	appendRaw(t, file, "lf\"}\n")
	if st = catchUp(t, p); st.Entries != 1 {
		t.Errorf("catch-up after the tail completed: %+v; want 1 entry", st)
	}
	if got, want := dump(t, p, []string{"flush", "half"}), rebuiltDump(t, ws, []string{"flush", "half"}); got != want {
		t.Errorf("incremental index differs from a rebuild:\n%s\n---\n%s", got, want)
	}
	if !strings.Contains(dump(t, p, []string{"half"}), "messages.jsonl:3") && !strings.Contains(dump(t, p, []string{"half"}), "search half:\nmain") {
		t.Errorf("the completed line is not searchable:\n%s", dump(t, p, []string{"half"}))
	}
}

// A folder that did not change since it was listed is not listed again;
// its known files are only stat'ed. Appends are still seen, and a new or
// deleted file changes the folder, so it is listed.
func TestCatchUpSkipsUnchangedFolders(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "one")
	folder := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start")
	old := time.Now().Add(-time.Hour)
	backdate := func() {
		if err := os.Chtimes(folder, old, old); err != nil {
			t.Fatal(err)
		}
	}
	backdate()
	p := openProjector(t, ws)
	if st := catchUp(t, p); st.Listed != 1 {
		t.Fatalf("first catch-up listed %d folders, want 1", st.Listed)
	}
	appendMsg(t, ws, "main", "two") // appends do not change the folder
	st := catchUp(t, p)
	if st.Listed != 0 || st.Entries != 1 {
		t.Errorf("catch-up after an append: %+v; want the append read without listing", st)
	}
	appendRaw(t, filepath.Join(folder, "new.jsonl"), `{"role":"user","content":"three"}`+"\n") // a new file changes it
	if st := catchUp(t, p); st.Listed != 1 || st.Entries != 1 {
		t.Errorf("catch-up after a new file: %+v; want the folder listed and the entry read", st)
	}
	backdate()
	catchUp(t, p)
	if err := os.Remove(filepath.Join(folder, "new.jsonl")); err != nil {
		t.Fatal(err)
	}
	if st := catchUp(t, p); st.Listed != 1 || st.Removed != 1 {
		t.Errorf("catch-up after a deleted file: %+v; want the folder listed and the entry removed", st)
	}
	if got, want := dump(t, p, []string{"two", "three"}), rebuiltDump(t, ws, []string{"two", "three"}); got != want {
		t.Errorf("index differs from a rebuild:\n%s\n---\n%s", got, want)
	}
	backdate()
	catchUp(t, p)
	// A chmod changes only the folder's ctime: it may no longer be
	// listable, as a rebuild would find, so it is listed.
	if err := os.Chmod(folder, 0o750); err != nil {
		t.Fatal(err)
	}
	if st := catchUp(t, p); st.Listed != 1 {
		t.Errorf("catch-up after a chmod of the folder: %+v; want it listed", st)
	}
	if st := catchUp(t, p); st.Listed != 0 {
		t.Errorf("catch-up after that: %+v; want nothing listed", st)
	}
}

// A folder signature in a form this version cannot read (this one is the
// form of schema 5, whose names were not quoted) must not be taken for a
// folder with no files: that dropped every row of a settled folder.
func TestCatchUpDistrustsASignatureItCannotRead(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "kept message")
	folder := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(folder, old, old); err != nil {
		t.Fatal(err)
	}
	p := openProjector(t, ws)
	catchUp(t, p)
	// An index of that schema had no state record either.
	if _, err := p.DB().Exec(`UPDATE anchors SET files_sig = 'messages.jsonl' || char(9) || '1' || char(10); DELETE FROM state_record`); err != nil {
		t.Fatal(err)
	}
	st := catchUp(t, p)
	if st.Removed != 0 || st.Listed != 1 {
		t.Errorf("catch-up over an unreadable signature: %+v; want the folder listed and nothing removed", st)
	}
	if !found(t, p, "kept") {
		t.Error("the message is no longer searchable")
	}
	if got, want := dump(t, p, []string{"kept"}), rebuiltDump(t, ws, []string{"kept"}); got != want {
		t.Errorf("index differs from a rebuild:\n%s\n---\n%s", got, want)
	}
}

// Bad lines of every sort, a 10 MiB one among them, are recorded with
// their file and line, and the good lines around them are indexed.
func TestBadLinesAreRecorded(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	file := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start/events.jsonl")
	big := strings.Repeat("x", 10<<20)
	appendRaw(t, file, strings.Join([]string{
		`{"kind":"event","payload":{"name":"good one"}}`,
		`{"kind":"event","payload":{"name":"` + big, // 10 MiB, never closed
		"{\"kind\":\"event\",\"payload\":{\"name\":\"\xff\"}}",
		"{\"kind\":\"event\",\"payload\":{\"name\":\"a\x00b\"}}",
		`{"kind":"event","payload":{"name":"half"}}{"kind":"event","pay`,
		`{"kind":"event","payload":{"name":"good two ` + big[:1<<20] + `"}}`,
		`{"kind":"event","payload":{"name":"good three"}}`,
	}, "\n")+"\n")
	p := openProjector(t, ws)
	st := catchUp(t, p)
	if st.Entries != 4 || st.BadLines != 4 {
		t.Errorf("catch-up: %+v; want the anchor and 3 good entries, and 4 bad lines", st)
	}
	bad, err := p.BadLines(context.Background(), "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, b := range bad {
		lines = append(lines, b.Line)
		if !strings.HasSuffix(b.Path, "events.jsonl") || b.Reason == "" {
			t.Errorf("bad line %+v lacks its file or reason", b)
		}
	}
	if fmt.Sprint(lines) != "[2 3 4 5]" {
		t.Errorf("bad lines %v, want 2 3 4 5", lines)
	}
	for _, w := range []string{"one", "two", "three"} {
		if !found(t, p, w) {
			t.Errorf("good line %q not searchable", w)
		}
	}
	if data, _ := os.ReadFile(file); !strings.Contains(string(data), big) {
		t.Error("the projector changed the source file")
	}
}

// A folder's signature keeps the form indexes of this schema stored: a
// change of form would make every folder look changed once.
func TestSignatureForm(t *testing.T) {
	t.Parallel()
	mtime := time.Unix(1700000000, 123456789)
	files := []tapelog.FileInfo{
		{Name: "messages.jsonl", Size: 42, ModTime: mtime, ChangeNS: 1700000001000000000, Ino: 7, Dev: 2049},
		{Name: "odd\tname.jsonl", Size: 0, ModTime: mtime, ChangeNS: 1700000002000000000, Ino: 8, Dev: 2049},
		{Name: "gone.jsonl", Err: &tapelog.LineError{Reason: "cannot open"}},
		{Name: "locked.jsonl", Size: 9, ModTime: mtime, ChangeNS: 1700000003000000000, Ino: 9, Dev: 2049},
	}
	want := "\"messages.jsonl\"\t42\t1700000000123456789\t1700000001000000000\t7\t2049\n" +
		"\"odd\\tname.jsonl\"\t0\t1700000000123456789\t1700000002000000000\t8\t2049\n" +
		"\"gone.jsonl\"\t!\n" +
		"\"locked.jsonl\"\t!\t9\t1700000000123456789\t1700000003000000000\t9\t2049\n" // stat'ed, not read
	if got := signature(files, map[string]bool{"locked.jsonl": true}); got != want {
		t.Fatalf("signature:\n%q\nwant\n%q", got, want)
	}
	names, ok := sigNames(want)
	if !ok || !slices.Equal(names, []string{"messages.jsonl", "odd\tname.jsonl", "gone.jsonl", "locked.jsonl"}) {
		t.Fatalf("sigNames = %q, %v", names, ok)
	}
	wantCtimes := map[string]int64{"messages.jsonl": 1700000001000000000, "odd\tname.jsonl": 1700000002000000000, "locked.jsonl": 1700000003000000000}
	if got := sigCtimes(want); !maps.Equal(got, wantCtimes) {
		t.Fatalf("sigCtimes = %v, want %v", got, wantCtimes)
	}
}

// FuzzSigNames: sigNames reads back every name signature writes.
func FuzzSigNames(f *testing.F) {
	for _, s := range []string{"messages.jsonl", "a\tb", `q"uote`, `back\slash`, "\xff.jsonl", "日志.jsonl", ""} {
		f.Add(s, "events.jsonl")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		files := []tapelog.FileInfo{{Name: a, Size: 1}, {Name: b, Err: &tapelog.LineError{}}}
		names, ok := sigNames(signature(files, nil))
		if !ok || !slices.Equal(names, []string{a, b}) {
			t.Fatalf("sigNames(signature(%q, %q)) = %q, %v", a, b, names, ok)
		}
	})
}

// FuzzAppendQuoted: the signature quotes names as strconv.AppendQuote
// does, fast path or not: a signature of another form would make every
// folder's files look changed.
func FuzzAppendQuoted(f *testing.F) {
	for _, s := range []string{"messages.jsonl", "a b", "a\tb", `q"uote`, `back\slash`, "\x7f", "~", "\xff.jsonl", "日志.jsonl", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := appendQuoted([]byte("x"), name), strconv.AppendQuote([]byte("x"), name); !bytes.Equal(got, want) {
			t.Fatalf("appendQuoted(%q) = %q, want %q", name, got, want)
		}
	})
}

// CatchUpBeside leaves DB free for a query meanwhile, says whether it
// changed any entry, and refuses an index.db that was replaced.
func TestCatchUpBeside(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "first words")
	p := openProjector(t, ws)
	catchUp(t, p)
	p.Fresh = false // as a later process finds it

	// A folder changed in the last 2 s is listed, and its listing written,
	// by every pass; a tape's anchors folder that settles has its listing
	// written once: make them old, and let one pass note that.
	var s settler
	s.settle(ws)
	for range 2 { // the second, finding nothing new, writes the state record
		if _, err := p.CatchUpBeside(context.Background(), time.Second, nil); err != nil {
			t.Fatal(err)
		}
	}
	v1, _ := p.DataVersion(context.Background())
	st, err := p.CatchUpBeside(context.Background(), time.Second, nil)
	if v2, _ := p.DataVersion(context.Background()); err != nil || st.Entries != 0 || v2 != v1 {
		t.Fatalf("no change: %+v, %v; data_version %d -> %d", st, err, v1, v2)
	}

	appendMsg(t, ws, "main", "second words")
	done := make(chan error, 1)
	go func() {
		var err error
		st, err = p.CatchUpBeside(context.Background(), time.Second, nil)
		done <- err
	}()
	if _, err := p.Search(context.Background(), SearchQuery{Text: "words"}); err != nil { // beside it, on DB
		t.Fatalf("search beside a catch-up: %v", err)
	}
	if err := <-done; err != nil || st.Entries != 1 {
		t.Fatalf("an append: %+v, %v; want one entry added", st, err)
	}
	if v3, _ := p.DataVersion(context.Background()); v3 == v1 {
		t.Fatalf("data_version stayed %d after a catch-up that added an entry", v3)
	}
	hits, err := p.Search(context.Background(), SearchQuery{Text: "second"})
	if err != nil || len(hits) != 1 {
		t.Fatalf("after the catch-up, search second: %d hits, %v", len(hits), err)
	}

	removeIndex(t, ws.Dir())
	if _, err := p.CatchUpBeside(context.Background(), time.Second, nil); !errors.Is(err, ErrReplaced) {
		t.Fatalf("after index.db was deleted: %v, want ErrReplaced", err)
	}
	catchUp(t, p) // reopens it
	if hits, err := p.Search(context.Background(), SearchQuery{Text: "words"}); err != nil || len(hits) != 2 {
		t.Fatalf("after the index was rebuilt: %d hits, %v", len(hits), err)
	}
}

// A tape whose anchors folder is a symlink out of the workspace is not
// read through it, and does not stop the catch-up of the other tapes: it
// is recorded as a bad line of the tape, has no rows, and is read once its
// folder is in the workspace; a rebuild agrees at every step.
func TestAnchorsSymlinkOutOfWorkspace(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "inside words")
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(outside, "001_secret-plan"), 0o700); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, filepath.Join(outside, "001_secret-plan", "events.jsonl"), `{"kind":"event","payload":{"name":"outsideword"}}`+"\n")
	if err := os.MkdirAll(ws.Abs("tapes/leak"), 0o700); err != nil {
		t.Fatal(err)
	}
	link := ws.Abs("tapes/leak/anchors")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	p := openProjector(t, ws)
	st := catchUp(t, p)
	if st.BadLines != 1 {
		t.Fatalf("catch-up recorded %d bad lines, want 1 for the tape", st.BadLines)
	}
	words := []string{"outsideword", "inside"}
	got := dump(t, p, words)
	if strings.Contains(got, "secret-plan") || strings.Contains(got, "\nleak\t") {
		t.Fatalf("the index holds what lies outside the workspace:\n%s", got)
	}
	if hits, err := p.Search(context.Background(), SearchQuery{Text: "inside"}); err != nil || len(hits) != 1 {
		t.Fatalf("search of the readable tape: %d hits, %v", len(hits), err)
	}
	bad, err := p.BadLines(context.Background(), "leak", nil)
	if err != nil || len(bad) != 1 || bad[0].Line != 0 || bad[0].Path != "tapes/leak/anchors" || !strings.Contains(bad[0].Reason, "escapes") {
		t.Fatalf("bad lines of the tape: %v, %v", bad, err)
	}
	sameAsRebuild(t, ws, p, words...)
	// Settled (see racyWindow), so that a catch-up has nothing to write.
	var s settler
	s.settle(ws)
	catchUp(t, p)
	catchUp(t, p)                  // finds nothing new, and writes the state record
	reader := openProjector(t, ws) // data_version counts the commits of other connections
	before, err := reader.DataVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st := catchUp(t, p); st.BadLines != 0 {
		t.Errorf("a second catch-up recorded the tape again: %+v", st)
	}
	if after, err := reader.DataVersion(context.Background()); err != nil || after != before {
		t.Errorf("a catch-up with nothing new changed the index (data_version %d, then %d, %v)", before, after, err)
	}

	// Moved into the workspace, it is read, and its bad line is gone.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(link, os.DirFS(outside)); err != nil {
		t.Fatal(err)
	}
	catchUp(t, p)
	if bad, err := p.BadLines(context.Background(), "leak", nil); err != nil || len(bad) != 0 {
		t.Fatalf("bad lines after the tape can be read: %v, %v", bad, err)
	}
	if hits, err := p.Search(context.Background(), SearchQuery{Text: "outsideword"}); err != nil || len(hits) != 1 {
		t.Fatalf("search of the tape moved in: %d hits, %v", len(hits), err)
	}
	sameAsRebuild(t, ws, p, words...)

	// Unreadable again, then gone: nothing of it stays.
	if err := os.RemoveAll(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	catchUp(t, p)
	sameAsRebuild(t, ws, p, words...)
	if err := os.RemoveAll(ws.Abs("tapes/leak")); err != nil {
		t.Fatal(err)
	}
	catchUp(t, p)
	if got := dump(t, p, words); strings.Contains(got, "leak") {
		t.Fatalf("a removed tape left rows:\n%s", got)
	}
	sameAsRebuild(t, ws, p, words...)
}
