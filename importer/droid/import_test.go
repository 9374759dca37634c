package droid_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/droid"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

const session = "7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c"

// home is a workspace and a sessions folder of one session.
type home struct {
	t        *testing.T
	ws       *tapelog.Workspace
	sessions string
}

func newHome(t *testing.T) *home {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".tape"), 0o700); err != nil {
		t.Fatal(err)
	}
	ws, err := tapelog.Open(filepath.Join(dir, ".tape"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	sessions := filepath.Join(dir, "sessions", "-home-u-app")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	return &home{t: t, ws: ws, sessions: sessions}
}

// write writes a file of the session, as finished an hour ago.
func (h *home) write(name, data string) string {
	h.t.Helper()
	path := filepath.Join(h.sessions, name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil { // in place, as Droid's writeFile
		h.t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, past, past); err != nil {
		h.t.Fatal(err)
	}
	return path
}

// importPaths imports paths, and returns how many entries it wrote.
func (h *home) importPaths(paths ...string) int {
	h.t.Helper()
	st, err := importer.New(h.ws, droid.Source{}).Import(context.Background(), paths)
	if err != nil {
		h.t.Fatal(err)
	}
	n := 0
	for _, s := range st {
		n += s.Imported
	}
	return n
}

// entries are the session's tape's entries: id, kind and payload.
func (h *home) entries() []string {
	h.t.Helper()
	tape, err := h.ws.Tape("droid-7c1e2a90")
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for e, err := range tape.All(context.Background()) {
		if err != nil {
			h.t.Fatal(err)
		}
		out = append(out, e.ID+" "+e.Kind+" "+string(e.Payload))
	}
	return out
}

func settings(input string) string {
	return "{\n  \"model\": \"gpt-5\",\n  \"providerLockTimestamp\": \"2026-01-05T10:00:00.000Z\",\n  \"tokenUsage\": {\n    \"inputTokens\": " + input + "\n  }\n}"
}

const transcript = `{"type":"session_start","id":"` + session + `","title":"fix it","cwd":"/home/u/app","callingSessionId":"p"}
{"type":"message","id":"m1","timestamp":"2026-01-05T10:00:01.000Z","message":{"role":"user","content":"fix it"}}
`

// Droid writes a session's settings over at every turn: each import of a
// new version adds its settings and its run, whose usage_id is the
// session's (tape usage counts the largest); an import of the same
// version adds nothing.
func TestSettingsWrittenOver(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.write(session+".jsonl", transcript)
	settingsFile := h.write(session+".settings.json", settings("100"))
	if n := h.importPaths(filepath.Dir(h.sessions)); n != 5 {
		t.Fatalf("the first import wrote %d entries, want the anchor, the title, the message, the settings and the run", n)
	}
	h.write(session+".settings.json", settings("250")) // the same size: the bytes changed
	if n := h.importPaths(filepath.Dir(h.sessions)); n != 2 {
		t.Fatalf("the settings written over: %d entries, want its settings and its run", n)
	}
	if n := h.importPaths(settingsFile); n != 0 {
		t.Fatalf("the same settings again: %d entries", n)
	}
	runs := 0
	for _, e := range h.entries() {
		if strings.Contains(e, `"name":"run"`) {
			runs++
			if !strings.Contains(e, `"usage_id":"droid:`+session+`"`) {
				t.Errorf("a run without the session's usage_id: %s", e)
			}
		}
	}
	if runs != 2 {
		t.Errorf("%d runs, want one per version of the settings:\n%s", runs, strings.Join(h.entries(), "\n"))
	}
}

// A settings file read before its transcript (a session just begun, as
// followed) makes the tape's first anchor; the transcript's, of the same
// id, is then not written, but its title and working directory still
// reach the tape.
func TestSettingsBeforeTranscript(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.importPaths(h.write(session+".settings.json", settings("100")))
	h.importPaths(h.write(session+".jsonl", transcript))
	got := strings.Join(h.entries(), "\n")
	for _, want := range []string{
		session + ` anchor {"name":"session/start","state":{"source":"droid","session_id":"` + session + `","file":"` + filepath.Join(h.sessions, session+".settings.json") + `"}}`,
		`"name":"title"`, `"name":"run"`, `m1 message {"role":"user","content":"fix it"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the tape lacks %s:\n%s", want, got)
		}
	}
	if strings.Count(got, " anchor ") != 1 {
		t.Errorf("the tape has more than one anchor:\n%s", got)
	}
}

// BenchmarkImport imports 8 generated sessions of 2 MB each, with their
// settings, into a new workspace: the throughput of a first `tape import
// droid`, without the index, beside cat of the same files.
//
//	go test ./importer/droid -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: droid.BenchTranscript(2 << 20),
		Write: func(root string, k int, data []byte) error {
			id := string(corpus.RewriteIDs(k, []byte("00000000-3d4b-4f6a-9b8c-1d2e3f4a5b6c")))
			if err := sourcetest.WriteFile(root, "-home-u-app/"+id+".jsonl", data); err != nil {
				return err
			}
			return sourcetest.WriteFile(root, "-home-u-app/"+id+".settings.json", []byte(settings(fmt.Sprint(1000*(k+1)))))
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, droid.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
