package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// tape context as an agent runs it: a real process, its stdout a JSON
// array, its errors one line with an exit status.
func TestContextProcess(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	outside := t.TempDir()
	tests := []struct {
		name      string
		dir       string
		setup     [][]string // commands run before, in process
		args      []string
		code      int
		stdout    string // exact, when code is 0
		stderrHas string
	}{
		{"empty anchor", dir, nil, []string{"context", "--json"}, exitOK, "[]\n", ""},
		{"after the last anchor", dir, [][]string{
			{"append", "-k", "message", `{"role":"user","content":"旧的"}`},
			{"handoff", "第二阶段", "--state", `{"k":"值"}`},
			{"append", "-k", "message", `{"role":"user","content":"新的 <b>&"}`},
			{"append", "-k", "message", "--meta", `{"context":false}`, `{"role":"user","content":"hidden"}`},
			{"append", "-k", "system", `{"content":"sys"}`},
		}, []string{"context", "--json"}, exitOK, `[{"role":"user","content":"新的 <b>&"}]` + "\n", ""},
		{"after a named anchor", dir, nil, []string{"context", "--anchor", "第二阶段", "--json"}, exitOK, `[{"role":"user","content":"新的 <b>&"}]` + "\n", ""},
		{"all", dir, nil, []string{"context", "--all"}, exitOK,
			"assistant  [Anchor created: session/start]: {\"owner\": \"human\"}\nuser       旧的\nassistant  [Anchor created: 第二阶段]: {\"k\": \"值\"}\nuser       新的 <b>&\n", ""},
		{"no such anchor", dir, nil, []string{"context", "--anchor", "nope"}, exitWorkspace, "", "'tape anchors' lists them"},
		{"all and anchor", dir, nil, []string{"context", "--all", "--anchor", "x"}, exitUsage, "", "not both"},
		{"no such tape", dir, nil, []string{"--tape", "other", "context"}, exitWorkspace, "", `no such tape "other"`},
		{"outside a workspace", outside, nil, []string{"context"}, exitWorkspace, "", "tape init"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, args := range tt.setup {
				mustRun(t, tt.dir, args...)
			}
			stdout, stderr, code := runProcess(t, tt.dir, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, stderr)
			}
			if code == exitOK && stdout != tt.stdout {
				t.Errorf("stdout\n%s\nwant\n%s", stdout, tt.stdout)
			}
			if code != exitOK && (!strings.Contains(stderr, tt.stderrHas) || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "tape: ")) {
				t.Errorf("stderr %q, want one line saying %q", stderr, tt.stderrHas)
			}
			if strings.HasSuffix(strings.Join(tt.args, " "), "--json") && code == exitOK && !json.Valid([]byte(stdout)) {
				t.Errorf("--json output %q is not one JSON value", stdout)
			}
		})
	}
}

func TestProgressBar(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if p := newProgress(&buf, "x", 10, "bytes"); p.w != nil {
		t.Error("a bar on a buffer, which is no terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a regular file is taken for a terminal")
	}
	if _, term := openPTY(t); newProgress(term, "x", 10, "bytes").w == nil {
		t.Error("no bar on a terminal")
	}
	// A warning written while the bar shows erases it first (second review).
	var shared bytes.Buffer
	warned := &progressBar{w: &shared, label: "importing", total: 10}
	warned.set(5)
	fmt.Fprint(warned.Writer(&shared), "tape: warning: x\n")
	if got := shared.String(); !strings.HasSuffix(got, "%\r\x1b[Ktape: warning: x\n") {
		t.Errorf("warning after the bar: %q; want the bar erased first", got)
	}
	p := &progressBar{w: &buf, label: "importing 文件\x1b", total: 200}
	p.set(50)
	p.set(100) // within progressRedraw of the last: not drawn
	p.done()
	want := "\r\x1b[Kimporting 文件\\x1b [#######-----------------------]  25%\r\x1b[K"
	if buf.String() != want {
		t.Errorf("bar drew %q, want %q", buf.String(), want)
	}
	buf.Reset()
	counter := &progressBar{w: &buf, label: "indexing", unit: "entries", after: time.Now().Add(time.Hour)}
	counter.set(5) // too early: a short pass shows no bar
	counter.after = time.Time{}
	counter.set(7)
	counter.done()
	if want := "\r\x1b[Kindexing: 7 entries\r\x1b[K"; buf.String() != want {
		t.Errorf("counter drew %q, want %q", buf.String(), want)
	}
}
