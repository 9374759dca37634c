package main

import (
	"fmt"
	"html"
	"math/rand/v2"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/redact"
	"github.com/tape-dev/tape/web"

	"github.com/tape-dev/tape/internal/rawjson"
	"github.com/tape-dev/tape/redact/redacttest"
)

// writePlanted writes a tape whose entries hold each planted secret once,
// in a message, a call's arguments, a result and a thinking event in
// turn, and returns the secrets by the id of the entry that holds each.
func writePlanted(t *testing.T, dir, tape string, seed uint64) map[string]redacttest.Planted {
	t.Helper()
	folder := filepath.Join(dir, ".tape", "tapes", tape, "anchors", "001_start")
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	anchor := `{"kind":"anchor","payload":{"name":"start","state":{}},"date":"2026-11-28T10:00:00Z"}` + "\n"
	if err := os.WriteFile(filepath.Join(folder, "anchor.json"), []byte(anchor), 0o600); err != nil {
		t.Fatal(err)
	}
	byID := map[string]redacttest.Planted{}
	var lines strings.Builder
	for i, p := range redacttest.Secrets(rand.New(rand.NewPCG(seed, 36))) {
		id := fmt.Sprintf("%s-%d", tape, i)
		byID[id] = p
		var kind string
		var payload []byte
		switch i % 4 {
		case 0:
			kind, payload = "message", rawjson.NewObject().Str("role", "user").Str("content", p.Line).Done()
		case 1:
			args := rawjson.NewObject().Str("command", p.Line).Done()
			fn := rawjson.NewObject().Str("name", "Bash").Str("arguments", string(args)).Done()
			kind, payload = "tool_call", rawjson.NewObject().Raw("calls", rawjson.Array(rawjson.NewObject().Str("id", id).Raw("function", fn).Done())).Done()
		case 2:
			res := rawjson.NewObject().Str("tool_call_id", id).Str("content", "$ cat .env\n"+p.Line+"\n").Done()
			kind, payload = "tool_result", rawjson.NewObject().Raw("results", rawjson.Array(res)).Done()
		default:
			data := rawjson.NewObject().Str("thinking", "They pasted "+p.Line).Done()
			kind, payload = "event", rawjson.NewObject().Str("name", "thinking").Raw("data", data).Done()
		}
		fmt.Fprintf(&lines, `{"id":%q,"kind":%q,"payload":%s,"date":"2026-11-28T10:00:%02dZ"}`+"\n", id, kind, payload, i)
	}
	if err := os.WriteFile(filepath.Join(folder, "entries.jsonl"), []byte(lines.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return byID
}

// tape secrets names every planted secret by its tape, anchor, entry id
// and kind, prints none of them, and exits 1; a tape without one, 0.
func TestSecretsFindsEveryPlantedSecret(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	planted := writePlanted(t, dir, "leaky", 1)
	for id, p := range writePlanted(t, dir, "leaky2", 2) {
		planted[id] = p
	}
	stdout, stderr, code := runTape(t, dir, "secrets", "--all-tapes", "--json")
	if code != exitNoMatch {
		t.Fatalf("exit %d; want 1: %s", code, stderr)
	}
	for _, p := range planted {
		if strings.Contains(stdout+stderr, p.Secret) {
			t.Errorf("%s printed", p.Name)
		}
	}
	found := map[string]string{}
	for _, rec := range jsonRecords(t, stdout) {
		if rec["anchor"] != "001_start" || rec["file"] == "" || rec["line"] == nil {
			t.Errorf("record %v: want its anchor, file and line", rec)
		}
		found[rec["id"].(string)] = rec["kind"].(string)
	}
	for id, p := range planted {
		if kind, ok := found[id]; !ok || kind != p.Kind {
			t.Errorf("%s (%s): found as %q; want %s", p.Name, id, kind, p.Kind)
		}
	}
	if !strings.Contains(stderr, "50 secrets in 2 of 3 tapes") {
		t.Errorf("stderr %q; want the count", stderr)
	}
	table := mustFail(t, dir, exitNoMatch, "secrets", "--tape", "leaky")
	if !strings.Contains(table, "TAPE") || !strings.Contains(table, "leaky-0") || strings.Contains(table, "leaky2") {
		t.Errorf("the table of one tape:\n%s", table)
	}
	if _, stderr, _ := runTape(t, dir, "doctor"); !strings.Contains(stderr, "note: 50 secrets in 2 of 3 tapes") {
		t.Errorf("tape doctor: %q; want a note of the secrets", stderr)
	}
	mustRun(t, dir, "append", "-k", "message", `{"role":"user","content":"nothing secret here: token := auth.Token(ctx)"}`)
	if _, stderr, code := runTape(t, dir, "secrets"); code != exitOK || !strings.Contains(stderr, "no secret found in 1 tape") {
		t.Errorf("a tape without secrets: exit %d, %q", code, stderr)
	}
}

// mustFail runs tape, wants exit code, and returns stdout.
func mustFail(t *testing.T, dir string, code int, args ...string) string {
	t.Helper()
	stdout, stderr, got := runTape(t, dir, args...)
	if got != code {
		t.Fatalf("tape %s: exit %d, want %d: %s", strings.Join(args, " "), got, code, stderr)
	}
	return stdout
}

// tape mcp sends no planted secret: not in a tool's result (structured
// or text), not in a resource; --no-redact sends them.
func TestMCPRedactsEverySecret(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	planted := writePlanted(t, dir, "leaky", 6)
	requests := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log","arguments":{"tape":"leaky","all":true}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"cat","all_tapes":true}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"tape://leaky"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search","arguments":{"query":"ghp","all_tapes":true}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search","arguments":{"query":"AKIA","all_tapes":true}}}`,
	}, "\n") + "\n"
	out, stderr, code := runTapeStdin(t, dir, requests, "mcp")
	if code != 0 {
		t.Fatalf("tape mcp: exit %d: %s", code, stderr)
	}
	if n := strings.Count(out, "\n"); n < 4 {
		t.Fatalf("%d answers; want 4:\n%s", n, out)
	}
	for _, p := range planted {
		if strings.Contains(out, jsonInner(p.Secret)) || strings.Contains(out, jsonInner(jsonInner(p.Secret))) {
			t.Errorf("%s sent", p.Name)
		}
	}
	if !strings.Contains(out, "[REDACTED:") {
		t.Error("no secret marked redacted")
	}
	for _, p := range planted { // nor a part of one, as a snippet cuts it
		first, _, _ := strings.Cut(p.Secret, "\n")
		if len(first) >= 24 && (strings.Contains(out, first[len(first)-16:]) || strings.Contains(out, first[4:20])) {
			t.Errorf("a part of %s sent", p.Name)
		}
	}
	raw, _, _ := runTapeStdin(t, dir, requests, "mcp", "--no-redact")
	sent := 0
	for _, p := range planted {
		if strings.Contains(raw, jsonInner(p.Secret)) || strings.Contains(raw, jsonInner(jsonInner(p.Secret))) {
			sent++
		}
	}
	if sent != len(planted) {
		t.Errorf("--no-redact sent %d of %d secrets", sent, len(planted))
	}
}

// tape serve with a redactor (always beyond loopback, --redact on it)
// shows no planted secret on any page; without one it shows them.
func TestServeRedactsEverySecret(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	planted := writePlanted(t, dir, "leaky", 7)
	for id, p := range writePlanted(t, dir, "live", 9) { // a tape called as the live stream's route; a second key of each vendor
		planted[id] = p
	}
	// A title of 300 characters: the page shows 200 of them, its title="" all.
	titled := planted["leaky-0"]
	mustRun(t, dir, "append", "-t", "titled", "-k", "message", `{"role":"user","content":"`+strings.Repeat("please look at this ", 15)+titled.Line+`"}`)
	mustRun(t, dir, "reindex")
	ws, err := tapelog.Open(filepath.Join(dir, ".tape"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	r, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{"/", "/t/leaky", "/t/leaky/a/001_start", "/t/live", "/search?q=cat", "/calls"}
	for _, p := range planted { // a search for a token's start: its match marked inside the token
		head := p.Secret[:min(4, len(p.Secret))]
		pages = append(pages, "/search?q="+url.QueryEscape(head))
	}
	for _, redactor := range []*redact.Redactor{r, nil} {
		srv, err := web.New(ws, web.Options{Redactor: redactor})
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for _, page := range pages {
			rec := httptest.NewRecorder()
			srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1"+page, nil))
			if rec.Code != 200 {
				t.Fatalf("%s: %d", page, rec.Code)
			}
			all.WriteString(html.UnescapeString(rec.Body.String()))
		}
		srv.Close()
		shown := 0
		for _, p := range planted {
			if strings.Contains(all.String(), p.Secret) || strings.Contains(all.String(), jsonInner(p.Secret)) {
				shown++
				if redactor != nil {
					i := strings.Index(all.String(), p.Secret)
					if i < 0 {
						i = strings.Index(all.String(), jsonInner(p.Secret))
					}
					t.Errorf("%s shown, after %q", p.Name, all.String()[max(0, i-200):max(0, i)])
				}
			}
		}
		if redactor != nil {
			for _, p := range planted { // nor a part of one: the last 16 bytes of its first line
				first, _, _ := strings.Cut(p.Secret, "\n")
				if len(first) >= 24 && strings.Contains(all.String(), first[len(first)-16:]) {
					t.Errorf("the end of %s shown", p.Name)
				}
			}
		}
		if redactor == nil && shown == 0 {
			t.Error("without a redactor no secret is shown: the pages do not show what the test plants")
		}
	}
}
