package cursor

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/mirrorfile/mirrortest"
)

// goldenChats is where the golden mirror line says the CLI's chats are:
// a test's store.db is at <temp>/<hash>/<id>/store.db, written as
// /home/u/.cursor/chats/<hash>/<id>/store.db.
const goldenChats = "/home/u/.cursor/chats"

// newChat writes a CLI chat's store.db of the golden script at
// <chats>/6a4ed208d874bc31c17fb549de8edded/<id>/store.db.
func newChat(t testing.TB, chats string) string {
	db := filepath.Join(chats, "6a4ed208d874bc31c17fb549de8edded", "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b", cliDB)
	mirrortest.NewDB(t, db, mirrortest.Read(t, filepath.Join("..", "..", "testdata", "import", "cursor", "store.sql")))
	return db
}

// The export of the golden CLI chat is its golden mirror file: the
// messages of the tree from its latest root, in order, each once (not
// the blob of an older tree); an export again adds nothing.
func TestMirrorGoldenChat(t *testing.T) {
	chats := t.TempDir()
	db := newChat(t, chats)
	dir := t.TempDir()
	for range 2 {
		if err := (Source{}).Mirror(context.Background(), db, dir, time.Now(), time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	got := mirrortest.Files(t, dir, chats, goldenChats)
	name := "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b.jsonl"
	if *update {
		mirrortest.Golden(t, got, filepath.Join("..", "..", "testdata", "import", "cursor", "src"), goldenChats, true, func(string) bool { return true })
	}
	want := mirrortest.Read(t, filepath.Join("..", "..", "testdata", "import", "cursor", "src", name))
	if got[name] != want {
		t.Errorf("%s differs from the golden file (-update writes it):\n%s", name, got[name])
	}
	if strings.Contains(got[name], "edited-away") || strings.Count(got[name], "\n") != 8 {
		t.Errorf("want the meta and the 7 messages of the tree:\n%s", got[name])
	}
}

// A chat's database of another layout is an error that names its tables.
func TestMirrorNamesAnUnknownChatLayout(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x", cliDB)
	mirrortest.NewDB(t, db, `CREATE TABLE meta (key TEXT, value TEXT); CREATE TABLE nodes (id TEXT)`)
	err := (Source{}).Mirror(context.Background(), db, t.TempDir(), time.Now(), time.Minute)
	if err == nil || !strings.Contains(err.Error(), `no table "blobs"`) || !strings.Contains(err.Error(), "nodes") {
		t.Fatalf("Mirror of an unknown layout: %v", err)
	}
}
