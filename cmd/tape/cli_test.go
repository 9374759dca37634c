package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/bub"
	"github.com/tape-dev/tape/fresh"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

var ulidPattern = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)

// newCLIWorkspace runs `tape init` in a new folder and returns the folder.
func newCLIWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if _, stderr, code := runTape(t, dir, "init"); code != 0 {
		t.Fatalf("tape init: exit %d: %s", code, stderr)
	}
	return dir
}

func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	stdout, stderr, code := runTape(t, dir, args...)
	if code != 0 {
		t.Fatalf("tape %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// jsonRecords decodes `--json` output, one object per line.
func jsonRecords(t *testing.T, out string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line %q is not JSON: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestCLIExitCodes(t *testing.T) {
	t.Parallel()
	ws := newCLIWorkspace(t)
	tests := []struct {
		name      string
		dir       string // "" = outside any workspace
		args      []string
		stdin     string
		code      int
		stderrHas string
	}{
		{"outside a workspace", "", []string{"log"}, "", exitWorkspace, "run 'tape init'"},
		{"help", ws, []string{"--help"}, "", exitOK, ""},
		{"unknown flag", ws, []string{"log", "--nope"}, "", exitUsage, "unknown flag"},
		{"append without kind", ws, []string{"append", "{}"}, "", exitUsage, "--kind is required"},
		{"append without payload", ws, []string{"append", "-k", "event"}, "", exitUsage, "PAYLOAD is required"},
		{"payload not an object", ws, []string{"append", "-k", "event", "[1]"}, "", exitUsage, "must be a JSON object"},
		{"payload not json", ws, []string{"append", "-k", "event", "{"}, "", exitUsage, "not valid JSON"},
		{"meta not an object", ws, []string{"append", "-k", "event", "--meta", "1", "{}"}, "", exitUsage, "meta must be a JSON object"},
		{"anchor kind", ws, []string{"append", "-k", "anchor", "{}"}, "", exitUsage, "hand off"},
		{"jsonl with kind", ws, []string{"append", "--jsonl", "-k", "event"}, "", exitUsage, "--jsonl"},
		{"tape name escapes", ws, []string{"--tape", "../x", "log"}, "", exitUsage, "path separator"},
		{"no such tape", ws, []string{"--tape", "other", "log"}, "", exitWorkspace, `no such tape "other"`},
		{"no such anchor", ws, []string{"show", "nope"}, "", exitWorkspace, `no such anchor "nope"`},
		{"bad state", ws, []string{"handoff", "x", "--state", "[]"}, "", exitUsage, "--state must be a JSON object"},
		{"summary twice", ws, []string{"handoff", "x", "--state", `{"summary":"a"}`, "--summary", "b"}, "", exitUsage, "give one"},
		{"session and tape", ws, []string{"--session", "s", "--tape", "t", "log"}, "", exitUsage, "give one"},
		{"negative limit", ws, []string{"log", "--limit=-1"}, "", exitUsage, "-n must be"},
		{"no token budget", ws, []string{"context", "--max-tokens", "0"}, "", exitUsage, "--max-tokens must be a positive number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runTapeStdin(t, tt.dir, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderrHas) {
				t.Errorf("tape %v: exit %d, stderr %q; want exit %d and %q", tt.args, code, stderr, tt.code, tt.stderrHas)
			}
			if code != 0 && (!strings.HasPrefix(stderr, "tape: ") || strings.Count(stderr, "\n") != 1) {
				t.Errorf("stderr %q is not one line starting with 'tape: '", stderr)
			}
		})
	}
	// None of the refused commands wrote anything.
	recs := jsonRecords(t, mustRun(t, ws, "log", "--all", "--json"))
	if len(recs) != 1 {
		t.Errorf("after refused commands the tape has %d entries, want only the bootstrap anchor", len(recs))
	}
}

func TestCLIAppendAndLog(t *testing.T) {
	t.Parallel()
	ws := newCLIWorkspace(t)
	id := strings.TrimSpace(mustRun(t, ws, "append", "--kind", "message", `{"role":"user","content":"hi"}`))
	if !ulidPattern.MatchString(id) {
		t.Errorf("append printed %q, want a ULID", id)
	}
	stdout, stderr, code := runTapeStdin(t, ws, `{"name":"run","data":{"status":"ok"}}`, "append", "-k", "event", "--meta", `{"by":"test"}`, "-")
	if code != 0 {
		t.Fatalf("append - : exit %d: %s", code, stderr)
	}
	id2 := strings.TrimSpace(stdout)
	recs := jsonRecords(t, mustRun(t, ws, "log", "--json"))
	if len(recs) != 3 || recs[1]["id"] != id || recs[2]["id"] != id2 {
		t.Fatalf("log --json = %v; want the anchor, %s, %s", recs, id, id2)
	}
	r := recs[2]
	for _, key := range []string{"id", "tape", "anchor", "anchor_seq", "kind", "date", "payload", "meta", "file", "line"} {
		if _, ok := r[key]; !ok {
			t.Errorf("log --json lacks %q: %v", key, r)
		}
	}
	if r["tape"] != "main" || r["anchor"] != "session/start" || r["anchor_seq"] != 1.0 || r["kind"] != "event" ||
		r["file"] != "tapes/main/anchors/001_session-start/events.jsonl" || r["line"] != 1.0 {
		t.Errorf("log --json record = %v", r)
	}
	if meta, _ := r["meta"].(map[string]any); meta["by"] != "test" {
		t.Errorf("meta = %v, want {by: test}", r["meta"])
	}
	// Filters.
	if recs := jsonRecords(t, mustRun(t, ws, "log", "--json", "--kind", "message,event", "-n", "1")); len(recs) != 1 || recs[0]["id"] != id2 {
		t.Errorf("log --kind message,event -n 1 = %v, want only %s", recs, id2)
	}
	if recs := jsonRecords(t, mustRun(t, ws, "log", "--json", "-k", "message")); len(recs) != 1 || recs[0]["id"] != id {
		t.Errorf("log -k message = %v, want only %s", recs, id)
	}
	// Human output names the kinds and the text.
	human := mustRun(t, ws, "log")
	if !strings.Contains(human, "message      user: hi") || !strings.Contains(human, "── 001 session/start") {
		t.Errorf("log for a person =\n%s", human)
	}
}

func TestCLIAppendJSONL(t *testing.T) {
	t.Parallel()
	ws := newCLIWorkspace(t)
	in := strings.Join([]string{
		`{"kind":"event","payload":{"n":1}}`,
		``,
		`{"role":"user","content":"bare"}`,
		`{"id":42,"kind":"message","payload":{"role":"user","content":"keeps its id"},"date":"2026-01-01T00:00:00Z"}`,
	}, "\n") + "\n"
	stdout, stderr, code := runTapeStdin(t, ws, in, "append", "--jsonl")
	if code != 0 {
		t.Fatalf("append --jsonl: exit %d: %s", code, stderr)
	}
	ids := strings.Fields(stdout)
	if len(ids) != 3 || !ulidPattern.MatchString(ids[0]) || ids[2] != "42" {
		t.Errorf("append --jsonl printed %q, want 3 ids, the last 42", ids)
	}
	// The first refused line stops the command; the lines before it stay.
	in = `{"kind":"event","payload":{"n":2}}` + "\n" + `{"kind":"event","payload":[]}` + "\n" + `{"kind":"event","payload":{"n":3}}` + "\n"
	stdout, stderr, code = runTapeStdin(t, ws, in, "append", "--jsonl")
	if code != exitUsage || !strings.Contains(stderr, "stdin line 2") || len(strings.Fields(stdout)) != 1 {
		t.Errorf("append --jsonl with a bad line 2: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	in = `{"kind":"event","payload":{"n":4}}` + "\n" + `not json` + "\n"
	stdout, stderr, code = runTapeStdin(t, ws, in, "append", "--jsonl")
	if code != exitUsage || !strings.Contains(stderr, "stdin line 2") || len(strings.Fields(stdout)) != 1 {
		t.Errorf("append --jsonl with unparseable line 2: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	var ns []float64
	for _, r := range jsonRecords(t, mustRun(t, ws, "log", "--json", "-k", "event")) {
		ns = append(ns, r["payload"].(map[string]any)["n"].(float64))
	}
	if len(ns) != 3 || ns[0] != 1 || ns[1] != 2 || ns[2] != 4 {
		t.Errorf("events on the tape: n = %v, want [1 2 4]", ns)
	}
}

func TestCLIHandoffAnchorsShow(t *testing.T) {
	t.Parallel()
	ws := newCLIWorkspace(t)
	mustRun(t, ws, "append", "-k", "message", `{"role":"user","content":"one"}`)
	out := mustRun(t, ws, "handoff", "plan/step 1", "--summary", "did one", "--state", `{"next":"two"}`)
	if strings.TrimSpace(out) != filepath.Join(".tape", "tapes", "main", "anchors", "002_plan-step-1") {
		t.Errorf("handoff printed %q, want the new folder's path", out)
	}
	mustRun(t, ws, "append", "-k", "message", `{"role":"user","content":"two"}`)
	mustRun(t, ws, "append", "-k", "message", `{"role":"user","content":"three"}`)
	recs := jsonRecords(t, mustRun(t, ws, "anchors", "--json"))
	if len(recs) != 2 {
		t.Fatalf("anchors --json = %v", recs)
	}
	a := recs[1]
	state, _ := a["state"].(map[string]any)
	if a["name"] != "plan/step 1" || a["seq"] != 2.0 || a["entries"] != 2.0 || state["summary"] != "did one" || state["next"] != "two" || a["date"] == nil {
		t.Errorf("anchors --json second anchor = %v", a)
	}
	if recs[0]["entries"] != 1.0 {
		t.Errorf("first anchor entries = %v, want 1", recs[0]["entries"])
	}
	// log shows the current anchor; show any other.
	if recs := jsonRecords(t, mustRun(t, ws, "log", "--json")); len(recs) != 3 || recs[0]["kind"] != "anchor" || recs[0]["anchor"] != "plan/step 1" {
		t.Errorf("log after handoff = %v", recs)
	}
	for _, sel := range []string{"session/start", "1", "001_session-start", "session-start"} {
		if recs := jsonRecords(t, mustRun(t, ws, "show", sel, "--json")); len(recs) != 2 || recs[1]["payload"].(map[string]any)["content"] != "one" {
			t.Errorf("show %s = %v", sel, recs)
		}
	}
	if recs := jsonRecords(t, mustRun(t, ws, "log", "--all", "--json")); len(recs) != 5 {
		t.Errorf("log --all has %d entries, want 5", len(recs))
	}
	if recs := jsonRecords(t, mustRun(t, ws, "log", "--from", "plan/step 1", "--json")); len(recs) != 3 {
		t.Errorf("log --from 'plan/step 1' has %d entries, want 3", len(recs))
	}
	if recs := jsonRecords(t, mustRun(t, ws, "log", "--from", "1", "--to", "1", "--json")); len(recs) != 2 {
		t.Errorf("log --from 1 --to 1 has %d entries, want 2", len(recs))
	}
	out = mustRun(t, ws, "handoff", "review", "--json")
	if recs := jsonRecords(t, out); len(recs) != 1 || recs[0]["seq"] != 3.0 || recs[0]["folder"] != "003_review" {
		t.Errorf("handoff --json = %s", out)
	}
}

func TestCLITapeSelection(t *testing.T) {
	ws := newCLIWorkspace(t)
	mustRun(t, ws, "--tape", "other", "append", "-k", "event", `{"n":1}`)
	t.Setenv("TAPE_NAME", "other")
	if recs := jsonRecords(t, mustRun(t, ws, "log", "--json")); len(recs) != 2 || recs[0]["tape"] != "other" {
		t.Errorf("TAPE_NAME=other log = %v", recs)
	}
	t.Setenv("TAPE_NAME", "")
	mustRun(t, ws, "--session", "s-1", "append", "-k", "event", `{"n":2}`)
	want, err := bub.SessionTape(ws, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".tape", "tapes", want)); err != nil {
		t.Errorf("--session s-1 did not write tape %s: %v", want, err)
	}
	// TAPE_DIR from anywhere.
	t.Setenv("TAPE_DIR", filepath.Join(ws, ".tape"))
	if recs := jsonRecords(t, mustRun(t, "", "--tape", "other", "log", "--json")); len(recs) != 2 {
		t.Errorf("TAPE_DIR log = %v", recs)
	}
	// From a subfolder, the workspace above is found.
	t.Setenv("TAPE_DIR", "")
	sub := filepath.Join(ws, "src", "pkg")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if recs := jsonRecords(t, mustRun(t, sub, "log", "--json")); len(recs) != 1 {
		t.Errorf("log from a subfolder = %v", recs)
	}
}

// A workspace made with mkdir alone works.
func TestCLIHandMadeWorkspace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".tape/tapes/x/anchors/001_start"), 0o700); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "--tape", "x", "append", "-k", "message", `{"role":"user","content":"hi"}`)
	recs := jsonRecords(t, mustRun(t, dir, "--tape", "x", "log", "--json"))
	if len(recs) != 2 || recs[0]["anchor"] != "start" || recs[1]["file"] != "tapes/x/anchors/001_start/messages.jsonl" {
		t.Errorf("log of a hand-made workspace = %v", recs)
	}
}

func TestCLIDemo(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "demo")
	out := mustRun(t, "", "demo", dir)
	for _, want := range []string{"$ tape anchors", "review", "请检查一下这个修改有没有问题。", "修改没有问题", "$ tape search 修改", "main 002 review", "main 001 session/start", "completed", "bash({\"cmd\":\"go test ./store\"})", "gpt-4.1"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "**") { // without color, search marks no match
		t.Errorf("demo output marks a match with **:\n%s", out)
	}
	if _, _, code := runTape(t, "", "demo", dir); code != exitUsage {
		t.Errorf("demo into a non-empty folder: exit %d, want %d", code, exitUsage)
	}
}

// Tool output may hold terminal escape sequences; what tape prints for a
// person must not pass them through.
func TestCLINoTerminalEscapes(t *testing.T) {
	t.Parallel()
	ws := newCLIWorkspace(t)
	evil := `{"role":"user","content":"\u001b]0;pwned\u0007\u001b[2Jhi \u009b31m"}`
	mustRun(t, ws, "append", "-k", "message", evil)
	// An anchor.json written by hand can name an anchor anything.
	dir := filepath.Join(ws, ".tape/tapes/main/anchors/002_red")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "anchor.json"), []byte(`{"kind":"anchor","payload":{"name":"a\u001b[31mred hi","state":{"x":"\u001b[2J"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"log", "--all"}, {"anchors"}, {"search", "hi"}, {"search", "pwned"}} {
		out := mustRun(t, ws, args...)
		if strings.ContainsAny(out, "\x1b\x07\u009b") {
			t.Errorf("tape %v printed a control character: %q", args, out)
		}
	}
	// --json keeps the text as it is, escaped by JSON.
	if out := mustRun(t, ws, "log", "--all", "--json"); !strings.Contains(out, `\u001b]0;pwned`) {
		t.Errorf("log --json lost the original text: %s", out)
	}
}

// A file that cannot be read is a warning, the rest is printed, and the
// exit status says the output is incomplete.
func TestCLIUnreadableFile(t *testing.T) {
	t.Parallel()
	ws := newCLIWorkspace(t)
	mustRun(t, ws, "append", "-k", "message", `{"role":"user","content":"readable"}`)
	outside := filepath.Join(t.TempDir(), "secret.jsonl")
	os.WriteFile(outside, []byte(`{"role":"user","content":"secret"}`+"\n"), 0o600)
	if err := os.Symlink(outside, filepath.Join(ws, ".tape/tapes/main/anchors/001_session-start/leak.jsonl")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runTape(t, ws, "log", "--all")
	if code != exitWorkspace || !strings.Contains(stdout, "readable") || strings.Contains(stdout, "secret") ||
		!strings.Contains(stderr, "leak.jsonl") || !strings.Contains(stderr, "could not be read") {
		t.Errorf("log with an unreadable file: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.Count(line, "leak.jsonl") > 1 {
			t.Errorf("a warning names the file twice: %q", line)
		}
	}
	if out, _, _ := runTape(t, ws, "doctor"); strings.Count(out, "leak.jsonl") != 1 {
		t.Errorf("doctor names the unreadable file other than once:\n%s", out)
	}
	// Search answers from the rest, and says what it did not search
	// (issue 29: it said nothing).
	stdout, stderr, code = runTape(t, ws, "search", "readable")
	if code != 0 || !strings.Contains(stdout, "readable") || !strings.Contains(stderr, "leak.jsonl") || !strings.Contains(stderr, "not searched") {
		t.Errorf("search with an unreadable file: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if _, stderr, code := runTape(t, ws, "search", "secret"); code != exitNoMatch || !strings.Contains(stderr, "leak.jsonl") {
		t.Errorf("search for a word of the unreadable file only: exit %d, stderr %s; want no match and the warning", code, stderr)
	}
}

// A tape whose anchors folder cannot be listed (here a symlink out of the
// workspace) does not stop the commands of the others: search answers
// from the rest and warns, a read of that tape warns and exits as for an
// unreadable file, and doctor says what to do, which no chmod fixes.
func TestCLIUnlistedTape(t *testing.T) {
	t.Parallel()
	ws := newCLIWorkspace(t)
	mustRun(t, ws, "append", "-k", "message", `{"role":"user","content":"narwhal inside"}`)
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(outside, "001_plan"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(outside, "001_plan", "messages.jsonl"), []byte(`{"kind":"message","payload":{"content":"narwhal outside"}}`+"\n"), 0o600)
	if err := os.MkdirAll(filepath.Join(ws, ".tape/tapes/leak"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, ".tape/tapes/leak/anchors")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runTape(t, ws, "search", "--all-tapes", "narwhal")
	if code != 0 || !strings.Contains(stdout, "inside") || strings.Contains(stdout, "outside") ||
		!strings.Contains(stderr, "tapes/leak/anchors: cannot list: path escapes from parent; its tape is not searched") {
		t.Errorf("search --all-tapes: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if _, stderr, code := runTape(t, ws, "search", "--tape", "leak", "narwhal"); code != exitNoMatch || !strings.Contains(stderr, "tapes/leak/anchors") {
		t.Errorf("search --tape leak: exit %d, stderr %s", code, stderr)
	}
	if _, stderr, code := runTape(t, ws, "search", "narwhal"); code != 0 || stderr != "" {
		t.Errorf("search of the current tape warned of another: exit %d, stderr %s", code, stderr)
	}
	if _, stderr, code := runTape(t, ws, "log", "--tape", "leak", "--all"); code != exitWorkspace || !strings.Contains(stderr, "tapes/leak/anchors") {
		t.Errorf("log --tape leak: exit %d, stderr %s", code, stderr)
	}
	out, _, code := runTape(t, ws, "doctor")
	if code != exitWorkspace || !strings.Contains(out, "tapes/leak/anchors") || !strings.Contains(out, "symlink") || strings.Contains(out, "chmod") {
		t.Errorf("doctor: exit %d\n%s", code, out)
	}
}

// --no-catchup reads the index as it stands, but a missing index is built
// first: it is never an excuse for an empty answer.
func TestCLINoCatchupRebuildsMissingIndex(t *testing.T) {
	t.Parallel()
	ws := newCLIWorkspace(t)
	mustRun(t, ws, "append", "-k", "message", `{"role":"user","content":"发生了一个错误"}`)
	mustRun(t, ws, "search", "错误")
	mustRun(t, ws, "append", "-k", "message", `{"role":"user","content":"later words"}`)
	if _, _, code := runTape(t, ws, "--no-catchup", "search", "later"); code != exitNoMatch {
		t.Errorf("--no-catchup found an entry the index does not have yet (exit %d)", code)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(filepath.Join(ws, ".tape", "index.db"+suffix))
	}
	if out, _, code := runTape(t, ws, "--no-catchup", "search", "错误"); code != 0 || !strings.Contains(out, "错误") {
		t.Errorf("--no-catchup after deleting the index: exit %d, %q", code, out)
	}
}

// A search with no watcher runs beside its catch-up: it answers from the
// index as it stands only when the catch-up changed nothing.
func TestSearchBesideCatchUp(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"alpha first"}`)
	if out := mustRun(t, dir, "search", "--json", "alpha"); !strings.Contains(out, "alpha first") {
		t.Fatalf("search alpha: %q", out)
	}
	if out := mustRun(t, dir, "search", "--json", "alpha"); !strings.Contains(out, "alpha first") { // nothing changed
		t.Fatalf("search alpha again: %q", out)
	}
	appendBytes(t, filepath.Join(firstFolder(t, dir), "messages.jsonl"), `{"kind":"message","payload":{"role":"user","content":"alpha second"}}`+"\n")
	if out := mustRun(t, dir, "search", "--json", "--anchor", "session/start", "second"); !strings.Contains(out, "alpha second") {
		t.Fatalf("search after a hand append: %q", out)
	}
	for _, f := range []string{"index.db", "index.db-wal", "index.db-shm"} {
		os.Remove(filepath.Join(dir, ".tape", f))
	}
	appendBytes(t, filepath.Join(firstFolder(t, dir), "messages.jsonl"), `{"kind":"message","payload":{"role":"user","content":"alpha third"}}`+"\n")
	out := mustRun(t, dir, "search", "--json", "alpha")
	if n := strings.Count(out, "\n"); n != 3 {
		t.Fatalf("search after index.db was deleted: %d hits, want 3:\n%s", n, out)
	}
}

// fresh.Read, which a search runs beside its catch-up, keeps its first answer only if no connection changed the
// index meanwhile: here another process's catch-up (a watcher's, say)
// commits a new line after the query read the index, and the catch-up
// beside it then finds nothing new.
func TestSearchBesideSeesOtherWriters(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"gamma one"}`)
	mustRun(t, dir, "search", "--json", "gamma") // the index exists
	ctx := context.Background()
	open := func() *projector.Projector {
		ws, err := tapelog.Open(filepath.Join(dir, ".tape"))
		if err != nil {
			t.Fatal(err)
		}
		ix, err := projector.Open(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close(); ws.Close() })
		return ix
	}
	ix, watcher := open(), open()
	calls := 0
	find := func() ([]projector.Hit, error) {
		calls++
		hits, err := ix.Search(ctx, projector.SearchQuery{Text: "gamma"})
		if calls == 1 {
			appendBytes(t, filepath.Join(firstFolder(t, dir), "messages.jsonl"), `{"role":"user","content":"gamma two"}`+"\n")
			if _, err := watcher.CatchUp(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return hits, err
	}
	hits, err := fresh.Read(ctx, ix, fresh.Reading{}, find)
	if err != nil || len(hits) != 2 || calls != 2 {
		t.Fatalf("fresh.Read: %d hits after %d queries, %v; want 2 hits after 2", len(hits), calls, err)
	}
}

// fresh.Read keeps the answer of its one query when the catch-up beside
// it finds nothing to write (the folders are settled, so not even their
// listing is written), and queries again, after a catch-up the usual way,
// when index.db was deleted after the process opened it.
func TestSearchBesideKeepsItsAnswer(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"delta one"}`)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(firstFolder(t, dir), old, old); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "reindex")
	mustRun(t, dir, "reindex") // finds nothing new, and writes the state record (projector/staterecord.go)
	ctx := context.Background()
	ws, err := tapelog.Open(filepath.Join(dir, ".tape"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ix, err := projector.Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	calls := 0
	find := func() ([]projector.Hit, error) {
		calls++
		return ix.Search(ctx, projector.SearchQuery{Text: "delta"})
	}
	if hits, err := fresh.Read(ctx, ix, fresh.Reading{}, find); err != nil || len(hits) != 1 || calls != 1 {
		t.Fatalf("fresh.Read with nothing new: %d hits after %d queries, %v; want 1 hit after 1", len(hits), calls, err)
	}

	for _, f := range []string{"index.db", "index.db-wal", "index.db-shm"} {
		os.Remove(filepath.Join(dir, ".tape", f))
	}
	appendBytes(t, filepath.Join(firstFolder(t, dir), "messages.jsonl"), `{"kind":"message","payload":{"content":"delta two"}}`+"\n")
	calls = 0
	if hits, err := fresh.Read(ctx, ix, fresh.Reading{}, find); err != nil || len(hits) != 2 || calls != 2 {
		t.Fatalf("fresh.Read after index.db was deleted: %d hits after %d queries, %v; want 2 hits after 2", len(hits), calls, err)
	}
}

// A list cut to a page says so after its rows, as a person reading a
// terminal, where stdout and stderr meet, expects: the table first.
func TestPageFooterComesAfterTheRows(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	for _, tape := range []string{"a", "b"} {
		mustRun(t, dir, "--tape", tape, "append", "-k", "message", `{"role":"user","content":"hi `+tape+`"}`)
		mustRun(t, dir, "--tape", tape, "append", "-k", "message", `{"role":"assistant","content":"hello"}`)
		mustRun(t, dir, "--tape", tape, "append", "-k", "event", `{"name":"run","data":{"model":"m-`+tape+`","usage":{"input_tokens":1}}}`)
	}
	// usage reads the tape main unless --all-tapes (docs/decisions/0058),
	// and main has no run event here.
	for _, args := range [][]string{{"tapes"}, {"tapes", "--json"}, {"usage", "--all-tapes"}, {"messages", "--tape", "a"}} {
		var both bytes.Buffer
		env := &Env{Stdin: strings.NewReader(""), Stdout: &both, Stderr: &both, Dir: dir}
		if code := run(context.Background(), append(args, "-n", "1"), env); code != 0 {
			t.Fatalf("tape %s -n 1: exit %d: %s", strings.Join(args, " "), code, both.String())
		}
		lines := strings.Split(strings.TrimSuffix(both.String(), "\n"), "\n")
		if last := lines[len(lines)-1]; len(lines) < 2 || !strings.HasPrefix(last, "tape: 1–1 of ") {
			t.Errorf("tape %s -n 1 printed\n%s\nwant its rows, then the footer", strings.Join(args, " "), both.String())
		}
	}
}

// tape calls shows a call's name and arguments in each shape agents write
// a call, and counts only objects as calls, as the context does: an item
// that is no call does not shift the arguments of the calls after it.
func TestCallsShowEveryShapeOfCall(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	mustRun(t, dir, "append", "-k", "tool_call", `{"calls":["not a call",{"id":"c1","name":"Read","input":{"path":"a.go"}},{"id":"c2","type":"custom","custom":{"name":"apply_patch","input":"*** Begin Patch"}}]}`)
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(mustRun(t, dir, "calls", "--json")), "\n") {
		var c struct {
			ID, Name  string
			Arguments json.RawMessage
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		got = append(got, c.ID+" "+c.Name+" "+string(c.Arguments))
	}
	slices.Sort(got)
	want := []string{`c1 Read {"path":"a.go"}`, `c2 apply_patch "*** Begin Patch"`}
	if !slices.Equal(got, want) {
		t.Errorf("tape calls --json: %q; want %q", got, want)
	}
}

// tape tapes says which names in the tapes folder it does not list
// although they may hold a tape: a symlinked tape folder was left out
// without a word (issue 29).
func TestCLITapesWarnsOfASymlinkedTape(t *testing.T) {
	t.Parallel()
	ws := newCLIWorkspace(t)
	mustRun(t, ws, "append", "-k", "message", `{"role":"user","content":"hello"}`)
	if err := os.Symlink(t.TempDir(), filepath.Join(ws, ".tape/tapes/alias")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runTape(t, ws, "tapes")
	if code != 0 || !strings.Contains(stdout, "main") || strings.Contains(stdout, "alias") ||
		!strings.Contains(stderr, "tapes/alias") || !strings.Contains(stderr, "symlink") || !strings.Contains(stderr, "tape doctor") {
		t.Errorf("tape tapes with a symlinked tape folder: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}
