//go:build postgres

package remote

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

// tree reads every file under dir into a map by path, relative to dir.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			files[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(path)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A restored workspace's tapes are the files that were synced, byte for
// byte: bad lines, CRLF endings, blank lines between and after, a folder
// made by hand without anchor.json, an empty file; a torn last line, not
// synced, is not restored. Restoring over a tape that is there is refused.
func TestRestoreGivesBackTheFiles(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)
	appendEntry(t, ws, "main", "message", map[string]any{"role": "user", "content": "修复 TestFlush"})
	appendEntry(t, ws, "main", "tool_call", map[string]any{"calls": []any{map[string]any{"id": "c1", "function": map[string]any{"name": "bash"}}}})
	tp, _ := ws.Tape("main")
	if _, err := tp.Handoff(ctx, "审查", []byte(`{"summary":"done"}`)); err != nil {
		t.Fatal(err)
	}
	tp.Close()
	appendEntry(t, ws, "main", "event", map[string]any{"name": "run", "data": map[string]any{"model": "m"}})
	tapes := filepath.Join(ws.Dir(), "tapes")
	first := filepath.Join(tapes, "main/anchors/001_session-start")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(first, "hand.jsonl"), "not json\r\n\n"+`{"role":"user","content":"by hand"}`+"\r\n\n\n")
	write(filepath.Join(first, "empty.jsonl"), "")
	write(filepath.Join(tapes, "other/anchors/003_made-by-hand/notes.jsonl"), `{"kind":"note","payload":{"text":"x"}}`+"\n"+`{"kind":"note","pay`)
	ix := openIndex(t, ws)
	conn := connect(t, server.DB(t))
	syncNow(t, ix, conn)
	wsID := identity(t, ws)

	dstDir := t.TempDir()
	dst, _, err := tapelog.Create(dstDir)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	open := func() (*tapelog.Workspace, error) { return dst, nil }
	st, err := Restore(ctx, conn, wsID, nil, open)
	if err != nil {
		t.Fatal(err)
	}
	if st.Tapes != 2 || st.Folders != 3 {
		t.Errorf("restore: %+v; want 2 tapes, 3 folders", st)
	}
	want := tree(t, tapes)
	want["other/anchors/003_made-by-hand/notes.jsonl"] = `{"kind":"note","payload":{"text":"x"}}` + "\n" // the torn tail is not synced
	got := tree(t, filepath.Join(dst.Dir(), "tapes"))
	for path, w := range want {
		if g, ok := got[path]; !ok || g != w {
			t.Errorf("%s restored as %q (present %v), want %q", path, g, ok, w)
		}
	}
	for path := range got {
		if _, ok := want[path]; !ok {
			t.Errorf("restore wrote %s, which was not synced", path)
		}
	}
	if _, err := Restore(ctx, conn, wsID, []string{"main"}, open); err == nil || !strings.Contains(err.Error(), "already in") {
		t.Errorf("restoring over a tape that is there: %v, want an error", err)
	}
}
