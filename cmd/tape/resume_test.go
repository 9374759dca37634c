package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/web"
)

// tape resume prints the command that reopens a session, from its tape or
// an entry's id; says why when there is none; runs it with --exec.
func TestResume(t *testing.T) {
	dir := newCLIWorkspace(t)
	for _, src := range []string{"claude", "codex"} {
		golden, err := filepath.Abs(filepath.Join("..", "..", "testdata", "import", src, "src"))
		if err != nil {
			t.Fatal(err)
		}
		runTape(t, dir, "import", src, golden) // a bad line or two of the fixtures is exit 0 or 1: the rest is imported
	}
	const claudeLine = "cd /home/u/proj && claude --resume 5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12\n"
	for _, c := range []struct{ name, want string }{
		{"claude-5d7e6b2e", claudeLine},
		{"a0000000-0000-4000-8000-000000000003", claudeLine}, // an entry of it
		{"claude-5d7e6b2e-agent-a3f9c21b", claudeLine},       // its subagent: the session that ran it
	} {
		if got := mustRun(t, dir, "resume", c.name); got != c.want {
			t.Errorf("tape resume %s = %q, want %q", c.name, got, c.want)
		}
	}
	out := mustRun(t, dir, "tapes", "--json")
	codexTape := ""
	for _, rec := range jsonRecords(t, out) {
		if rec["source"] == "codex" {
			codexTape = rec["name"].(string)
			break
		}
	}
	if got := mustRun(t, dir, "resume", codexTape); !strings.Contains(got, "codex resume ") {
		t.Errorf("tape resume %s = %q; want codex resume", codexTape, got)
	}
	rec := jsonRecords(t, mustRun(t, dir, "resume", "claude-5d7e6b2e", "--json"))[0]
	if rec["session_id"] != "5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12" || rec["cwd"] != "/home/u/proj" || rec["command"] != strings.TrimSpace(claudeLine) {
		t.Errorf("--json: %v", rec)
	}
	mustRun(t, dir, "append", "-k", "message", `{"role":"user","content":"hi"}`)
	if _, stderr, code := runTape(t, dir, "resume", "main"); code != exitNoMatch || !strings.Contains(stderr, "no agent's session") {
		t.Errorf("tape resume main: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runTape(t, dir, "resume", "nothing-of-that-name"); code != exitUsage || !strings.Contains(stderr, "tape tapes") {
		t.Errorf("tape resume of nothing: exit %d, %q", code, stderr)
	}

	// --exec runs the agent in the session's folder: a claude of the
	// test's, on a PATH of its own, says where it ran and with what.
	bin := t.TempDir()
	script := "#!/bin/sh\necho \"ran in $(pwd) with $*\"\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	mustRun(t, dir, "append", "-t", "mine", "-k", "message", `{"role":"user","content":"x"}`)
	writeSessionAnchor(t, dir, "fake", "abc-123", cwd)
	// An id a transcript wrote is untrusted: printed, a terminal's escape
	// in it is shown, not run.
	writeSessionAnchor(t, dir, "esc", `abc\u001b[2J`, "/tmp")
	if got := mustRun(t, dir, "resume", "esc"); strings.Contains(got, "\x1b") || !strings.Contains(got, `\x1b[2J`) {
		t.Errorf("tape resume of an id with an escape printed %q", got)
	}
	got := mustRun(t, dir, "resume", "fake", "--exec")
	if want := "ran in " + cwd + " with --resume abc-123\n"; got != want {
		t.Errorf("--exec printed %q, want %q", got, want)
	}
}

// A session's page shows the command that resumes it.
func TestResumeOnTheWebPage(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	golden, err := filepath.Abs(filepath.Join("..", "..", "testdata", "import", "claude", "src"))
	if err != nil {
		t.Fatal(err)
	}
	runTape(t, dir, "import", "claude", golden)
	mustRun(t, dir, "reindex")
	ws, err := tapelog.Open(filepath.Join(dir, ".tape"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	srv, err := web.New(ws, web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/t/claude-5d7e6b2e", nil))
	if want := "cd /home/u/proj &amp;&amp; claude --resume 5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12"; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("the session's page does not show %q", want)
	}
}

// writeSessionAnchor makes tape the tape of a Claude Code session of the
// given id (JSON-escaped, as it goes into the line) and folder.
func writeSessionAnchor(t *testing.T, dir, tape, id, cwd string) {
	t.Helper()
	folder := filepath.Join(dir, ".tape", "tapes", tape, "anchors", "001_session-start")
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	anchor := `{"id":"` + tape + `","kind":"anchor","payload":{"name":"session/start","state":{"source":"claude","session_id":"` + id + `","cwd":"` + cwd + `"}},"date":"2026-11-28T10:00:00Z"}` + "\n"
	if err := os.WriteFile(filepath.Join(folder, "anchor.json"), []byte(anchor), 0o600); err != nil {
		t.Fatal(err)
	}
}
