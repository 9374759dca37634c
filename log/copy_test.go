package log

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// A folder written whole reads back as the tape it was: its anchor.json
// byte for byte, its lines in order; it never overwrites a folder, and
// names that readers would not read, or that leave the tape, are refused.
func TestWriteFolder(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "copy")
	anchor := []byte(`{"id":"a1","kind":"anchor","payload":{"name":"审查","state":{"k":1}}}` + "\n")
	lines := map[string]string{
		"messages.jsonl": `{"id":"m1","kind":"message","payload":{"role":"user","content":"hi"}}` + "\n",
		"events.jsonl":   "bad line\r\n" + `{"id":"e1","kind":"event","payload":{"name":"x"}}` + "\n",
	}
	write := func(name string, w io.Writer) error { _, err := io.WriteString(w, lines[name]); return err }
	if err := tp.WriteFolder("007_review", anchor, []string{"events.jsonl", "messages.jsonl"}, write); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(ws.Dir(), "tapes/copy/anchors/007_review")
	if got, _ := os.ReadFile(filepath.Join(dir, AnchorFile)); string(got) != string(anchor) {
		t.Errorf("anchor.json = %q, want %q", got, anchor)
	}
	for name, want := range lines {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != filePerm {
			t.Errorf("%s: mode %v, %v; want %v", name, fi.Mode().Perm(), err, os.FileMode(filePerm))
		}
	}
	a, raw, err := tp.ReadAnchorRaw("007_review")
	if err != nil || a.Name != "审查" || a.Seq != 7 || string(raw) != string(anchor) {
		t.Errorf("ReadAnchorRaw = %+v, %q, %v", a, raw, err)
	}
	var ids []string
	for e, err := range tp.All(t.Context()) {
		if err == nil {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) != 3 || ids[0] != "a1" {
		t.Errorf("the folder reads as %v, want a1 and its two entries", ids)
	}

	if err := tp.WriteFolder("007_review", nil, nil, write); !errors.Is(err, fs.ErrExist) {
		t.Errorf("writing the folder again = %v, want fs.ErrExist", err)
	}
	for _, c := range []struct{ folder, file string }{
		{"../../x", ""}, {"review", ""}, {".007_x", ""}, {"008_x", "../m.jsonl"}, {"008_x", "notes.txt"}, {"008_x", ".m.jsonl"},
	} {
		files := []string{}
		if c.file != "" {
			files = append(files, c.file)
		}
		if err := tp.WriteFolder(c.folder, nil, files, write); err == nil {
			t.Errorf("WriteFolder(%q, %q) wrote it", c.folder, c.file)
		}
	}
	if _, err := os.Stat(filepath.Join(ws.Dir(), "tapes/copy/anchors/008_x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused folder was made: %v", err)
	}
}

// A handoff while a folder is being written whole does not take the folder
// being built for a dead handoff's.
func TestWriteFolderBesideHandoff(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "copy")
	other := mustTape(t, ws, "copy")
	write := func(name string, w io.Writer) error {
		if _, err := other.Handoff(context.Background(), "meanwhile", nil); err != nil {
			return err
		}
		_, err := io.WriteString(w, `{"kind":"event","payload":{}}`+"\n")
		return err
	}
	if err := tp.WriteFolder("007_review", nil, []string{"events.jsonl"}, write); err != nil {
		t.Fatalf("WriteFolder with a handoff meanwhile: %v", err)
	}
	folders, err := tp.Folders()
	if err != nil || len(folders) != 3 || folders[2].Name != "007_review" {
		t.Errorf("folders %v, %v; want the bootstrap, the handoff's and 007_review", folders, err)
	}
}
