package log

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/oklog/ulid/v2"
)

// Workspaces open on the same folder that ask for its identity at once
// all get the one the first made, and it is kept in config.json with
// the rest of the configuration.
func TestIdentityIsMadeOnce(t *testing.T) {
	ws := newTestWorkspace(t)
	cfg := ws.Config()
	cfg.Follow = []string{"claude"}
	if err := ws.SaveConfig(cfg); err != nil {
		t.Fatal(err)
	}
	const n = 8
	ids := make([]Identity, n)
	var wg sync.WaitGroup
	for i := range n {
		other, err := Open(ws.Dir())
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		wg.Go(func() {
			var err error
			if ids[i], err = other.Identity(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Fatalf("identities made at once differ: %+v and %+v", ids[0], id)
		}
	}
	if _, err := ulid.ParseStrict(ids[0].ID); err != nil {
		t.Errorf("id %q is not a ULID: %v", ids[0].ID, err)
	}
	folder := filepath.Base(filepath.Dir(ws.Dir()))
	if !strings.HasPrefix(ids[0].Name, folder) {
		t.Errorf("name %q does not start with the folder %q", ids[0].Name, folder)
	}
	again, err := Open(ws.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got := again.Config(); got.Workspace == nil || *got.Workspace != ids[0] || len(got.Follow) != 1 {
		t.Errorf("config.json after Identity: workspace %+v, follow %v; want %+v and the follow saved before", got.Workspace, got.Follow, ids[0])
	}
}

// A config.json whose workspace id is not a ULID, or whose name is
// empty, is an error that says what to do.
func TestIdentityValidated(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"workspace":{"id":"nope","name":"x"}}`, "not a ULID"},
		{`{"workspace":{"id":"01KBXH4B8P3S2X5GZ4Q6M8N0RT","name":" "}}`, "name is empty"},
	} {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, DirName), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, DirName, "config.json"), []byte(tc.json), 0o600); err != nil {
			t.Fatal(err)
		}
		ws, err := Open(filepath.Join(dir, DirName))
		if err == nil {
			ws.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open with %s = %v, want an error saying %q", tc.json, err, tc.want)
		}
	}
}
