//go:build postgres

package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/tapetest"
)

// Files that change in the ways a checkpoint can miss reach the server
// as a clean sync has them: a line edited in place, the file the same
// size; a first line still being written when the sync ran; a file cut
// short between the index's catch-up and the sync.
func TestSyncFilesChangedUnderACheckpoint(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)
	ix := openIndex(t, ws)
	conn := connect(t, server.DB(t))
	wsID := identity(t, ws)
	folder := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start")
	file := filepath.Join(folder, "hand.jsonl")
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	converged := func(what string) { t.Helper(); assertLikeClean(t, ix, conn, wsID, what) }
	line := func(word string) string { return `{"role":"user","content":"` + word + `"}` + "\n" }

	// An edit in place, at the same size, in the middle of a file longer
	// than the two ends a checkpoint's fingerprint reads.
	pad := strings.Repeat(line(strings.Repeat("padding ", 100)), 10)
	write(pad + line("token-SECRET") + pad)
	converged("the first sync")
	old := time.Now().Add(-time.Minute)
	os.Chtimes(file, old, old)
	write(pad + line("token-xxxxxx") + pad)
	converged("an edit in place")
	if d := dump(t, conn, wsID); strings.Contains(d, "SECRET") {
		t.Errorf("the edited line's old bytes are still on the server")
	}

	// A first line in progress when the index read the file, finished
	// before the sync: the sync sends what the index read, nothing.
	other := filepath.Join(folder, "later.jsonl")
	if err := os.WriteFile(other, []byte(`{"role":"user","content":"not yet`), 0o600); err != nil {
		t.Fatal(err)
	}
	catchUp(t, ix)
	tapetest.AppendRaw(t, other, `, now done"}`+"\n")
	if _, err := Sync(ctx, ix, conn, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	converged("the first line finished")
	var entries int
	conn.QueryRow(ctx, `SELECT entries FROM tape.tapes WHERE workspace_id = $1 AND tape = 'main'`, wsID).Scan(&entries)
	if entries != 22 {
		t.Errorf("the tapes row counts %d entries, want 22", entries)
	}

	// Cut short after the index read it, before the sync.
	tapelogAppend(t, ws, line("more"))
	catchUp(t, ix)
	write(line("cut"))
	if _, err := Sync(ctx, ix, conn, SyncOptions{}); err != nil {
		t.Fatalf("a sync of a file cut short under its checkpoint: %v", err)
	}
	converged("a file cut short")
}

// Strings that PostgreSQL's text cannot hold (a NUL, as JSON's \u0000)
// in an id, a title, an anchor's name and state, a model, do not stop a
// sync, and the lines come back from restore as they were.
func TestSyncNULsInStrings(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)
	folder := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start")
	lines := `{"id":"a\u0000b","kind":"message","payload":{"role":"user","content":"nul \u0000 here"}}` + "\n" +
		`{"kind":"event","payload":{"name":"title","data":{"title":"ti\u0000tle"}}}` + "\n" +
		`{"kind":"event","payload":{"name":"run","data":{"model":"m\u0000","usage":{"input_tokens":1}}}}` + "\n"
	if err := os.WriteFile(filepath.Join(folder, "events.jsonl"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	hand := filepath.Join(ws.Dir(), "tapes/main/anchors/002_hand")
	os.Mkdir(hand, 0o700)
	os.WriteFile(filepath.Join(hand, "anchor.json"), []byte(`{"kind":"anchor","payload":{"name":"na\u0000me","state":{"k":"v\u0000"}}}`+"\n"), 0o600)
	ix := openIndex(t, ws)
	conn := connect(t, server.DB(t))
	syncNow(t, ix, conn)
	dst := tapetestWorkspace(t)
	if _, err := Restore(ctx, conn, identity(t, ws), nil, func() (*tapelog.Workspace, error) { return dst, nil }); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dst.Dir(), "tapes/main/anchors/001_session-start/events.jsonl"))
	if string(got) != lines {
		t.Errorf("restored %q, want %q", got, lines)
	}
}
