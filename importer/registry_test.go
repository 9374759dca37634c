package importer

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/codex"
	"github.com/tape-dev/tape/importer/crush"
	tapelog "github.com/tape-dev/tape/log"
)

// Every registered source has what docs/ADDING_A_SOURCE.md asks of one:
// a name of lower case letters used by no other; golden transcripts and
// commands under testdata/import/<name>/; a fixture in this package's
// table, so that the driver's properties (TestImportGrownEqualsOneImport)
// run on it; and tests in its package that run the never-drop-text
// property and fuzz its converter (sourcetest).
func TestEverySourceIsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, src := range Sources() {
		name := src.Name()
		t.Run(name, func(t *testing.T) {
			if !regexp.MustCompile(`^[a-z]+$`).MatchString(name) || seen[name] {
				t.Fatalf("source name %q: want lower case letters, used by no other source", name)
			}
			seen[name] = true
			if got, ok := SourceByName(name); !ok || got != src {
				t.Errorf("SourceByName(%q) = %v, %v", name, got, ok)
			}
			for _, rel := range []string{"src", "commands", "want.txt"} {
				if _, err := os.Stat(filepath.Join("..", "testdata", "import", name, rel)); err != nil {
					t.Errorf("golden case: %v", err)
				}
			}
			fixed := false
			for _, fx := range fixtures {
				fixed = fixed || fx.format == src
			}
			if !fixed {
				t.Errorf("no transcript of %s in importer_test.go's fixtures", name)
			}
			pkg := strings.TrimPrefix(reflect.TypeOf(src).PkgPath(), "github.com/tape-dev/tape/importer/")
			tests, err := filepath.Glob(filepath.Join(pkg, "*_test.go"))
			if err != nil || len(tests) == 0 {
				t.Fatalf("no tests in importer/%s (%v)", pkg, err)
			}
			var all strings.Builder
			for _, f := range tests {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				all.Write(data)
			}
			for _, call := range []string{"sourcetest.KeepsText(", "sourcetest.FuzzKeepsText(", "sourcetest.FuzzResume(", "sourcetest.CheckShape("} {
				if !strings.Contains(all.String(), call) {
					t.Errorf("importer/%s's tests do not call %s...)", pkg, call)
				}
			}
		})
	}
}

// Dirs are a source's default folders, then the roots config.json names
// for it, "~/" read as the home folder, each once.
func TestDirsWithRoots(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	t.Setenv("CRUSH_GLOBAL_DATA", "/home/u/.local/share/crush")
	cfg := tapelog.DefaultConfig()
	cfg.CrushRoots = []string{"~/src", "/work", "/home/u/.local/share/crush", ""}
	got := DirsIn(crush.Source{}, cfg)
	if want := []string{"/home/u/.local/share/crush", "/home/u/src", "/work"}; !slices.Equal(got, want) {
		t.Errorf("Dirs(crush) = %v, want %v", got, want)
	}
	if got, want := DirsIn(codex.Source{}, cfg), DefaultDirs(codex.Source{}); !slices.Equal(got, want) {
		t.Errorf("Dirs(codex) = %v, want its default folders %v", got, want)
	}
}
