package fresh

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// rawLine is one message entry as a hand append writes it.
const rawLine = `{"kind":"message","payload":{"role":"user","content":"quokka"}}` + "\n"

// Lag counts the bytes past the index's checkpoints, and a file the index
// has no checkpoint of, or read further than it now goes, whole.
func TestLag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		files  int                               // the *.jsonl files after change
		lag    int64                             // the bytes the index has not read
		change func(t *testing.T, folder string) // folder: main's first anchor folder
	}{
		{"caught up", 1, 0, func(t *testing.T, folder string) {}},
		{"a line appended", 1, int64(len(rawLine)), func(t *testing.T, folder string) {
			appendRaw(t, filepath.Join(folder, "messages.jsonl"), rawLine)
		}},
		{"a torn tail appended", 1, 5, func(t *testing.T, folder string) {
			appendRaw(t, filepath.Join(folder, "messages.jsonl"), `{"kin`)
		}},
		{"a file without a checkpoint", 2, int64(len(rawLine)), func(t *testing.T, folder string) {
			appendRaw(t, filepath.Join(folder, "events.jsonl"), rawLine)
		}},
		{"a file rewritten shorter than its checkpoint", 1, int64(len("{}\n")), func(t *testing.T, folder string) {
			if err := os.WriteFile(filepath.Join(folder, "messages.jsonl"), []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t)
			appendMsgs(t, ws, "main", []string{"okapi", "zebra"})
			p := openProjector(t, ws)
			catchUp(t, p)
			folder := firstFolder(t, ws, "main")
			tt.change(t, folder)
			tb := lagOf(t, p, "main")
			want := TapeBytes{Files: tt.files, Bytes: folderBytes(t, folder), LagBytes: tt.lag}
			if tb != want {
				t.Errorf("Lag = %+v; want %+v", tb, want)
			}
		})
	}
}

// WorkspaceLag is Lag summed over the tapes.
func TestWorkspaceLag(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "okapi")
	appendMsg(t, ws, "other", "zebra")
	p := openProjector(t, ws)
	catchUp(t, p)
	appendRaw(t, filepath.Join(firstFolder(t, ws, "main"), "messages.jsonl"), rawLine)
	appendRaw(t, filepath.Join(firstFolder(t, ws, "other"), "messages.jsonl"), rawLine+rawLine)
	main, other := lagOf(t, p, "main"), lagOf(t, p, "other")
	got, err := WorkspaceLag(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := TapeBytes{Files: main.Files + other.Files, Bytes: main.Bytes + other.Bytes, LagBytes: main.LagBytes + other.LagBytes}
	if got != want || got.LagBytes != int64(3*len(rawLine)) {
		t.Errorf("WorkspaceLag = %+v; want %+v, %d bytes of lag", got, want, 3*len(rawLine))
	}
	catchUp(t, p)
	if got, err := WorkspaceLag(context.Background(), p); err != nil || got.LagBytes != 0 || got.Bytes != want.Bytes {
		t.Errorf("WorkspaceLag after a catch-up = %+v, %v; want no lag, %d bytes", got, err, want.Bytes)
	}
}

// lagOf is Lag of one tape.
func lagOf(t *testing.T, p *projector.Projector, tape string) TapeBytes {
	t.Helper()
	tp, err := p.Workspace().Tape(tape)
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	tb, err := Lag(context.Background(), p, tp)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// firstFolder is the path of a tape's first anchor folder.
func firstFolder(t *testing.T, ws *tapelog.Workspace, tape string) string {
	t.Helper()
	folders, err := filepath.Glob(filepath.Join(ws.Dir(), "tapes", tape, "anchors", "001_*"))
	if err != nil || len(folders) != 1 {
		t.Fatalf("the first anchor folder of %s: %v, %v", tape, folders, err)
	}
	return folders[0]
}

// folderBytes is the size of a folder's anchor.json and *.jsonl files.
func folderBytes(t *testing.T, folder string) int64 {
	t.Helper()
	entries, err := os.ReadDir(folder)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if e.Name() != tapelog.AnchorFile && !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}
