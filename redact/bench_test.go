package redact

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tape-dev/tape/redact/redacttest"
)

// sourceChunks is this repository's Go and Markdown in 4 KB pieces, text
// full of "key", "token" and "secret" with no secret in it, and the
// planted secrets once every 64 pieces.
func sourceChunks(b *testing.B) ([]string, int) {
	b.Helper()
	var chunks []string
	total := 0
	planted := redacttest.Secrets(rand.New(rand.NewPCG(1, 36)))
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case d.IsDir() || !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md")):
			return nil
		}
		data, err := os.ReadFile(path)
		for len(data) > 0 && err == nil {
			n := min(len(data), 4096)
			c := string(data[:n])
			if len(chunks)%64 == 0 {
				c += "\n" + planted[len(chunks)/64%len(planted)].Line
			}
			chunks = append(chunks, c)
			total += len(c)
			data = data[n:]
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return chunks, total
}

// go test ./redact -run '^$' -bench Find -count 6
func BenchmarkFind(b *testing.B) {
	r := testRedactor(b)
	chunks, total := sourceChunks(b)
	b.SetBytes(int64(total))
	b.ResetTimer()
	for b.Loop() {
		for _, c := range chunks {
			r.Find(c)
		}
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}
