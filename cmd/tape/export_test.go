package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tape export writes no planted secret in any format, by default; with
// --no-redact it writes them as they are (so the test can see them).
func TestExportRedactsEverySecret(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	planted := writePlanted(t, dir, "leaky", 3)
	for _, format := range []string{"md", "html", "json", "jsonl"} {
		stdout, stderr, code := runTape(t, dir, "export", "-t", "leaky", "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		for _, p := range planted {
			if strings.Contains(stdout, p.Secret) || strings.Contains(stdout, jsonInner(p.Secret)) {
				t.Errorf("%s: %s exported", format, p.Name)
			}
			if !strings.Contains(stdout, "[REDACTED:"+p.Kind+"]") {
				t.Errorf("%s: no [REDACTED:%s] for %s", format, p.Kind, p.Name)
			}
		}
		if !strings.Contains(stderr, "secrets written as [REDACTED:<kind>]") {
			t.Errorf("%s: stderr %q; want the count of secrets redacted", format, stderr)
		}
		checkExportShape(t, format, stdout)
		raw := mustRun(t, dir, "export", "-t", "leaky", "--format", format, "--no-redact")
		for _, p := range planted {
			first, _, _ := strings.Cut(p.Secret, "\n") // Markdown quotes thinking a line at a time
			if !strings.Contains(raw, first) && !strings.Contains(raw, jsonInner(p.Secret)) && !strings.Contains(raw, htmlInner(first)) {
				t.Errorf("%s --no-redact: %s not written", format, p.Name)
			}
		}
	}
}

func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return strings.ReplaceAll(string(b[1:len(b)-1]), `\u0026`, "&")
}

func htmlInner(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}

// checkExportShape holds an export to its format: JSON that parses, lines
// that do, a page that loads nothing.
func checkExportShape(t *testing.T, format, out string) {
	t.Helper()
	switch format {
	case "json":
		var entries []map[string]any
		if err := json.Unmarshal([]byte(out), &entries); err != nil || len(entries) == 0 {
			t.Errorf("json: %v, %d entries", err, len(entries))
		}
	case "jsonl":
		if recs := jsonRecords(t, out); len(recs) == 0 {
			t.Error("jsonl: no entry")
		}
	case "html":
		for _, bad := range []string{"<script", "<link", "src=", "url(", "@import", `href="http`, `href="/`} {
			if strings.Contains(out, bad) {
				t.Errorf("html: %q in the page", bad)
			}
		}
		if !strings.Contains(out, "Content-Security-Policy") || !strings.Contains(out, "<style>") {
			t.Error("html: no inline style or no content security policy")
		}
	}
}

// What a transcript holds is text: a tag in it is shown, never made.
func TestExportEscapesWhatTheTranscriptHolds(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	mustRun(t, dir, "append", "-k", "message", `{"role":"user","content":"<script>alert(1)</script> and </details><img src=x onerror=alert(2)>"}`)
	mustRun(t, dir, "append", "-k", "message", "{\"role\":\"assistant\",\"content\":\"```html\\n<b>kept in code</b>\\n```\"}")
	md := mustRun(t, dir, "export")
	for _, bad := range []string{"<script>", "</details><img", "<img src"} {
		if strings.Contains(md, bad) {
			t.Errorf("md: %q left as a tag", bad)
		}
	}
	if !strings.Contains(md, "&lt;script>alert(1)&lt;/script>") || !strings.Contains(md, "<b>kept in code</b>") {
		t.Errorf("md: the text is not shown as written:\n%s", md)
	}
	page := mustRun(t, dir, "export", "--format", "html")
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<img src=x") {
		t.Error("html: a tag of the transcript made")
	}
}

// Several tapes go to a folder: a file each and an index; one tape to
// the file -o names, in the format of its extension.
func TestExportToFilesAndFolders(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	writePlanted(t, dir, "one", 4)
	writePlanted(t, dir, "two", 5)
	out := filepath.Join(dir, "out")
	mustRun(t, dir, "export", "one", "two", "-o", out, "--format", "html")
	for _, name := range []string{"one.html", "two.html", "index.html"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || len(data) == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	index, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if !strings.Contains(string(index), `href="one.html"`) {
		t.Errorf("the index links no tape:\n%s", index)
	}
	mustRun(t, dir, "export", "-t", "one", "-o", filepath.Join(dir, "one.jsonl"))
	data, err := os.ReadFile(filepath.Join(dir, "one.jsonl"))
	if err != nil || len(jsonRecords(t, string(data))) == 0 {
		t.Errorf("-o one.jsonl: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "one.jsonl")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("-o one.jsonl: %v, mode %v; want private to its owner", err, fi.Mode().Perm())
	}
	if _, stderr, code := runTape(t, dir, "export", "one", "two"); code != exitUsage || !strings.Contains(stderr, "-o DIR") {
		t.Errorf("two tapes to stdout: exit %d, %q", code, stderr)
	}
	mustRun(t, dir, "export", "--all-tapes", "-o", filepath.Join(dir, "all"), "--format", "md")
	if entries, _ := os.ReadDir(filepath.Join(dir, "all")); len(entries) != 4 { // main, one, two, index
		t.Errorf("--all-tapes wrote %d files; want 4", len(entries))
	}
}

// To a terminal, an export's lines are made printable: a transcript's
// terminal escape is shown, not run; to a file or a pipe it is kept.
func TestExportToATerminalIsPrintable(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	mustRun(t, dir, "append", "-k", "message", `{"role":"user","content":"clear \u001b[2J the screen"}`)
	if out := mustRun(t, dir, "export", "--no-redact"); !strings.Contains(out, "\x1b[2J") {
		t.Errorf("to a pipe, the text changed: %q", out)
	}
	master, slave := openPTY(t)
	var stderr strings.Builder
	env := &Env{Stdin: strings.NewReader(""), Stdout: slave, Stderr: &stderr, Dir: dir}
	got := make(chan string, 1)
	go func() {
		var b strings.Builder
		buf := make([]byte, 4096)
		for !strings.Contains(b.String(), "Exported by tape") {
			n, err := master.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		got <- b.String()
	}()
	code := run(context.Background(), []string{"export", "--no-redact"}, env)
	slave.Close() // the reader then reads what is left, and stops
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := <-got
	if strings.Contains(out, "\x1b") || !strings.Contains(out, `clear \x1b[2J the screen`) {
		t.Errorf("to a terminal: %q", out)
	}
}
