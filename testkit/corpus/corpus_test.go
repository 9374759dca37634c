package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			rel, _ := filepath.Rel(dir, path)
			files[rel] = data
		}
		return nil
	})
	return files
}

// The same seed gives the same files, and every line is a valid entry.
func TestGenerate(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	opts := Options{Entries: 2500, PerAnchor: 1000, Seed: 7}
	st, err := Generate(a, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(b, opts); err != nil {
		t.Fatal(err)
	}
	if st.Entries != 2500 || st.Anchors != 3 {
		t.Errorf("stats = %+v, want 2500 entries in 3 anchors", st)
	}
	ta, tb := readTree(t, a), readTree(t, b)
	if len(ta) != len(tb) {
		t.Fatalf("%d files, then %d", len(ta), len(tb))
	}
	lines := 0
	for name, data := range ta {
		if !bytes.Equal(data, tb[name]) {
			t.Errorf("%s differs between two runs with one seed", name)
		}
		for line := range bytes.Lines(data) {
			if _, err := tapelog.ParseEntry(line); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if filepath.Ext(name) == ".jsonl" {
				lines++
			}
		}
	}
	if lines != 2500 {
		t.Errorf("%d entry lines, want 2500", lines)
	}
	if avg := float64(st.Bytes) / float64(st.Entries); avg < 800 || avg > 2500 {
		t.Errorf("average entry of %.0f bytes; the benchmarks assume about 1.4 KB", avg)
	}
}
