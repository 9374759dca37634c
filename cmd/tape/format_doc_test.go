package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// docBlock returns the first fenced code block of a language in
// docs/FORMAT.md, so the examples there are the ones that are tested.
func docBlock(t *testing.T, lang string) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatalf("docs/FORMAT.md has no ```%s block", lang)
	}
	return string(m[1])
}

// TestFormatDocExamples runs the writers of docs/FORMAT.md section 9 in a
// new workspace and reads the result back with tape. The shell example
// always runs (sh and flock are part of every Linux base system); the Python
// example runs where python3 is, and .ci/run makes sure it is there
// (TAPE_REQUIRE_PYTHON=1).
func TestFormatDocExamples(t *testing.T) {
	t.Parallel()
	t.Run("sh", func(t *testing.T) {
		dir := t.TempDir()
		runExample(t, dir, "sh", docBlock(t, "sh"), ".sh")
		recs := jsonRecords(t, mustRun(t, dir, "log", "--all", "--json"))
		if len(recs) != 3 || recs[0]["anchor"] != "session/start" || recs[1]["payload"].(map[string]any)["content"] != "hello from sh" ||
			recs[2]["kind"] != "anchor" || recs[2]["anchor"] != "review" || recs[2]["anchor_seq"] != 2.0 {
			t.Errorf("tape written by the shell example reads as %v", recs)
		}
		anchors := jsonRecords(t, mustRun(t, dir, "anchors", "--json"))
		if owner := anchors[0]["state"].(map[string]any)["owner"]; owner != "human" {
			t.Errorf("bootstrap anchor state = %v, want owner human", anchors[0]["state"])
		}
		if state := anchors[1]["state"].(map[string]any); state["summary"] != "said hello" {
			t.Errorf("review anchor state = %v", state)
		}
		for _, p := range []string{".tape", ".tape/tapes", ".tape/tapes/main", ".tape/tapes/main/anchors",
			".tape/tapes/main/anchors/001_session-start", ".tape/tapes/main/anchors/001_session-start/messages.jsonl",
			".tape/tapes/main/anchors/002_review/anchor.json"} {
			assertPrivate(t, filepath.Join(dir, p))
		}
	})
	python, err := exec.LookPath("python3")
	if err != nil && os.Getenv("TAPE_REQUIRE_PYTHON") == "1" {
		t.Fatalf("TAPE_REQUIRE_PYTHON=1 but no python3: %v", err)
	}
	if err == nil {
		t.Run("python", func(t *testing.T) {
			dir := newCLIWorkspace(t)
			runExample(t, dir, python, docBlock(t, "python"), ".py")
			recs := jsonRecords(t, mustRun(t, dir, "log", "--all", "--json"))
			if len(recs) != 3 || recs[1]["payload"].(map[string]any)["content"] != "你好，from Python" || recs[2]["kind"] != "event" {
				t.Errorf("tape written by the Python example reads as %v", recs)
			}
			assertPrivate(t, filepath.Join(dir, ".tape/tapes/main/anchors/001_session-start/messages.jsonl"))
		})
	}
}

func runExample(t *testing.T, dir, interpreter, code, ext string) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "example"+ext)
	if err := os.WriteFile(script, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(interpreter, script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s example: %v\n%s", interpreter, err, out)
	}
}

func assertPrivate(t *testing.T, file string) {
	t.Helper()
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("%s has mode %v; the example must keep it private", file, fi.Mode().Perm())
	}
}
