package redact

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// falsePositives are what the redactor finds in the transcripts under
// testdata/import, which are shaped as the agents write them (tool
// output, code, configs, ids, hashes, base64 images) and hold no secret:
// "file:line kind" -> why it is found. None today. A finding not listed
// fails the test, and so does one listed and no longer found: a false
// positive is a choice, written down.
var falsePositives = map[string]string{}

func TestFalsePositivesInTheImportFixtures(t *testing.T) {
	t.Parallel()
	r := testRedactor(t)
	got := map[string]bool{}
	root := filepath.Join("..", "testdata", "import")
	lines := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for i, line := range bytes.Split(data, []byte("\n")) {
			lines++
			_, found := r.JSON(line)
			for _, f := range found {
				got[filepath.ToSlash(rel)+":"+strconv.Itoa(i+1)+" "+f.Kind] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines < 1000 {
		t.Fatalf("read %d lines of fixtures; want the whole of testdata/import", lines)
	}
	for k := range got {
		if _, ok := falsePositives[k]; !ok {
			t.Errorf("found in a fixture, and not listed as a false positive: %s", k)
		}
	}
	for k := range falsePositives {
		if !got[k] {
			t.Errorf("listed as a false positive, and no longer found: %s", k)
		}
	}
}
