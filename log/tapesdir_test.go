package log

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTapesDirDescribesAsAnchorsDir checks that the tapes folder held open
// lists the tapes as Tapes does and describes each anchors folder, anchor
// folder and file as the anchors folder held open does, and refuses, with
// what the caller tells apart, what it must not follow.
func TestTapesDirDescribesAsAnchorsDir(t *testing.T) {
	ws := openHandMade(t, map[string]string{
		"tapes/a/anchors/001_start/anchor.json":    `{"kind":"anchor","payload":{"name":"start"}}` + "\n",
		"tapes/a/anchors/001_start/messages.jsonl": `{"role":"user","content":"hi"}` + "\n",
		"tapes/b/anchors/001_start/events.jsonl":   `{"kind":"event","payload":{"name":"x"}}` + "\n",
		"elsewhere/anchors/001_start/x.jsonl":      "\n",
	})
	linked := filepath.Join(ws.Dir(), "tapes", "linked")
	if err := os.MkdirAll(linked, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws.Dir(), "elsewhere", "anchors"), filepath.Join(linked, "anchors")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws.Dir(), "tapes", "a"), filepath.Join(ws.Dir(), "tapes", "alias")); err != nil {
		t.Fatal(err)
	}
	d, err := ws.OpenTapes()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	names, err := d.Names()
	if err != nil {
		t.Fatal(err)
	}
	want, err := ws.Tapes()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, want) || !slices.Equal(names, []string{"a", "b", "linked"}) {
		t.Fatalf("Names: %v, Tapes: %v; want a, b, linked (a symlink is not a tape)", names, want)
	}

	for _, c := range []struct {
		tape, folder, name string
		err                error // nil: as AnchorsDir.Stat describes it ("" for the anchors folder: Identity)
	}{
		{"a", "", "", nil},
		{"b", "", "", nil},
		{"a", "001_start", "", nil},
		{"a", "001_start", AnchorFile, nil},
		{"a", "001_start", "messages.jsonl", nil},
		{"b", "001_start", "events.jsonl", nil},
		{"a", "001_start", "missing.jsonl", fs.ErrNotExist},
		{"a", "002_none", "", fs.ErrNotExist},
		{"a", "001_start/..", "001_start", ErrNotRegular},
		{"linked", "", "", ErrNotFolder},                                          // AnchorDir follows it, inside the workspace
		{"nope", "", "", fs.ErrNotExist},                                          // no such tape
		{"a", strings.Repeat("x", 200), strings.Repeat("y", 100), fs.ErrNotExist}, // past the path built on the stack
	} {
		t.Run(strings.Join([]string{c.tape, c.folder, c.name}, "/"), func(t *testing.T) {
			var got FileInfo
			var err error
			if c.folder == "" {
				got, err = d.AnchorsIdentity(c.tape)
			} else {
				got, err = d.Stat(c.tape, c.folder, c.name)
			}
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			dir, err := mustTape(t, ws, c.tape).OpenAnchors()
			if err != nil {
				t.Fatal(err)
			}
			defer dir.Close()
			var want FileInfo
			if c.folder == "" {
				want, err = dir.Identity()
			} else {
				want, err = dir.Stat(c.folder, c.name)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		})
	}
}
