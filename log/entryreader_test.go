package log

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// entryReaderTape is a tape of two files, whose entries the reader is
// asked for back.
var entryReaderTape = map[string]string{
	"tapes/t/anchors/001_start/messages.jsonl": `{"id":"m1","kind":"message","payload":{"n":1}}` + "\n" +
		`{"kind":"message","payload":{"n":2}}` + "\n", // no id: derived
	"tapes/t/anchors/001_start/events.jsonl": `{"id":"e1","kind":"event","payload":{"n":3}}` + "\n",
}

// An entry an index located reads back as it was while its line is
// unchanged, and as a *LineError that says what to do once it is not.
func TestEntryReader(t *testing.T) {
	t.Parallel()
	const changed = "the line changed since it was indexed; run 'tape reindex'"
	tests := []struct {
		name string
		id   string                                      // the entry asked for
		edit func(t *testing.T, dir string, want *Entry) // changes the files, or what is asked for
		// reason is the LineError's; "" for the entry as it was read.
		reason string
	}{
		{name: "unchanged", id: "m1"},
		{name: "derived id", id: "001_start/messages.jsonl:2"},
		{name: "other file", id: "e1"},
		{name: "another id at the place", id: "m1", edit: func(t *testing.T, dir string, want *Entry) { want.ID = "m9" }, reason: changed},
		{name: "another kind at the place", id: "e1", edit: func(t *testing.T, dir string, want *Entry) { want.Kind = KindToolCall }, reason: changed},
		{name: "rewritten by hand", id: "m1", edit: func(t *testing.T, dir string, want *Entry) {
			rewrite(t, filepath.Join(dir, "tapes/t/anchors/001_start/messages.jsonl"), `{"id":"m2","kind":"message","payload":{"n":1}}`+"\n")
		}, reason: changed},
		{name: "cut short", id: "e1", edit: func(t *testing.T, dir string, want *Entry) {
			if err := os.Truncate(filepath.Join(dir, "tapes/t/anchors/001_start/events.jsonl"), 10); err != nil {
				t.Fatal(err)
			}
		}, reason: changed},
		{name: "past the end", id: "m1", edit: func(t *testing.T, dir string, want *Entry) { want.Pos.Offset = 1 << 20 }, reason: changed},
		{name: "removed", id: "e1", edit: func(t *testing.T, dir string, want *Entry) {
			if err := os.Remove(filepath.Join(dir, "tapes/t/anchors/001_start/events.jsonl")); err != nil {
				t.Fatal(err)
			}
		}, reason: "cannot open: no such file or directory"},
		{name: "not a regular file", id: "e1", edit: func(t *testing.T, dir string, want *Entry) {
			want.Pos.File = "fifo.jsonl"
			if err := syscall.Mkfifo(filepath.Join(dir, "tapes/t/anchors/001_start", want.Pos.File), 0o600); err != nil {
				t.Fatal(err)
			}
		}, reason: "cannot open: tapes/t/anchors/001_start/fifo.jsonl: log: not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := openHandMade(t, entryReaderTape)
			want := entryByID(t, mustTape(t, ws, "t"), tt.id)
			if tt.edit != nil {
				tt.edit(t, ws.Dir(), &want)
			}
			r := ws.EntryReader()
			defer r.Close()
			got, err := r.ReadEntry(want)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("ReadEntry(%s): %v", tt.id, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("ReadEntry(%s) = %+v\nwant %+v", tt.id, got, want)
				}
				return
			}
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("ReadEntry(%s) = %v; want a *LineError", tt.id, err)
			}
			wantErr := LineError{Path: want.Pos.Path(), Line: want.Pos.Line, Offset: want.Pos.Offset, Reason: tt.reason}
			if *le != wantErr {
				t.Errorf("ReadEntry(%s): %+v\nwant %+v", tt.id, *le, wantErr)
			}
		})
	}
}

// One reader reads entries of several files in turn, and of a tape name
// that is not valid it returns the name's error.
func TestEntryReaderSwitchesFiles(t *testing.T) {
	t.Parallel()
	ws := openHandMade(t, entryReaderTape)
	entries, bad := readAll(t, mustTape(t, ws, "t"))
	if len(bad) > 0 || len(entries) != 4 {
		t.Fatalf("read %d entries, bad %v; want 4, none bad", len(entries), bad)
	}
	r := ws.EntryReader()
	defer r.Close()
	for range 2 {
		for _, want := range entries[1:] { // entries[0] is the folder's anchor
			got, err := r.ReadEntry(want)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("ReadEntry(%s) = %+v, %v\nwant %+v", want.ID, got, err, want)
			}
		}
	}
	bogus := entries[1]
	bogus.Pos.Tape = "../out"
	var le *LineError
	if _, err := r.ReadEntry(bogus); err == nil || errors.As(err, &le) {
		t.Errorf("ReadEntry of tape %q: %v; want the name's error", bogus.Pos.Tape, err)
	}
}

// A reader asked for the entries of more files than it keeps open, in
// any order, reads each as it is, and keeps no more than keptOpen open.
func TestEntryReaderOfManyFiles(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for folder := range 2 * keptOpen {
		for _, name := range []string{"messages", "events"} {
			path := fmt.Sprintf("tapes/t/anchors/%03d_f/%s.jsonl", folder+1, name)
			files[path] = fmt.Sprintf(`{"id":"%s-%d-1","kind":"event"}`+"\n"+`{"id":"%s-%d-2","kind":"event"}`+"\n", name, folder, name, folder)
		}
	}
	ws := openHandMade(t, files)
	entries, bad := readAll(t, mustTape(t, ws, "t"))
	if len(bad) > 0 || len(entries) != 4*2*keptOpen+2*keptOpen {
		t.Fatalf("read %d entries, bad %v; want %d, none bad", len(entries), bad, 4*2*keptOpen+2*keptOpen)
	}
	r := ws.EntryReader()
	defer r.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3 {
		for _, i := range rng.Perm(len(entries)) {
			want := entries[i]
			if want.Kind == KindAnchor {
				continue
			}
			if got, err := r.ReadEntry(want); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("ReadEntry(%s) = %+v, %v\nwant %+v", want.ID, got, err, want)
			}
			if len(r.files) > keptOpen || len(r.order) != len(r.files) {
				t.Fatalf("the reader holds %d files open, in order %d; want at most %d", len(r.files), len(r.order), keptOpen)
			}
		}
	}
}

// entryByID reads the tape's entry of the given id.
func entryByID(t *testing.T, tp *Tape, id string) Entry {
	t.Helper()
	entries, _ := readAll(t, tp)
	for _, e := range entries {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("tape %s has no entry %s: %v", tp.Name(), id, ids(entries))
	return Entry{}
}

func rewrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A reader that read a line, asked for it again after the file was cut in
// the middle of it, says it changed: what it read before is not taken for
// the missing bytes.
func TestEntryReaderFileCutAfterARead(t *testing.T) {
	t.Parallel()
	ws := openHandMade(t, entryReaderTape)
	want := entryByID(t, mustTape(t, ws, "t"), "e1")
	r := ws.EntryReader()
	defer r.Close()
	if _, err := r.ReadEntry(want); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(ws.Dir(), "tapes/t/anchors/001_start/events.jsonl")
	if err := os.Truncate(path, want.Pos.Offset+int64(want.Pos.Length)/2); err != nil {
		t.Fatal(err)
	}
	var le *LineError
	if _, err := r.ReadEntry(want); !errors.As(err, &le) || le.Reason != "the line changed since it was indexed; run 'tape reindex'" {
		t.Errorf("ReadEntry of a line cut in half after it was read: %v; want it said changed", err)
	}
}
