package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs the scripts in testdata/script: each is a session at a
// terminal-less shell, running the real tape binary (this test binary, see
// TestMain) in a fresh temporary folder, with its expected output and exit
// status. `go test ./cmd/tape -run TestScripts/NAME` runs one;
// `-testwork` keeps its folder.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "")
			env.Setenv("TAPE_WATCH", "off") // see TestMain
			return nil
		},
	})
}
