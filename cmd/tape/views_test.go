package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCommands runs the commands of a golden case, one a line (blank lines
// and # comments skipped), each with --tape-dir ws, in the folder dir, and
// renders each command and what it printed as want.txt holds them. With
// vars, each key in a command is replaced by its value, and each value in
// the output by its key, so the file does not hold a temp folder's path.
func runCommands(t *testing.T, commands, dir, ws string, vars map[string]string) string {
	t.Helper()
	var b strings.Builder
	for line := range strings.Lines(commands) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		args := line
		for k, v := range vars {
			args = strings.ReplaceAll(args, k, v)
		}
		stdout, stderr, code := runTape(t, dir, append([]string{"--tape-dir", ws}, strings.Fields(args)...)...)
		for k, v := range vars {
			stdout, stderr = strings.ReplaceAll(stdout, v, k), strings.ReplaceAll(stderr, v, k)
		}
		fmt.Fprintf(&b, "$ tape %s\n%s", line, stdout)
		for l := range strings.Lines(stderr) {
			fmt.Fprintf(&b, "stderr: %s", l)
		}
		if code != 0 {
			fmt.Fprintf(&b, "[exit %d]\n", code)
		}
	}
	return b.String()
}

// TestViewsGolden runs the view commands of each case under
// testdata/views on its hand-written workspace and compares everything they
// print with want.txt (`go test ./cmd/tape -run TestViewsGolden -update`).
func TestViewsGolden(t *testing.T) {
	t.Parallel()
	goldenCases(t, "testdata/views", func(t *testing.T, dir, commands string) string {
		return runCommands(t, commands, "", copyWorkspace(t, filepath.Join(dir, ".tape")), nil)
	})
}

// goldenCases runs each case under root (a folder holding a commands
// file) as a subtest: run makes what it prints of the commands, which is
// compared with the case's want.txt.
func goldenCases(t *testing.T, root string, run func(t *testing.T, dir, commands string) string) {
	cases, err := filepath.Glob(filepath.Join(root, "*", "commands"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases under %s: %v", root, err)
	}
	for _, commands := range cases {
		dir := filepath.Dir(commands)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(commands)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join(dir, "want.txt"), run(t, dir, string(data)))
		})
	}
}
