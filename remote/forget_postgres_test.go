//go:build postgres

package remote

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

// A workspace made again in the same folder gets a new id, and the old
// one's rows stay on the server, every --remote result twice: the sync
// names the old one (SamePlace), and Forget removes it.
func TestForgetAWorkspaceMadeAgain(t *testing.T) {
	ctx := t.Context()
	ws := newWorkspace(t)
	appendEntry(t, ws, "main", "message", map[string]any{"role": "user", "content": "twice over"})
	conn := connect(t, server.DB(t))
	syncNow(t, openIndex(t, ws), conn)
	old := identity(t, ws)

	// Made again: the same folder, its config without the old id.
	cfg := ws.Config()
	cfg.Workspace = nil
	if err := ws.SaveConfig(cfg); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(ws.Dir(), "index.db"))
	again, err := tapelog.Open(ws.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	st := syncNow(t, openIndex(t, again), conn)
	if len(st.SamePlace) != 1 || st.SamePlace[0].ID != old || st.SamePlace[0].Tapes != 1 {
		t.Fatalf("the sync of the workspace made again names %+v; want the old one, %s, of 1 tape", st.SamePlace, old)
	}
	if hits, _ := Search(ctx, conn, SearchQuery{Text: "twice"}); len(hits) != 2 {
		t.Errorf("before the old one is forgotten, search finds %d entries; want 2 (it is the bug)", len(hits))
	}

	forgotten, err := Forget(ctx, conn, old)
	if err != nil || forgotten.ID != old || forgotten.Tapes != 1 {
		t.Fatalf("Forget(%s) = %+v, %v", old, forgotten, err)
	}
	for _, table := range append(workspaceTables, "workspaces") {
		col := map[bool]string{true: "id", false: "workspace_id"}[table == "workspaces"]
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM tape.`+table+` WHERE `+col+` = $1`, old).Scan(&n); err != nil || n != 0 {
			t.Errorf("after Forget, %s holds %d rows of the old workspace (%v)", table, n, err)
		}
	}
	if hits, _ := Search(ctx, conn, SearchQuery{Text: "twice"}); len(hits) != 1 {
		t.Errorf("after Forget, search finds %d entries; want 1", len(hits))
	}
	if all, err := Workspaces(ctx, conn, nil); err != nil || len(all) != 1 || all[0].ID != identity(t, again) {
		t.Errorf("the workspaces after Forget: %+v, %v; want the new one alone", all, err)
	}
	if st := syncNow(t, openIndex(t, again), conn); len(st.SamePlace) != 0 {
		t.Errorf("a sync after Forget names %+v", st.SamePlace)
	}
	if _, err := Forget(ctx, conn, old); !errors.Is(err, ErrNoWorkspace) {
		t.Errorf("Forget of an id the server does not hold: %v, want ErrNoWorkspace", err)
	}
}
