package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runProcess runs the CLI as a real process in dir and returns what it
// printed and its exit status.
func runProcess(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCommand(t, tapeProcess(dir, args...))
}

// runCommand runs cmd and returns what it printed and its exit status.
func runCommand(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	return out.String(), errOut.String(), code
}

// firstFolder is the path of the first anchor folder of tape main.
func firstFolder(t *testing.T, dir string) string {
	t.Helper()
	folders, err := filepath.Glob(filepath.Join(dir, ".tape", "tapes", "main", "anchors", "001_*"))
	if err != nil || len(folders) != 1 {
		t.Fatalf("want one 001_ folder, got %v (%v)", folders, err)
	}
	return folders[0]
}

func appendBytes(t *testing.T, file, data string) {
	t.Helper()
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// snapshot hashes every file under root, so a test can tell that a
// command changed none. SQLite's shared-memory file (-shm) is left out:
// any reader of the index writes it.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, "-shm") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		sum := fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		files[p] = sum
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestDoctorFindsEachProblem makes each problem by hand in a fresh
// workspace, runs the tape binary, and looks for the problem's line and
// exit status 3; a clean workspace exits 0. Doctor must change no file.
func TestDoctorFindsEachProblem(t *testing.T) {
	t.Parallel()
	old := time.Now().Add(-2 * time.Hour)
	tests := []struct {
		name  string
		make  func(t *testing.T, dir, folder string) // folder: the first anchor folder
		check string                                 // "" for a clean workspace
		path  string                                 // the reported path ends with this
		line  int
		has   string // the problem text holds this
	}{
		{"clean", func(t *testing.T, dir, folder string) {}, "", "", 0, ""},
		{"lines the index has not read yet are lag, not drift", func(t *testing.T, dir, folder string) {
			appendBytes(t, filepath.Join(folder, "messages.jsonl"), `{"kind":"message","payload":{"content":"新"}}`+"\n")
		}, "", "", 0, ""},
		{"young temp folder is a writer at work", func(t *testing.T, dir, folder string) {
			mkdir(t, filepath.Join(filepath.Dir(folder), ".tmp-young"))
		}, "", "", 0, ""},
		{"bad line, Chinese", func(t *testing.T, dir, folder string) {
			appendBytes(t, filepath.Join(folder, "messages.jsonl"), "这不是 JSON\n")
		}, "bad_line", "/messages.jsonl", 2, "not a JSON object"},
		{"torn tail", func(t *testing.T, dir, folder string) {
			appendBytes(t, filepath.Join(folder, "messages.jsonl"), `{"kind":"message","payload":{"content":"半`)
		}, "torn_tail", "/messages.jsonl", 2, "no newline"},
		{"folder name", func(t *testing.T, dir, folder string) {
			mkdir(t, filepath.Join(filepath.Dir(folder), "计划"))
		}, "folder_name", "/anchors/计划", 0, "not an anchor folder"},
		{"anchor folder symlinked out of the workspace", func(t *testing.T, dir, folder string) {
			outside := t.TempDir()
			if err := os.Symlink(outside, filepath.Join(filepath.Dir(folder), "002_elsewhere")); err != nil {
				t.Fatal(err)
			}
		}, "folder_name", "/anchors/002_elsewhere", 0, "a symlink to no folder inside the workspace"},
		{"tape name", func(t *testing.T, dir, folder string) {
			mkdir(t, filepath.Join(dir, ".tape", "tapes", " spaced "))
		}, "folder_name", "tapes/ spaced ", 0, "not a tape name"},
		{"duplicate seq", func(t *testing.T, dir, folder string) {
			mkdir(t, filepath.Join(filepath.Dir(folder), "001_copy"))
		}, "duplicate_seq", "/anchors/001_copy", 0, "seq 1 too"},
		{"stale temp folder", func(t *testing.T, dir, folder string) {
			tmp := filepath.Join(filepath.Dir(folder), ".tmp-0123abcd")
			mkdir(t, tmp)
			if err := os.Chtimes(tmp, old, old); err != nil {
				t.Fatal(err)
			}
		}, "temp_file", "/anchors/.tmp-0123abcd", 0, "crashed writer"},
		{"stale temp file", func(t *testing.T, dir, folder string) {
			tmp := filepath.Join(dir, ".tape", ".tmp-config")
			appendBytes(t, tmp, "{}")
			if err := os.Chtimes(tmp, old, old); err != nil {
				t.Fatal(err)
			}
		}, "temp_file", ".tmp-config", 0, "temporary file"},
		{"not a regular file", func(t *testing.T, dir, folder string) {
			if err := syscall.Mkfifo(filepath.Join(folder, "events.jsonl"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "unreadable", "/events.jsonl", 0, "not a regular file"},
		{"bad anchor.json", func(t *testing.T, dir, folder string) {
			if err := os.WriteFile(filepath.Join(folder, "anchor.json"), []byte("{broken\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "anchor_file", "/anchor.json", 0, ""},
		{"index drift: a line rewritten in place", func(t *testing.T, dir, folder string) {
			file := filepath.Join(folder, "messages.jsonl")
			fi, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// Same size, same mtime: the index cannot see the change.
			garbage := bytes.Repeat([]byte("x"), len(data)-1)
			if err := os.WriteFile(file, append(garbage, '\n'), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, "index_drift", "/messages.jsonl", 0, "the index holds 1 entries"},
		{"index drift: a folder removed", func(t *testing.T, dir, folder string) {
			mustRun(t, dir, "handoff", "审查")
			mustRun(t, dir, "reindex")
			review, _ := filepath.Glob(filepath.Join(filepath.Dir(folder), "002_*"))
			if len(review) != 1 {
				t.Fatalf("no 002_ folder: %v", review)
			}
			if err := os.RemoveAll(review[0]); err != nil {
				t.Fatal(err)
			}
		}, "index_drift", "/anchors/002_审查", 0, "gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newCLIWorkspace(t)
			mustRun(t, dir, "append", "-k", "message", `{"role":"user","content":"你好"}`)
			mustRun(t, dir, "reindex")
			tt.make(t, dir, firstFolder(t, dir))
			before := snapshot(t, filepath.Join(dir, ".tape"))
			stdout, stderr, code := runProcess(t, dir, "doctor", "--json")
			after := snapshot(t, filepath.Join(dir, ".tape"))
			for p, sum := range before {
				if after[p] != sum {
					t.Errorf("tape doctor changed %s: %s -> %s", p, sum, after[p])
				}
			}
			if len(after) != len(before) {
				t.Errorf("tape doctor made or removed files: %d -> %d", len(before), len(after))
			}
			if tt.check == "" {
				if code != exitOK || stdout != "" {
					t.Fatalf("clean workspace: exit %d, stdout %q, stderr %q; want 0 and nothing", code, stdout, stderr)
				}
				human, _, code := runProcess(t, dir, "doctor")
				if code != exitOK || !strings.HasPrefix(human, "no problems found") {
					t.Errorf("tape doctor: exit %d, %q; want 0, no problems found", code, human)
				}
				return
			}
			if code != exitWorkspace || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "tape doctor") {
				t.Errorf("exit %d, stderr %q; want %d and one line", code, stderr, exitWorkspace)
			}
			found := false
			for _, r := range jsonRecords(t, stdout) {
				if r["check"] == tt.check && strings.HasSuffix(r["path"].(string), tt.path) &&
					(tt.line == 0 || r["line"] == float64(tt.line)) && strings.Contains(r["problem"].(string), tt.has) {
					found = true
					if fix, _ := r["fix"].(string); fix == "" {
						t.Errorf("%v: no fix", r)
					}
				}
			}
			if !found {
				t.Errorf("no %s problem at ...%s:%d holding %q in\n%s", tt.check, tt.path, tt.line, tt.has, stdout)
			}
			if tt.check != "index_drift" {
				// Neither the lag since the problem was made nor the
				// index's own record of the problem is drift.
				noDrift(t, stdout)
				mustRun(t, dir, "reindex")
				again, _, _ := runProcess(t, dir, "doctor", "--json")
				noDrift(t, again)
			}
			human, _, _ := runProcess(t, dir, "doctor")
			want := tt.path
			if tt.line > 0 {
				want += fmt.Sprintf(":%d: ", tt.line)
			}
			if !strings.Contains(human, "# "+tt.check) || !strings.Contains(human, want) || !strings.Contains(human, "; fix: ") {
				t.Errorf("human output lacks the %s group or %q:\n%s", tt.check, want, human)
			}
		})
	}
}

func noDrift(t *testing.T, jsonl string) {
	t.Helper()
	for _, r := range jsonRecords(t, jsonl) {
		if r["check"] == "index_drift" {
			t.Errorf("false drift: %v", r)
		}
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

// TestDoctorGolden compares doctor's whole output on a workspace with
// several problems with testdata/doctor; the workspace's path reads <ws>.
func TestDoctorGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	anchors := filepath.Join(dir, ".tape", "tapes", "main", "anchors")
	for _, d := range []string{"001_start", "001_again", "plan", "002_计划"} {
		if err := os.MkdirAll(filepath.Join(anchors, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	appendBytes(t, filepath.Join(anchors, "001_start", "messages.jsonl"),
		`{"kind":"message","payload":{"content":"hi"}}`+"\n[1]\n"+`{"kind":"message","payload":{"content":"再见"}}`+"\n")
	appendBytes(t, filepath.Join(anchors, "002_计划", "events.jsonl"), "{\"kind\":\"event\"}\nnot json\n")
	ws := filepath.Join(dir, ".tape")
	for _, args := range [][]string{{"doctor"}, {"doctor", "--json"}} {
		stdout, _, code := runProcess(t, dir, args...)
		if code != exitWorkspace {
			t.Errorf("tape %s: exit %d, want %d", strings.Join(args, " "), code, exitWorkspace)
		}
		name := "want.txt"
		if len(args) > 1 {
			name = "want.jsonl"
		}
		checkGolden(t, filepath.Join("testdata", "doctor", name), strings.ReplaceAll(stdout, ws, "<ws>"))
	}
}
