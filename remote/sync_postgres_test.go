//go:build postgres

package remote

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

// A first sync writes every entry, anchor, bad line, run and call; a
// second with nothing new writes nothing; an append writes only itself;
// and the server then holds what one sync of the final files writes.
func TestSyncIncremental(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)
	appendEntry(t, ws, "main", "message", map[string]any{"role": "user", "content": "The tests fail. 发生了错误"})
	appendEntry(t, ws, "main", "tool_call", map[string]any{"calls": []any{map[string]any{"id": "c1", "type": "function",
		"function": map[string]any{"name": "bash", "arguments": `{"cmd":"go test"}`}}}})
	appendEntry(t, ws, "main", "event", map[string]any{"name": "run", "data": map[string]any{"model": "m1",
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}})
	folder := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start")
	if err := os.WriteFile(filepath.Join(folder, "hand.jsonl"), []byte("not json\n"+`{"role":"user","content":"by hand"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, ws)
	url := server.DB(t)
	conn := connect(t, url)
	st := syncNow(t, ix, conn)
	wsID := identity(t, ws)
	if st.Entries != 5 || st.BadLines != 1 {
		t.Errorf("first sync: %+v; want 5 entries (the anchor's among them) and 1 bad line", st)
	}
	for table, want := range map[string]int{"entries": 5, "bad_lines": 1, "runs": 1, "calls": 1, "tapes": 1, "anchors": 1, "pending": 0, "files": 4} {
		if got := count(t, conn, table, wsID); got != want {
			t.Errorf("%s: %d rows, want %d", table, got, want)
		}
	}
	if st := syncNow(t, ix, conn); st.Entries+st.BadLines+st.Files+st.Removed != 0 {
		t.Errorf("a sync with nothing new wrote %+v", st)
	}
	appendEntry(t, ws, "main", "tool_result", map[string]any{"results": []any{"FAIL: TestFlush"}})
	if st := syncNow(t, ix, conn); st.Entries != 1 || st.Files != 1 || st.Tapes != 1 {
		t.Errorf("a sync after one append: %+v; want 1 entry of 1 file, 1 tape brought up to date", st)
	}
	var status string
	if err := conn.QueryRow(ctx, `SELECT status FROM tape.calls WHERE workspace_id = $1`, wsID).Scan(&status); err != nil || status != "completed" {
		t.Errorf("the call after its result: %q, %v; want completed", status, err)
	}

	clean := connect(t, server.DB(t))
	syncNow(t, ix, clean)
	if got, want := dump(t, conn, wsID), dump(t, clean, wsID); got != want {
		t.Errorf("incremental syncs hold\n%s\none sync holds\n%s", got, want)
	}
	if d := dump(t, conn, wsID); !strings.Contains(d, "by hand") && !strings.Contains(d, `\x`) {
		t.Errorf("dump holds no raw lines:\n%s", d)
	}
}

// A merged fork, a reset tape, a deleted file and a deleted tape reach
// the server as the local index has them: the merged entries come, the
// old anchors' entries and calls go, and so do the rows of what was
// deleted; each time the server holds what a clean sync writes.
func TestSyncReflectsMergeResetAndDeletes(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)
	ix := openIndex(t, ws)
	conn := connect(t, server.DB(t))
	wsID := identity(t, ws)
	call := map[string]any{"calls": []any{map[string]any{"id": "c1", "function": map[string]any{"name": "bash"}}}}
	appendEntry(t, ws, "main", "tool_call", call)
	appendEntry(t, ws, "side", "message", map[string]any{"role": "user", "content": "a side tape"})
	syncNow(t, ix, conn)
	check := func(what string, want map[string]int) {
		t.Helper()
		assertLikeClean(t, ix, conn, wsID, what)
		for table, n := range want {
			if got := count(t, conn, table, wsID); got != n {
				t.Errorf("after %s: %d %s rows, want %d", what, got, table, n)
			}
		}
	}

	main, _ := ws.Tape("main")
	defer main.Close()
	id, err := main.Fork(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fork, _ := main.OpenFork(id)
	if _, err := fork.Append(ctx, tapelogEntry("tool_result", `{"results":[{"tool_call_id":"c1","content":"ok"}]}`)); err != nil {
		t.Fatal(err)
	}
	fork.Close()
	if _, err := main.Merge(ctx, id, tapelogMergeOptions()); err != nil {
		t.Fatal(err)
	}
	check("a merge", map[string]int{"entries": 5, "calls": 1})
	var status string
	conn.QueryRow(ctx, `SELECT status FROM tape.calls WHERE workspace_id = $1`, wsID).Scan(&status)
	if status != "completed" {
		t.Errorf("the call answered in the merged fork is %q, want completed", status)
	}

	a, err := main.Handoff(ctx, "later", nil)
	if err != nil {
		t.Fatal(err)
	}
	appendEntry(t, ws, "main", "tool_call", call)
	check("a handoff", map[string]int{"entries": 7, "calls": 2})
	if err := os.RemoveAll(filepath.Join(ws.Dir(), "tapes/main/anchors", a.Folder)); err != nil {
		t.Fatal(err)
	}
	check("a deleted folder", map[string]int{"entries": 5, "calls": 1, "anchors": 2})

	if _, err := main.Reset(ctx, false); err != nil {
		t.Fatal(err)
	}
	check("a reset", map[string]int{"entries": 3, "calls": 0, "anchors": 2})

	if err := os.Remove(filepath.Join(ws.Dir(), "tapes/side/anchors/001_session-start/messages.jsonl")); err != nil {
		t.Fatal(err)
	}
	check("a deleted file", map[string]int{"entries": 2, "files": 0})

	if err := os.RemoveAll(filepath.Join(ws.Dir(), "tapes/side")); err != nil {
		t.Fatal(err)
	}
	check("a deleted tape", map[string]int{"entries": 1, "anchors": 1, "tapes": 1})
}

// A sync that finds the local index as the last one left it sends
// nothing, even when rows were deleted on the server by hand; --full
// sends everything again, to the rows of a clean sync.
func TestSyncFullAfterRowsDeletedByHand(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)
	appendEntry(t, ws, "main", "message", map[string]any{"role": "user", "content": "hello"})
	ix := openIndex(t, ws)
	conn := connect(t, server.DB(t))
	syncNow(t, ix, conn)
	wsID := identity(t, ws)
	want := dump(t, conn, wsID)
	if _, err := conn.Exec(ctx, `DELETE FROM tape.entries WHERE workspace_id = $1`, wsID); err != nil {
		t.Fatal(err)
	}
	if st := syncNow(t, ix, conn); st.Entries != 0 {
		t.Errorf("a sync with the local index unchanged sent %d entries", st.Entries)
	}
	st, err := Sync(ctx, ix, conn, SyncOptions{Full: true})
	if err != nil || st.Entries != 2 {
		t.Fatalf("a full sync: %+v, %v; want the 2 entries again", st, err)
	}
	if got := dump(t, conn, wsID); got != want {
		t.Errorf("after a full sync the server holds\n%s\nwant\n%s", got, want)
	}
}

// A workspace copied with cp -r keeps its id: its sync is refused, as it
// would replace the original's rows with its own, until it is told it
// moved, or given an id of its own.
func TestSyncRefusesACopy(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)
	appendEntry(t, ws, "main", "message", map[string]any{"role": "user", "content": "original"})
	url := server.DB(t)
	syncNow(t, openIndex(t, ws), connect(t, url))
	copyDir := filepath.Join(t.TempDir(), ".tape")
	if err := os.CopyFS(copyDir, os.DirFS(ws.Dir())); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(copyDir, "index.db")) // a copy's index is its own
	cp, err := tapelog.Open(copyDir)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	ix := openIndex(t, cp)
	conn := connect(t, url)
	if _, err := Sync(ctx, ix, conn, SyncOptions{}); !errors.Is(err, ErrAnotherCopy) {
		t.Fatalf("a copy's sync: %v, want ErrAnotherCopy", err)
	}
	if _, err := Sync(ctx, ix, conn, SyncOptions{Moved: true}); err != nil {
		t.Errorf("the copy's sync, told it moved: %v", err)
	}
	if _, err := Sync(ctx, openIndex(t, ws), conn, SyncOptions{}); !errors.Is(err, ErrAnotherCopy) {
		t.Errorf("the original's sync after the copy took its place: %v, want ErrAnotherCopy", err)
	}
}
