package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// TestGolden runs the read commands on hand-written tapes and compares what
// they print with the files beside them.
func TestGolden(t *testing.T) {
	t.Parallel()
	cases, err := filepath.Glob("testdata/golden/*/args")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden cases found: %v", err)
	}
	for _, argsFile := range cases {
		dir := filepath.Dir(argsFile)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(argsFile)
			if err != nil {
				t.Fatal(err)
			}
			args := strings.Fields(string(data))
			ws := copyWorkspace(t, filepath.Join(dir, ".tape"))
			base := []string{"--tape-dir", ws}
			stdout, stderr, code := runTape(t, "", append(append(base, args...), "--json")...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			human, _, _ := runTape(t, "", append(base, args...)...)
			checkGolden(t, filepath.Join(dir, "want.jsonl"), stdout)
			checkGolden(t, filepath.Join(dir, "want.txt"), human)
			checkGolden(t, filepath.Join(dir, "want.stderr"), stderr)
		})
	}
}

func checkGolden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

// copyWorkspace copies a .tape folder into a temp folder and returns the
// copy's path.
func copyWorkspace(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), ".tape")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// runTape runs the CLI in this process, in the folder dir ("" for a temp
// folder outside any workspace), and returns its output and exit status.
func runTape(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runTapeStdin(t, dir, "", args...)
}

func runTapeStdin(t *testing.T, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	var out, errOut bytes.Buffer
	env := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Dir: dir}
	code = run(context.Background(), args, env)
	return out.String(), errOut.String(), code
}
