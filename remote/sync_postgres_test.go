//go:build postgres

package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
