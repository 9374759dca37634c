package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestViewsGolden runs the view commands of each case under
// testdata/views on its hand-written workspace and compares everything they
// print with want.txt (`go test ./cmd/tape -run TestViewsGolden -update`).
func TestViewsGolden(t *testing.T) {
	cases, err := filepath.Glob("../../testdata/views/*/commands")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no view cases found: %v", err)
	}
	for _, commands := range cases {
		dir := filepath.Dir(commands)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(commands)
			if err != nil {
				t.Fatal(err)
			}
			ws := copyWorkspace(t, filepath.Join(dir, ".tape"))
			var b strings.Builder
			for line := range strings.Lines(string(data)) {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				stdout, stderr, code := runTape(t, "", append([]string{"--tape-dir", ws}, strings.Fields(line)...)...)
				fmt.Fprintf(&b, "$ tape %s\n%s", line, stdout)
				for l := range strings.Lines(stderr) {
					fmt.Fprintf(&b, "stderr: %s", l)
				}
				if code != 0 {
					fmt.Fprintf(&b, "[exit %d]\n", code)
				}
			}
			checkGolden(t, filepath.Join(dir, "want.txt"), b.String())
		})
	}
}
