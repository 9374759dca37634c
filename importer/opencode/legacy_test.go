package opencode

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeJSON writes text to the file rel under dir.
func writeJSON(t *testing.T, dir, rel, text string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The storage folder of OpenCode before 1.0, a file a row, exports as a
// database does: the session's row, then each message and its parts, in
// the order of their ids; a message added later is appended alone.
func TestMirrorLegacyStorage(t *testing.T) {
	data := t.TempDir()
	storage := filepath.Join(data, "storage")
	writeJSON(t, storage, "session/prj_1/ses_01.json", `{"id":"ses_01","title":"旧版 session","directory":"/home/u/old","projectID":"prj_1","version":"0.9.2","time":{"created":1750000000000,"updated":1750000100000}}`)
	writeJSON(t, storage, "message/ses_01/msg_01.json", `{"id":"msg_01","sessionID":"ses_01","role":"user","time":{"created":1750000001000}}`)
	writeJSON(t, storage, "part/msg_01/prt_01.json", `{"id":"prt_01","messageID":"msg_01","sessionID":"ses_01","type":"text","text":"fix the old parser"}`)
	writeJSON(t, storage, "message/ses_01/msg_02.json", `{"id":"msg_02","sessionID":"ses_01","role":"assistant","time":{"created":1750000002000,"completed":1750000009000},"modelID":"claude-sonnet-4","tokens":{"input":10,"output":5,"cache":{"read":0,"write":0}}}`)
	writeJSON(t, storage, "part/msg_02/prt_03.json", `{"id":"prt_03","messageID":"msg_02","type":"text","text":"done"}`)
	writeJSON(t, storage, "part/msg_02/prt_02.json", `{"id":"prt_02","messageID":"msg_02","type":"reasoning","text":"read it first"}`)

	if got := (Source{}).Stores(data); len(got) != 1 || got[0] != storage {
		t.Fatalf("Stores(data folder) = %v, want its storage folder", got)
	}
	if n, err := (Source{}).Sessions(context.Background(), storage); n != 1 || err != nil {
		t.Fatalf("Sessions = %d, %v; want 1", n, err)
	}
	dir := t.TempDir()
	later := time.Now().Add(time.Hour) // the files were written now: quiet an hour later
	mirror := func() string {
		t.Helper()
		if err := (Source{}).Mirror(context.Background(), storage, dir, later, time.Minute); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "ses_01.jsonl"))
		return string(b)
	}
	first := mirror()
	order := []string{`"table":"session","id":"ses_01"`, `"id":"msg_01"`, `"id":"prt_01"`, `"id":"msg_02"`, `"id":"prt_02"`, `"id":"prt_03"`}
	at := 0
	for _, want := range order {
		i := strings.Index(first[at:], want)
		if i < 0 {
			t.Fatalf("the mirror lacks %s after byte %d, in order:\n%s", want, at, first)
		}
		at += i
	}
	if mirror() != first {
		t.Fatal("an export with nothing new changed the mirror")
	}
	writeJSON(t, storage, "message/ses_01/msg_03.json", `{"id":"msg_03","sessionID":"ses_01","role":"user","time":{"created":1750000010000}}`)
	second := mirror()
	if !strings.HasPrefix(second, first) || strings.Count(second, `"table":"message"`) != 3 {
		t.Fatalf("a message added later was not appended alone:\n%s", second)
	}
}
