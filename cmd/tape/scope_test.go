package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// --all-tapes is a usage error with --tape given on the command line, and
// overrides TAPE_NAME: the parse records which of the two named the tape,
// with either model.
func TestTapeFlagOnlyFromTheCommandLine(t *testing.T) {
	t.Setenv("TAPE_DIR", "")
	for _, tc := range []struct {
		env  string
		args []string
		want bool
	}{
		{"", []string{"search", "x"}, false},
		{"", []string{"search", "x", "--tape", "a"}, true},
		{"", []string{"-ta", "search", "x"}, true},
		{"", []string{"--tape=a", "usage"}, true},
		{"a", []string{"search", "x", "--all-tapes"}, false},
		{"a", []string{"-t", "b", "usage"}, true},
	} {
		t.Setenv("TAPE_NAME", tc.env)
		for _, whole := range []bool{false, true} {
			cli, _ := parseWith(t, tc.args, whole)
			if cli.tapeFlag != tc.want {
				t.Errorf("TAPE_NAME=%q tape %s (whole model %v): tapeFlag %v, want %v", tc.env, strings.Join(tc.args, " "), whole, cli.tapeFlag, tc.want)
			}
		}
	}
}

// An error lists a few tapes, never thousands.
func TestSomeTapes(t *testing.T) {
	t.Parallel()
	names := make([]string, 3000)
	for i := range names {
		names[i] = fmt.Sprintf("claude-%04d", i)
	}
	if got, want := someTapes(names), "claude-0000, claude-0001, claude-0002, claude-0003, claude-0004 and 2995 more"; got != want {
		t.Errorf("someTapes(3000 names) = %q, want %q", got, want)
	}
	if got := someTapes(names[:2]); got != "claude-0000, claude-0001" {
		t.Errorf("someTapes(2 names) = %q", got)
	}
}

// tape info on the whole workspace measures the lag of every tape before
// it catches up, as it does for one tape (TestInfoLag).
func TestInfoWorkspaceLag(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	mustRun(t, dir, "append", "-k", "message", `{"content":"in main"}`)
	mustRun(t, dir, "--tape", "other", "append", "-k", "message", `{"content":"in other"}`)
	mustRun(t, dir, "reindex")
	line := `{"kind":"message","payload":{"content":"手写的一行"}}` + "\n"
	appendBytes(t, filepath.Join(firstFolder(t, dir), "messages.jsonl"), line)
	others, _ := filepath.Glob(filepath.Join(dir, ".tape", "tapes", "other", "anchors", "001_*", "messages.jsonl"))
	if len(others) != 1 {
		t.Fatalf("want one messages.jsonl in other: %v", others)
	}
	appendBytes(t, others[0], line)
	n := float64(2 * len(line))
	for _, tt := range []struct {
		name string
		args []string
		lag  float64
	}{
		{"--no-catchup reads the index as it stands", []string{"--all-tapes", "--no-catchup"}, n},
		{"the lag is measured before the catch-up", []string{"--all-tapes"}, n},
		{"after the catch-up", []string{"--all-tapes"}, 0},
	} {
		got := infoJSON(t, dir, tt.args...)
		if got["index_lag_bytes"] != tt.lag || got["tape"] != nil || got["tapes"] != 2.0 || got["files"] != 2.0 {
			t.Errorf("%s: %v; want index_lag_bytes %v, tape null, 2 tapes, 2 files", tt.name, got, tt.lag)
		}
	}
}
