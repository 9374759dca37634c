package testkit

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/tape-dev/tape/"

// imports lists the module's packages with what their non-test files
// import, as go list sees them (test files may import the kits).
func imports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string][]string{}
	lines := bufio.NewScanner(bytes.NewReader(out))
	for lines.Scan() {
		fields := strings.Fields(lines.Text())
		pkgs[strings.TrimPrefix(fields[0], module)] = fields[1:]
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no package")
	}
	return pkgs
}

// benchDriver is the one production package that may import the kits:
// the benchmark driver's corpora and PostgreSQL servers are theirs.
const benchDriver = "cmd/tape-bench"

// kitsBeside are the test kits that live beside what they test, named as
// Go names its own (net/http/httptest), not under testkit/.
var kitsBeside = map[string]bool{"importer/sourcetest": true}

// isKit reports whether a package is a test kit: one under testkit/, or
// one of kitsBeside.
func isKit(pkg string) bool {
	return strings.HasPrefix(pkg, "testkit/") || pkg == "testkit" || kitsBeside[pkg]
}

func TestLayers(t *testing.T) {
	pkgs := imports(t)
	if _, ok := pkgs["testkit/poll"]; !ok {
		t.Fatalf("go list does not list the kits: %v", pkgs)
	}
	for pkg, imps := range pkgs {
		kit := isKit(pkg)
		ground := strings.HasPrefix(pkg, "internal/")
		for _, imp := range imps {
			rel, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			if !kit && pkg != benchDriver && isKit(rel) {
				t.Errorf("%s imports the test kit %s: only tests and %s may", pkg, rel, benchDriver)
			}
			if ground && !strings.HasPrefix(rel, "internal/") {
				t.Errorf("%s, on internal/'s ground floor, imports %s above it", pkg, rel)
			}
		}
	}
}
