package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// TestReindexFullOfNoIndex checks that reindex opens a missing index
// without filling it, so that `reindex --full` builds it once, and that
// the one build then holds every entry.
func TestReindexFullOfNoIndex(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	for _, text := range []string{"one", "two", "three"} {
		mustRun(t, dir, "append", "-k", "message", `{"role":"user","content":"`+text+`"}`)
	}
	for _, name := range []string{"index.db", "index.db-wal", "index.db-shm"} {
		if err := os.Remove(filepath.Join(dir, ".tape", name)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}

	ws, err := tapelog.Open(filepath.Join(dir, ".tape"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ix, err := openToIndex(&Env{ctx: context.Background()}, ws)
	if err != nil {
		t.Fatal(err)
	}
	entries, _, err := ix.Entries(context.Background(), projector.EntryFilter{Tape: "main"})
	ix.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("reindex's open filled a new index with %d entries; --full would then build it twice", len(entries))
	}

	var got struct{ Entries int }
	if err := json.Unmarshal([]byte(mustRun(t, dir, "reindex", "--full", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if got.Entries != 4 { // three messages and the first anchor's entry
		t.Errorf("reindex --full added %d entries, want 4", got.Entries)
	}
}
